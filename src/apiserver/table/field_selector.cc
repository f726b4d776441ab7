#include "apiserver/table/field_selector.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace nodewright::apiserver {
namespace {

using api::Json;

constexpr const char* kName = "metadata.name";
constexpr const char* kNamespace = "metadata.namespace";

struct KindLabels {
  std::string_view group;
  std::string_view kind;
  std::vector<std::string> labels;
};

// The core/v1 kinds that register a field label conversion function upstream
// (pkg/apis/core/v1/conversion.go), each with exactly the labels it accepts. apps/v1 registers
// none: kube-apiserver rejects a ReplicaSet's status.replicas although its docs list it.
const std::vector<KindLabels>& convertedKinds() {
  static const auto* const kKinds = new std::vector<KindLabels>{
      {"",
       "Pod",
       {kName, kNamespace, "spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
        "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP",
        "status.podIPs", "status.nominatedNodeName"}},
      {"", "Node", {kName, "spec.unschedulable"}},
      {"", "ReplicationController", {kName, kNamespace, "status.replicas"}},
      {"",
       "Event",
       {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
        "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type", kNamespace,
        kName}},
      {"", "Namespace", {"status.phase", kName}},
      {"", "Secret", {"type", kNamespace, kName}},
      {"", "Service", {kNamespace, kName, "spec.clusterIP", "spec.type"}},
  };
  return *kKinds;
}

const KindLabels* convertedKind(std::string_view group, std::string_view kind) {
  for (const KindLabels& k : convertedKinds()) {
    if (k.group == group && k.kind == kind) {
      return &k;
    }
  }
  return nullptr;
}

// splitTerms: commas split terms unless escaped; the escape stays for UnescapeValue.
std::vector<std::string> splitTerms(std::string_view text) {
  std::vector<std::string> terms;
  std::string current;
  bool escaped = false;
  for (char c : text) {
    if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == ',') {
      terms.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  terms.push_back(std::move(current));
  return terms;
}

// splitTerm: the first operator from the left; "!=" and "==" before "=".
bool splitTerm(const std::string& term, FieldRequirement& out, std::string& rawValue) {
  for (size_t i = 0; i < term.size(); ++i) {
    for (std::string_view op : {"!=", "==", "="}) {
      if (term.compare(i, op.size(), op) == 0) {
        out.field = term.substr(0, i);
        out.equal = op != "!=";
        rawValue = term.substr(i + op.size());
        return true;
      }
    }
  }
  return false;
}

// The bytes of the UTF-8 character starting at text[i] (Go reads the selector by runes).
std::string_view runeAt(std::string_view text, size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return text.substr(i, length);
}

core::Result<std::string> unescapeValue(std::string_view raw) {
  std::string value;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '\\') {
      if (i + 1 == raw.size()) {
        return core::fail(
            core::Error::invalid("invalid field selector: invalid escape sequence: \\"));
      }
      const std::string_view next = runeAt(raw, ++i);
      if (next != "\\" && next != "," && next != "=") {
        return core::fail(core::Error::invalid(
            "invalid field selector: invalid escape sequence: \\" + std::string(next)));
      }
      value += next;
    } else if (c == ',' || c == '=') {
      return core::fail(core::Error::invalid(
          "invalid field selector: unescaped character in value: " + std::to_string(int(c))));
    } else {
      value += c;
    }
  }
  return value;
}

std::string escapeValue(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') {
      out += '\\';
    }
    out += c;
  }
  return out;
}

// The Go zero value a typed object's selectable field set holds for an absent field.
std::string absentValue(std::string_view field) {
  if (field == "spec.unschedulable" || field == "spec.hostNetwork") {
    return "false";
  }
  if (field == "status.replicas") {
    return "0";
  }
  return "";
}

const Json* atPath(const Json& object, std::string_view path) {
  const Json* current = &object;
  while (true) {
    const size_t dot = path.find('.');
    const std::string_view key = path.substr(0, dot);
    if (!current->is_object()) {
      return nullptr;
    }
    auto it = current->find(key);
    if (it == current->end()) {
      return nullptr;
    }
    current = &*it;
    if (dot == std::string_view::npos) {
      return current;
    }
    path.remove_prefix(dot + 1);
  }
}

std::optional<std::string> scalarText(const Json* value) {
  if (value == nullptr || value->is_null()) {
    return std::nullopt;
  }
  if (value->is_string()) {
    return value->get<std::string>();
  }
  if (value->is_boolean()) {
    return value->get<bool>() ? "true" : "false";
  }
  if (value->is_number()) {
    return api::dumpJson(*value);
  }
  return std::string();
}

std::string fieldValue(const Json& object, const std::string& field) {
  if (field == "source") {
    std::string component = scalarText(atPath(object, "source.component")).value_or("");
    return component.empty() ? scalarText(atPath(object, "reportingComponent")).value_or("")
                             : component;
  }
  if (field == "status.podIP") {
    const Json* ips = atPath(object, "status.podIPs");
    if (ips != nullptr && ips->is_array() && !ips->empty()) {
      return scalarText(atPath((*ips)[0], "ip")).value_or("");
    }
  }
  return scalarText(atPath(object, field)).value_or(absentValue(field));
}

}  // namespace

core::Result<FieldSelector> FieldSelector::parse(std::string_view text) {
  FieldSelector selector;
  std::vector<std::string> terms = splitTerms(text);
  std::sort(terms.begin(), terms.end());
  for (const std::string& term : terms) {
    if (term.empty()) {
      continue;
    }
    FieldRequirement requirement;
    std::string raw;
    if (!splitTerm(term, requirement, raw)) {
      return core::fail(core::Error::invalid("invalid selector: '" + std::string(text) +
                                             "'; can't understand '" + term + "'"));
    }
    auto value = unescapeValue(raw);
    if (!value) {
      return core::fail(value.error());
    }
    requirement.value = std::move(*value);
    selector.requirements_.push_back(std::move(requirement));
  }
  return selector;
}

core::Result<FieldSelector> FieldSelector::forResource(const Resource& resource) const {
  const KindLabels* converted =
      resource.custom ? nullptr : convertedKind(resource.group, resource.kind);
  std::vector<std::string> allowed = resource.custom
                                         ? std::vector<std::string>{kName}
                                         : builtinFieldLabels(resource.group, resource.kind);
  if (resource.custom && resource.namespaced) {
    allowed.push_back(kNamespace);
  }
  allowed.insert(allowed.end(), resource.fieldSelectors.begin(), resource.fieldSelectors.end());
  const bool ownList = resource.custom || converted != nullptr;

  FieldSelector out;
  for (FieldRequirement requirement : requirements_) {
    if (converted != nullptr && resource.kind == "Pod" && requirement.field == "spec.host") {
      requirement.field = "spec.nodeName";  // what pre-1.0 clients send
    }
    if (std::find(allowed.begin(), allowed.end(), requirement.field) == allowed.end()) {
      return core::fail(core::Error::invalid(
          ownList ? "field label not supported: " + requirement.field
                  : "\"" + requirement.field + "\" is not a known field selector: only \"" + kName +
                        "\", \"" + kNamespace + "\""));
    }
    out.requirements_.push_back(std::move(requirement));
  }
  return out;
}

bool FieldSelector::matches(const api::Json& object) const {
  return std::all_of(requirements_.begin(), requirements_.end(), [&](const FieldRequirement& r) {
    return (fieldValue(object, r.field) == r.value) == r.equal;
  });
}

std::string FieldSelector::toString() const {
  std::string out;
  for (const FieldRequirement& r : requirements_) {
    out += (out.empty() ? "" : ",") + r.field + (r.equal ? "=" : "!=") + escapeValue(r.value);
  }
  return out;
}

std::vector<std::string> builtinFieldLabels(std::string_view group, std::string_view kind) {
  if (const KindLabels* converted = convertedKind(group, kind)) {
    return converted->labels;
  }
  return {kName, kNamespace};
}

}  // namespace nodewright::apiserver
