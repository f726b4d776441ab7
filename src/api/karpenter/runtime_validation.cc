#include "api/karpenter/runtime_validation.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "api/karpenter/rules.h"
#include "api/karpenter/well_known_labels.h"

namespace nodewright::api::karpenter {
namespace {

// RestrictedLabelDomains (core karpenter.sh plus the AWS provider's own group).
constexpr std::array<std::string_view, 2> kRestrictedDomains = {"karpenter.sh",
                                                                "karpenter.k8s.aws"};

// NormalizedLabels: aliases a requirement is read as.
const std::map<std::string, std::string, std::less<>> kNormalizedLabels = {
    {"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"},
    {"beta.kubernetes.io/arch", "kubernetes.io/arch"},
    {"beta.kubernetes.io/os", "kubernetes.io/os"},
    {"beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type"},
    {"failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"},
};

// WellKnownValuesForRequirements (core capacity types; the AWS provider's tenancies).
const std::map<std::string, std::set<std::string>, std::less<>> kWellKnownValues = {
    {"karpenter.sh/capacity-type", {"on-demand", "spot", "reserved"}},
    {"karpenter.k8s.aws/instance-tenancy", {"dedicated", "default"}},
};

constexpr std::array<std::string_view, 8> kSupportedOperators = {
    "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"};

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Go's strconv.Atoi: an optional sign and decimal digits within int64.
std::optional<int64_t> parseInt(std::string_view s) {
  std::string_view digits = s;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    digits.remove_prefix(1);
  }
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  int64_t v = 0;
  const char* first = s.data() + (s.front() == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return std::nullopt;
  }
  return v;
}

// Upstream validateWellKnownValues: an In requirement on a key with known values needs at least
// one (and at least minValues) of them; unknown values next to known ones are tolerated.
std::optional<std::string> wellKnownValuesError(const NodeSelectorRequirementWithMinValues& r) {
  if (!isWellKnownLabel(r.key) || r.operator_ != "In") {
    return std::nullopt;
  }
  auto known = kWellKnownValues.find(r.key);
  if (known == kWellKnownValues.end()) {
    return std::nullopt;
  }
  auto valid = std::count_if(r.values.begin(), r.values.end(),
                             [&](const std::string& v) { return known->second.contains(v); });
  if (valid == 0) {
    return "no valid values found for " + r.key;
  }
  if (r.minValues && valid < *r.minValues) {
    return "not enough valid values found for " + r.key + ", expected at least " +
           std::to_string(*r.minValues);
  }
  return std::nullopt;
}

void taintErrors(const std::vector<Taint>& taints, std::string_view field,
                 std::set<std::pair<std::string, std::string>>& seen,
                 std::vector<std::string>& out) {
  for (const Taint& t : taints) {
    std::string where = " in " + std::string(field);
    if (!rules::isQualifiedName(t.key)) {
      out.push_back("invalid taint key \"" + t.key + "\"" + where + ", " +
                    rules::kQualifiedNameDetail);
    }
    if (!t.value.empty() && !rules::isQualifiedName(t.value)) {
      out.push_back("invalid taint value \"" + t.value + "\"" + where + ", " +
                    rules::kQualifiedNameDetail);
    }
    if (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule" &&
        t.effect != "NoExecute") {
      out.push_back("invalid taint effect \"" + t.effect + "\"" + where);
    }
    if (!seen.emplace(t.key, t.effect).second) {
      out.push_back("duplicate taint Key/Effect pair " + t.key + "=" + t.effect);
    }
  }
}

}  // namespace

bool isWellKnownLabel(const std::string& key) {
  return wellKnownLabels().contains(key);
}

std::string restrictedLabelReason(const std::string& key) {
  if (isWellKnownLabel(key)) {
    return "";
  }
  const std::string reason = "using label " + key +
                             " is not allowed as it might interfere with the internal "
                             "provisioning logic";
  size_t slash = key.find('/');
  std::string_view domain =
      slash == std::string::npos ? std::string_view() : std::string_view(key).substr(0, slash);
  for (std::string_view restricted : kRestrictedDomains) {
    if (domain == restricted || endsWith(domain, "." + std::string(restricted))) {
      return reason;
    }
  }
  if (key == "kubernetes.io/hostname") {
    return reason;
  }
  return "";
}

std::vector<std::string> runtimeRequirementErrors(const NodeSelectorRequirementWithMinValues& in) {
  NodeSelectorRequirementWithMinValues r = in;
  if (auto normalized = kNormalizedLabels.find(r.key); normalized != kNormalizedLabels.end()) {
    r.key = normalized->second;
  }
  std::vector<std::string> out;
  const std::string& op = r.operator_;
  if (std::find(kSupportedOperators.begin(), kSupportedOperators.end(), op) ==
      kSupportedOperators.end()) {
    out.push_back("key " + r.key + " has an unsupported operator " + op);
  }
  if (std::string reason = restrictedLabelReason(r.key); !reason.empty()) {
    out.push_back(reason);
  }
  if (auto error = wellKnownValuesError(r)) {
    out.push_back(*error);
  }
  if (!rules::isQualifiedName(r.key)) {
    out.push_back("key " + r.key + " is not a qualified name, " + rules::kQualifiedNameDetail);
  }
  for (const std::string& v : r.values) {
    if (!rules::isLabelValue(v)) {
      out.push_back("invalid value " + v + " for key " + r.key + ", " + rules::kLabelValueDetail);
    }
  }
  if (op == "In" && r.values.empty()) {
    out.push_back("key " + r.key + " with operator In must have a value defined");
  }
  if (op == "In" && r.minValues && static_cast<int64_t>(r.values.size()) < *r.minValues) {
    out.push_back("key " + r.key +
                  " with operator In must have at least minimum number of values defined");
  }
  if (op == "Gt" || op == "Lt" || op == "Gte" || op == "Lte") {
    auto v = r.values.size() == 1 ? parseInt(r.values[0]) : std::nullopt;
    if (!v || *v < 0) {
      out.push_back("key " + r.key + " with operator " + op +
                    " must have a single positive integer value");
    }
  }
  return out;
}

std::vector<std::string> runtimeValidate(const NodePool& pool) {
  const NodeClaimTemplate& tmpl = pool.spec.template_;
  std::vector<std::string> out;
  for (const auto& [key, value] : tmpl.metadata.labels) {
    if (key == "karpenter.sh/nodepool") {
      out.push_back("invalid key name \"" + key + "\" in labels, restricted");
    }
    if (!rules::isQualifiedName(key)) {
      out.push_back("invalid key name \"" + key + "\" in labels, " + rules::kQualifiedNameDetail);
    }
    if (!rules::isLabelValue(value)) {
      out.push_back("invalid value: " + value + " for label[" + key + "], " +
                    rules::kLabelValueDetail);
    }
    if (std::string reason = restrictedLabelReason(key); !reason.empty()) {
      out.push_back("invalid key name \"" + key + "\" in labels, " + reason);
    }
  }
  std::set<std::pair<std::string, std::string>> seen;
  taintErrors(tmpl.spec.taints, "taints", seen, out);
  taintErrors(tmpl.spec.startupTaints, "startupTaints", seen, out);
  for (const auto& r : tmpl.spec.requirements) {
    for (const std::string& e : runtimeRequirementErrors(r)) {
      out.push_back("invalid value: " + e + " in requirements, restricted");
    }
    if (r.key == "karpenter.sh/nodepool") {
      out.push_back("invalid key: \"" + r.key + "\" in requirements, restricted");
    }
  }
  return out;
}

}  // namespace nodewright::api::karpenter
