#include "api/karpenter/rules.h"

#include <algorithm>
#include <array>
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

// kubernetes.io labels that nodes may carry from a NodePool (the kubelet sets or allows them).
constexpr std::array<std::string_view, 11> kAllowedKubernetesLabels = {
    "beta.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "failure-domain.beta.kubernetes.io/zone",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "node.kubernetes.io/windows-build",
};

// The AWS provider's well-known labels; the rest of its domain is reserved.
constexpr std::array<std::string_view, 23> kAllowedAwsLabels = {
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
    "karpenter.k8s.aws/capacity-reservation-id",
    "karpenter.k8s.aws/capacity-reservation-type",
};

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

std::optional<std::string> restrictedLabel(std::string_view key, bool allowNodePool) {
  if (key == "karpenter.sh/nodepool") {
    if (allowNodePool) {
      return std::nullopt;
    }
    return std::string(R"(label "karpenter.sh/nodepool" is restricted)");
  }
  if (key == "kubernetes.io/hostname") {
    return std::string(R"(label "kubernetes.io/hostname" is restricted)");
  }
  std::string_view domain = key.substr(0, key.find('/'));
  if (endsWith(domain, "kubernetes.io") && !oneOf(key, kAllowedKubernetesLabels) &&
      !endsWith(domain, "node.kubernetes.io") &&
      !endsWith(domain, "node-restriction.kubernetes.io")) {
    return std::string(R"(label domain "kubernetes.io" is restricted)");
  }
  if (endsWith(domain, "k8s.io") && !endsWith(domain, "kops.k8s.io")) {
    return std::string(R"(label domain "k8s.io" is restricted)");
  }
  if (endsWith(domain, "karpenter.sh") && key != "karpenter.sh/capacity-type") {
    return std::string(R"(label domain "karpenter.sh" is restricted)");
  }
  if (endsWith(domain, "karpenter.k8s.aws") && !oneOf(key, kAllowedAwsLabels)) {
    return std::string(R"(label domain "karpenter.k8s.aws" is restricted)");
  }
  return std::nullopt;
}

void validateLabels(const std::map<std::string, std::string>& labels, const FieldPath& path,
                    FieldErrors& errors) {
  constexpr size_t kMaxLabels = 100;
  if (labels.size() > kMaxLabels) {
    errors.push_back({path.str(), fielderr::tooMany(labels.size(), kMaxLabels)});
  }
  for (const auto& [key, value] : labels) {
    FieldPath at = path.key(key);
    if (!isQualifiedName(key)) {
      errors.push_back({at.str(), fielderr::invalid(Json(key), kQualifiedNameDetail)});
    } else if (auto reason = restrictedLabel(key, false)) {
      errors.push_back({at.str(), fielderr::invalid(Json(key), *reason)});
    }
    if (!isLabelValue(value)) {
      errors.push_back({at.str(), fielderr::invalid(Json(value), kLabelValueDetail)});
    }
  }
}

void validateTaintLists(const std::vector<Taint>& taints, const std::vector<Taint>& startupTaints,
                        const FieldPath& path, FieldErrors& errors) {
  std::set<std::pair<std::string, std::string>> seen;
  auto check = [&](const std::vector<Taint>& list, std::string_view field) {
    for (size_t i = 0; i < list.size(); ++i) {
      const Taint& t = list[i];
      if (t.key.empty()) {
        continue;  // reported as a required field
      }
      if (!seen.emplace(t.key, t.effect).second) {
        errors.push_back({path.child(field).index(i).str(),
                          fielderr::duplicate(Json{{"key", t.key}, {"effect", t.effect}})});
      }
    }
  };
  check(taints, "taints");
  check(startupTaints, "startupTaints");
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
