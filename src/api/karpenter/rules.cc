#include "api/karpenter/rules.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <set>
#include <utility>

namespace nodewright::api::karpenter::rules {
namespace {

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The name part of a qualified name (also a non-empty label value).
bool isName(std::string_view s) {
  if (s.empty() || s.size() > 63 || !isAlnum(s.front()) || !isAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// RFC 1123 subdomain: dot-separated lower-case labels, at most 253 characters.
bool isDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) {
    return false;
  }
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('.', start);
    std::string_view label = s.substr(start, end == std::string_view::npos ? end : end - start);
    if (label.empty() || label.size() > 63) {
      return false;
    }
    auto lowerAlnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
    if (!lowerAlnum(label.front()) || !lowerAlnum(label.back()) ||
        !std::all_of(label.begin(), label.end(),
                     [&](char c) { return lowerAlnum(c) || c == '-'; })) {
      return false;
    }
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  return true;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

template <size_t N>
bool oneOf(std::string_view s, const std::array<std::string_view, N>& values) {
  return std::find(values.begin(), values.end(), s) != values.end();
}

// Requirement and label keys of the AWS provider's domain that a NodePool or NodeClaim may use:
// the list in the karpenter.k8s.aws CEL rule of aws/karpenter-provider-aws v1.14
// pkg/apis/crds/karpenter.sh_nodepools.yaml (its WellKnownLabels in that domain).
constexpr std::array<std::string_view, 28> kAllowedAwsLabels = {
    "karpenter.k8s.aws/instance-tenancy",
    "karpenter.k8s.aws/capacity-reservation-type",
    "karpenter.k8s.aws/capacity-reservation-id",
    "karpenter.k8s.aws/capacity-reservation-interruptible",
    "karpenter.k8s.aws/ec2nodeclass",
    "karpenter.k8s.aws/instance-encryption-in-transit-supported",
    "karpenter.k8s.aws/instance-category",
    "karpenter.k8s.aws/instance-hypervisor",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-local-nvme",
    "karpenter.k8s.aws/instance-size",
    "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-cpu-manufacturer",
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
    "karpenter.k8s.aws/instance-memory",
    "karpenter.k8s.aws/instance-ebs-bandwidth",
    "karpenter.k8s.aws/instance-network-bandwidth",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.k8s.aws/instance-accelerator-name",
    "karpenter.k8s.aws/instance-accelerator-manufacturer",
    "karpenter.k8s.aws/instance-accelerator-count",
    "karpenter.k8s.aws/instance-capability-flex",
    "karpenter.k8s.aws/placement-group-id",
    "karpenter.k8s.aws/placement-group-partition",
};

// A name as the CRD patterns have it: alphanumeric at both ends, '-', '_' or '.' between; no
// length limit.
bool isPatternName(std::string_view s) {
  if (s.empty() || !isAlnum(s.front()) || !isAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// The key pattern's prefix: dot-separated lower-case labels, each alphanumeric at both ends.
bool isPatternPrefix(std::string_view s) {
  auto lowerAlnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  size_t start = 0;
  while (true) {
    size_t end = s.find('.', start);
    std::string_view label = s.substr(start, end == std::string_view::npos ? end : end - start);
    if (label.empty() || !lowerAlnum(label.front()) || !lowerAlnum(label.back()) ||
        !std::all_of(label.begin(), label.end(),
                     [&](char c) { return lowerAlnum(c) || c == '-'; })) {
      return false;
    }
    if (end == std::string_view::npos) {
      return true;
    }
    start = end + 1;
  }
}

bool intValue(std::string_view s) {
  // CEL int(string) (strconv.ParseInt base 10): an optional sign, then decimal digits, in range.
  std::string_view digits = s;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    digits.remove_prefix(1);
  }
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  int64_t v = 0;
  const char* first = s.data() + (s.front() == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() && v >= 0;
}

}  // namespace

const char* const kQualifiedNameDetail =
    "must be a qualified name: an optional DNS subdomain prefix and '/', then at most 63 "
    "alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";
const char* const kLabelValueDetail =
    "must be empty or at most 63 alphanumerics, '-', '_' or '.', starting and ending with an "
    "alphanumeric";

bool isQualifiedName(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) {
    return isName(key);
  }
  std::string_view name = key.substr(slash + 1);
  return name.find('/') == std::string_view::npos && isDnsSubdomain(key.substr(0, slash)) &&
         isName(name);
}

bool isLabelValue(std::string_view value) {
  return value.empty() || isName(value);
}

const char* const kKeyPattern =
    R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$)";
const char* const kValuePattern = R"(^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$)";

bool matchesKeyPattern(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) {
    return isPatternName(key);
  }
  return isPatternPrefix(key.substr(0, slash)) && isPatternName(key.substr(slash + 1));
}

bool matchesValuePattern(std::string_view value) {
  return value.empty() || isPatternName(value);
}

std::string patternError(const std::string& value, const std::string& path,
                         std::string_view pattern) {
  return fielderr::invalid(Json(value),
                           path + " in body should match '" + std::string(pattern) + "'");
}

std::string celError(std::string_view type, std::string_view message) {
  return fielderr::invalid(Json(std::string(type)), message);
}

std::vector<std::string> restrictedKeyMessages(std::string_view key, bool forbidNodePool) {
  // CEL's key.find("^([^/]+)"): everything before the first '/', or the whole key.
  std::string_view domain = key.substr(0, key.find('/'));
  std::vector<std::string> out;
  if (key != "karpenter.sh/capacity-type" && key != "karpenter.sh/nodepool" &&
      endsWith(domain, "karpenter.sh")) {
    out.emplace_back(R"(label domain "karpenter.sh" is restricted)");
  }
  if (forbidNodePool && key == "karpenter.sh/nodepool") {
    out.emplace_back(R"(label "karpenter.sh/nodepool" is restricted)");
  }
  if (key == "kubernetes.io/hostname") {
    out.emplace_back(R"(label "kubernetes.io/hostname" is restricted)");
  }
  if (!oneOf(key, kAllowedAwsLabels) && endsWith(domain, "karpenter.k8s.aws")) {
    out.emplace_back(R"(label domain "karpenter.k8s.aws" is restricted)");
  }
  return out;
}

void validateLabels(const std::map<std::string, std::string>& labels, const FieldPath& path,
                    FieldErrors& errors) {
  constexpr size_t kMaxLabels = 100;
  constexpr size_t kMaxValue = 63;
  if (labels.size() > kMaxLabels) {
    errors.push_back({path.str(), fielderr::tooMany(labels.size(), kMaxLabels)});
  }
  for (const auto& [key, value] : labels) {
    std::string at = path.key(key).str();
    if (value.size() > kMaxValue) {
      errors.push_back({at, "Too long: may not be more than 63 bytes"});
    }
    if (!matchesValuePattern(value)) {
      errors.push_back({at, patternError(value, at, kValuePattern)});
    }
  }
  // The map's rules (self.all(x, ...)) each fail once, at the map.
  std::vector<std::string> broken;
  for (const auto& [key, value] : labels) {
    for (std::string& m : restrictedKeyMessages(key, true)) {
      if (std::find(broken.begin(), broken.end(), m) == broken.end()) {
        broken.push_back(std::move(m));
      }
    }
  }
  for (const std::string& m : broken) {
    errors.push_back({path.str(), celError("object", m)});
  }
}

void validateRequirementList(const std::vector<NodeSelectorRequirementWithMinValues>& reqs,
                             const FieldPath& path, FieldErrors& errors) {
  auto comparison = [](const std::string& op) {
    return op == "Gt" || op == "Lt" || op == "Gte" || op == "Lte";
  };
  bool inWithoutValues = false;
  bool badComparison = false;
  bool tooFewForMin = false;
  for (const auto& r : reqs) {
    inWithoutValues |= r.operator_ == "In" && r.values.empty();
    badComparison |= comparison(r.operator_) && (r.values.size() != 1 || !intValue(r.values[0]));
    tooFewForMin |=
        r.operator_ == "In" && r.minValues && static_cast<int64_t>(r.values.size()) < *r.minValues;
  }
  if (inWithoutValues) {
    errors.push_back({path.str(), celError("array",
                                           "requirements with operator 'In' must have a value "
                                           "defined")});
  }
  if (badComparison) {
    errors.push_back({path.str(), celError("array",
                                           "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' "
                                           "must have a single positive integer value")});
  }
  if (tooFewForMin) {
    errors.push_back({path.str(), celError("array",
                                           "requirements with 'minValues' must have at least "
                                           "that many values specified in the 'values' field")});
  }
}

void checkDuration(const std::optional<core::Duration>& duration, DurationRule rule,
                   const FieldPath& path, FieldErrors& errors) {
  if (!duration) {
    return;
  }
  const core::Duration& d = *duration;
  if (d.isNever()) {
    if (rule != DurationRule::SecondsOrNever) {
      errors.push_back(
          {path.str(), fielderr::invalid(Json("Never"), "must be a duration, not Never")});
    }
    return;
  }
  using std::chrono::minutes;
  using std::chrono::seconds;
  if (d.value().count() < 0) {
    errors.push_back({path.str(), fielderr::invalid(Json(d.toString()), "must not be negative")});
  } else if (rule == DurationRule::MinutesOrHours && d.value() % minutes(1) != minutes(0)) {
    errors.push_back(
        {path.str(), fielderr::invalid(Json(d.toString()),
                                       "must be whole minutes or hours; cron has no seconds")});
  } else if (d.value() % seconds(1) != seconds(0)) {
    errors.push_back({path.str(), fielderr::invalid(Json(d.toString()), "must be whole seconds")});
  }
}

void validateConditions(const std::vector<Condition>& conditions, const FieldPath& path,
                        FieldErrors& errors) {
  std::vector<std::string> types;
  types.reserve(conditions.size());
  for (const Condition& c : conditions) {
    types.push_back(c.type);
  }
  validateConditionTypes(types, path, errors);
}

void validateSelectorTags(const std::map<std::string, std::string>& tags, const FieldPath& path,
                          FieldErrors& errors) {
  constexpr size_t kMaxTags = 20;
  if (tags.size() > kMaxTags) {
    errors.push_back({path.str(), fielderr::tooMany(tags.size(), kMaxTags)});
  }
  for (const auto& [key, value] : tags) {
    if (key.empty() || value.empty()) {
      errors.push_back(
          {path.key(key).str(),
           fielderr::invalid(Json(value), "empty tag keys or values aren't supported")});
    }
  }
}

}  // namespace nodewright::api::karpenter::rules
