#include "api/capi/common.h"

#include <charconv>
#include <regex>

#include "api/codec.h"

namespace nodewright::api::capi {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<CapiCondition>) {
  static const StructSchema s =
      StructBuilder<CapiCondition>("Condition",
                                   "An observation of one aspect of a Cluster API object's state.")
          .field<&CapiCondition::type>(
              "type", "Condition type in CamelCase or in foo.example.com/CamelCase form.")
          .required()
          .field<&CapiCondition::status>("status",
                                         "Status of the condition: True, False or Unknown.")
          .required()
          .enums({"True", "False", "Unknown"})
          .field<&CapiCondition::severity>(
              "severity",
              "How bad a False status is (Error, Warning or Info); empty when status is True.")
          .enums({"Error", "Warning", "Info", ""})
          .field<&CapiCondition::lastTransitionTime>(
              "lastTransitionTime", "When the condition last changed from one status to another.")
          .required()
          .field<&CapiCondition::reason>("reason",
                                         "CamelCase reason for the last transition; may be empty.")
          .field<&CapiCondition::message>("message",
                                          "Human-readable details about the last transition.")
          .build();
  return s;
}

void validateCapiConditions(const std::vector<CapiCondition>& conditions,
                            const FieldPath& conditionsPath, FieldErrors& errors) {
  std::vector<std::string> types;
  types.reserve(conditions.size());
  for (const CapiCondition& c : conditions) {
    types.push_back(c.type);
  }
  validateConditionTypes(types, conditionsPath, errors);
}

const StructSchema& describe(Tag<APIEndpoint>) {
  static const StructSchema s =
      StructBuilder<APIEndpoint>("APIEndpoint", "A reachable Kubernetes API server endpoint.")
          .field<&APIEndpoint::host>("host", "Host name or IP address the API server serves on.")
          .field<&APIEndpoint::port>("port", "Port the API server serves on.")
          .min(0)
          .max(65535)
          .build();
  return s;
}

const StructSchema& describe(Tag<FailureDomainSpec>) {
  static const StructSchema s =
      StructBuilder<FailureDomainSpec>("FailureDomainSpec",
                                       "One failure domain (for Azure: an availability zone).")
          .field<&FailureDomainSpec::controlPlane>(
              "controlPlane", "Whether control plane machines may be placed in this domain.")
          .field<&FailureDomainSpec::attributes>(
              "attributes", "Provider-specific facts about the failure domain.")
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineAddress>) {
  static const StructSchema s =
      StructBuilder<MachineAddress>("MachineAddress", "One address of a machine.")
          .field<&MachineAddress::type>(
              "type",
              "Kind of address: Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.")
          .required()
          .enums({"Hostname", "ExternalIP", "InternalIP", "ExternalDNS", "InternalDNS"})
          .field<&MachineAddress::address>("address", "The address itself.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<TemplateMetadata>) {
  static const StructSchema s =
      StructBuilder<TemplateMetadata>(
          "ObjectMeta", "Labels and annotations given to objects made from a template.")
          .field<&TemplateMetadata::labels>("labels", "Labels to set on created objects.")
          .field<&TemplateMetadata::annotations>("annotations",
                                                 "Annotations to set on created objects.")
          .build();
  return s;
}

bool isKubeSemver(std::string_view version) {
  static const std::regex re(
      R"(^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)([-0-9a-zA-Z_.+]*)?$)");
  return std::regex_match(version.begin(), version.end(), re);
}

namespace {

// The percentage in "25%", or nullopt when the text is not an integer followed by '%'.
std::optional<int64_t> parsePercent(const std::string& text) {
  if (text.size() < 2 || text.back() != '%') {
    return std::nullopt;
  }
  std::string_view digits(text.data(), text.size() - 1);
  if (!digits.empty() && digits.front() == '+') {
    digits.remove_prefix(1);
  }
  int64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

void validateIntOrPercent(const IntOrString& value, const FieldPath& path, bool atMost100Percent,
                          FieldErrors& errors) {
  int64_t number = value.intValue;
  if (value.isString) {
    std::optional<int64_t> percent = parsePercent(value.stringValue);
    if (!percent) {
      errors.push_back(
          {path.str(), fielderr::invalid(toJson(value), "must be either an int or a percentage")});
      return;
    }
    number = *percent;
    if (atMost100Percent && number > 100) {
      errors.push_back(
          {path.str(), fielderr::invalid(toJson(value), "must not be greater than 100%")});
    }
  }
  if (number < 0) {
    errors.push_back(
        {path.str(), fielderr::invalid(toJson(value), "must be greater than or equal to 0")});
  }
}

bool isZeroIntOrPercent(const IntOrString& value) {
  if (!value.isString) {
    return value.intValue == 0;
  }
  std::optional<int64_t> percent = parsePercent(value.stringValue);
  return percent && *percent == 0;
}

int32_t defaultReplicas(const ObjectMeta& metadata) {
  auto parse = [&](const char* key) -> std::optional<int32_t> {
    auto it = metadata.annotations.find(key);
    if (it == metadata.annotations.end()) {
      return std::nullopt;
    }
    int32_t value = 0;
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return std::nullopt;
    }
    return value;
  };
  std::optional<int32_t> minSize = parse(kAutoscalerMinSizeAnnotation);
  std::optional<int32_t> maxSize = parse(kAutoscalerMaxSizeAnnotation);
  return minSize && maxSize ? *minSize : 1;
}

std::string formatLabelValue(const std::string& value) {
  if (labelValueErrors(value).empty()) {
    return value;
  }
  uint32_t hash = 2166136261u;
  for (unsigned char c : value) {
    hash = (hash ^ c) * 16777619u;
  }
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  // The 4 hash bytes, big-endian, in unpadded URL-safe base64: 6 characters.
  uint64_t bits = static_cast<uint64_t>(hash) << 4;  // 32 bits padded to 36 = 6 x 6 bits
  std::string encoded;
  for (int shift = 30; shift >= 0; shift -= 6) {
    encoded.push_back(kAlphabet[(bits >> shift) & 0x3f]);
  }
  return "hash_" + encoded + "_z";
}

void defaultSelector(LabelSelector& selector, TemplateMetadata& templateMetadata,
                     const std::string& nameLabel, const std::string& objectName,
                     const std::string& clusterName) {
  if (selector.empty() && !objectName.empty()) {
    selector.matchLabels[nameLabel] = formatLabelValue(objectName);
    templateMetadata.labels[nameLabel] = formatLabelValue(objectName);
  }
  if (!clusterName.empty()) {
    selector.matchLabels[kClusterNameLabel] = clusterName;
    templateMetadata.labels[kClusterNameLabel] = clusterName;
  }
}

void validateSelectorMatchesTemplate(const LabelSelector& selector,
                                     const TemplateMetadata& templateMetadata,
                                     const FieldPath& spec, FieldErrors& errors) {
  if (!matches(selector, templateMetadata.labels)) {
    errors.push_back(
        {spec.child("template").child("metadata").child("labels").str(),
         fielderr::forbidden("must match spec.selector \"" + formatSelector(selector) + "\"")});
  }
}

}  // namespace nodewright::api::capi
