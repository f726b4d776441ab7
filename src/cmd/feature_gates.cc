#include "cmd/feature_gates.h"

#include <map>
#include <optional>
#include <string_view>

#include <CLI/CLI.hpp>

#include "core/text.h"

namespace nodewright::cmd {
namespace {

// Go's strconv.ParseBool, which upstream's map flag uses for each value.
std::optional<bool> parseGoBool(const std::string& value) {
  static const std::map<std::string, bool> kWords = {
      {"1", true},    {"t", true},      {"T", true},      {"TRUE", true},
      {"true", true}, {"True", true},   {"0", false},     {"f", false},
      {"F", false},   {"FALSE", false}, {"false", false}, {"False", false}};
  auto found = kWords.find(value);
  if (found == kWords.end()) {
    return std::nullopt;
  }
  return found->second;
}

// Sets the gate one "Name=bool" item names; unknown names change nothing.
core::Status applyPair(FeatureGates& gates, std::string_view pair) {
  static const std::map<std::string, bool FeatureGates::*, std::less<>> kGates = {
      {"NodeRepair", &FeatureGates::nodeRepair},
      {"ReservedCapacity", &FeatureGates::reservedCapacity},
      {"SpotToSpotConsolidation", &FeatureGates::spotToSpotConsolidation},
      {"NodeOverlay", &FeatureGates::nodeOverlay},
      {"StaticCapacity", &FeatureGates::staticCapacity},
      {"CapacityBuffer", &FeatureGates::capacityBuffer}};
  const auto eq = pair.find('=');
  if (eq == std::string_view::npos) {
    return core::fail(core::Error::invalid("--feature-gates: malformed pair \"" +
                                           std::string(pair) + "\", expect Name=bool"));
  }
  const std::string_view name = core::trimSpace(pair.substr(0, eq));
  const std::string value(core::trimSpace(pair.substr(eq + 1)));
  auto enabled = parseGoBool(value);
  if (!enabled) {
    return core::fail(core::Error::invalid("--feature-gates: invalid value of " +
                                           std::string(name) + ": \"" + value +
                                           "\" is not a boolean"));
  }
  if (auto gate = kGates.find(name); gate != kGates.end()) {
    gates.*(gate->second) = *enabled;
  }
  return core::ok();
}

}  // namespace

core::Result<FeatureGates> parseFeatureGates(const std::string& text) {
  FeatureGates gates;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view pair = core::trimSpace(rest.substr(0, comma));
    // An empty list or an empty item ("a=true,,b=false") sets nothing.
    if (!pair.empty()) {
      if (auto applied = applyPair(gates, pair); !applied) {
        return core::fail(applied.error());
      }
    }
    if (comma == std::string_view::npos) {
      return gates;
    }
    rest.remove_prefix(comma + 1);
  }
}

void addFeatureGatesFlag(CLI::App& sub, std::string& text) {
  sub.add_option("--feature-gates", text,
                 "Optional features on or off (FEATURE_GATES), as Karpenter's: NodeRepair, "
                 "ReservedCapacity, SpotToSpotConsolidation, NodeOverlay, StaticCapacity, "
                 "CapacityBuffer")
      ->envname("FEATURE_GATES")
      ->capture_default_str();
}

}  // namespace nodewright::cmd
