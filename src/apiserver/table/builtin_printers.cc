#include <chrono>
#include <map>
#include <optional>
#include <utility>

#include "api/codec.h"
#include "api/labels.h"
#include "apiserver/table/human_duration.h"
#include "apiserver/table/json_access.h"
#include "apiserver/table/printer.h"

namespace nodewright::apiserver::table {
namespace {

using api::Json;

struct KindKey {
  std::string_view group;
  std::string_view kind;
  auto operator<=>(const KindKey&) const = default;
};

// NewRequirement's checks: a known operator, the value count it needs, valid key and values.
bool validRequirement(const api::LabelSelectorRequirement& r) {
  if (!api::qualifiedNameErrors(r.key).empty()) {
    return false;
  }
  for (const std::string& value : r.values) {
    if (!api::labelValueErrors(value).empty()) {
      return false;
    }
  }
  if (r.operator_ == api::kOpIn || r.operator_ == api::kOpNotIn) {
    return !r.values.empty();
  }
  if (r.operator_ == api::kOpExists || r.operator_ == api::kOpDoesNotExist) {
    return r.values.empty();
  }
  return false;
}

// LabelSelectorAsSelector: nullopt when the selector cannot become one.
std::optional<std::string> selectorString(const Json* selector) {
  if (selector == nullptr || selector->is_null()) {
    return std::string();
  }
  api::LabelSelector parsed;
  if (!api::decodeJson(*selector, parsed, api::DecodeOptions{.strict = false}).empty()) {
    return std::nullopt;
  }
  for (const auto& [key, value] : parsed.matchLabels) {
    if (!validRequirement({key, api::kOpIn, {value}})) {
      return std::nullopt;
    }
  }
  for (const api::LabelSelectorRequirement& r : parsed.matchExpressions) {
    if (!validRequirement(r)) {
      return std::nullopt;
    }
  }
  return api::formatSelector(parsed);
}

}  // namespace

Column nameColumn() {
  return {"Name", "string", "name", std::string(kNameDescription), 0};
}

Column ageColumn() {
  return {"Age", "string", "", std::string(kCreationTimestampDescription), 0};
}

const Printer* builtinPrinter(std::string_view group, std::string_view kind) {
  static const auto* const kPrinters = new std::map<KindKey, Printer>{
      {{"", "Pod"}, podPrinter()},
      {{"", "Node"}, nodePrinter()},
      {{"", "Namespace"}, namespacePrinter()},
      {{"", "Event"}, eventPrinter()},
      {{"", "Secret"}, secretPrinter()},
      {{"", "ConfigMap"}, configMapPrinter()},
      {{"coordination.k8s.io", "Lease"}, leasePrinter()},
      {{"apps", "Deployment"}, deploymentPrinter()},
      {{"apps", "ReplicaSet"}, replicaSetPrinter()},
      {{"apps", "DaemonSet"}, daemonSetPrinter()},
      {{"policy", "PodDisruptionBudget"}, podDisruptionBudgetPrinter()},
      // Upstream serves CustomResourceDefinitions through the generic convertor.
      {{"apiextensions.k8s.io", "CustomResourceDefinition"}, defaultPrinter()},
  };
  auto it = kPrinters->find(KindKey{group, kind});
  return it == kPrinters->end() ? nullptr : &it->second;
}

Printer defaultPrinter() {
  Printer printer;
  printer.columns = {nameColumn(),
                     {"Created At", "date", "", std::string(kCreationTimestampDescription), 0}};
  printer.print = [](const Json& object, core::TimePoint) {
    // Go formats the zero time too; second precision, UTC, as time.RFC3339.
    std::string created = "0001-01-01T00:00:00Z";
    if (auto at = parseTimestamp(member(object, {"metadata", "creationTimestamp"}))) {
      created = core::Time(std::chrono::floor<std::chrono::seconds>(*at)).toString();
    }
    return Row{{Json(nameOf(object)), Json(created)}, Json()};
  };
  return printer;
}

std::string nameOf(const Json& object) {
  return stringAt(object, {"metadata", "name"});
}

std::string ageOf(const Json& object, core::TimePoint now) {
  return ageSince(member(object, {"metadata", "creationTimestamp"}), now);
}

void containerCells(const Json& podSpec, Row& row) {
  std::string names;
  std::string images;
  const Json& containers = arrayAt(podSpec, {"containers"});
  for (size_t i = 0; i < containers.size(); ++i) {
    if (i > 0) {
      names += ",";
      images += ",";
    }
    names += stringAt(containers[i], {"name"});
    images += stringAt(containers[i], {"image"});
  }
  row.cells.emplace_back(std::move(names));
  row.cells.emplace_back(std::move(images));
}

std::string formatLabelSelector(const Json* selector) {
  std::optional<std::string> text = selectorString(selector);
  if (!text) {
    return "<error>";
  }
  return text->empty() ? "<none>" : *text;
}

std::string labelSelectorString(const Json* selector) {
  return selectorString(selector).value_or("<invalid>");
}

std::string formatLabels(const Json* labels) {
  if (labels == nullptr || !labels->is_object() || labels->empty()) {
    return "<none>";
  }
  std::map<std::string, std::string> sorted;
  for (const auto& [key, value] : labels->items()) {
    sorted[key] = value.is_string() ? value.get<std::string>() : std::string();
  }
  std::string out;
  for (const auto& [key, value] : sorted) {
    out += (out.empty() ? "" : ",") + key + "=" + value;
  }
  return out;
}

}  // namespace nodewright::apiserver::table
