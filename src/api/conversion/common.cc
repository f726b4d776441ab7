#include "api/conversion/common.h"

#include <chrono>
#include <limits>

namespace nodewright::api::conversion {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;

std::map<std::string, std::string> quantitiesToText(
    const std::map<std::string, core::Quantity>& in) {
  std::map<std::string, std::string> out;
  for (const auto& [k, q] : in) {
    out[k] = q.toString();
  }
  return out;
}

std::map<std::string, core::Quantity> textToQuantities(const std::map<std::string, std::string>& in,
                                                       const FieldPath& path, FieldErrors& errors) {
  std::map<std::string, core::Quantity> out;
  for (const auto& [k, text] : in) {
    auto q = core::Quantity::parse(text);
    if (!q) {
      errors.push_back({path.key(k).str(), fielderr::invalid(Json(text), q.error().message())});
      continue;
    }
    out[k] = *q;
  }
  return out;
}

// Map keys that are not plain identifiers are shown as [key], like FieldPath::key.
std::string childPath(const std::string& parent, const std::string& key) {
  bool plain = !key.empty() && key.find_first_of("./[]") == std::string::npos;
  if (!plain) {
    return parent + "[" + key + "]";
  }
  return parent.empty() ? key : parent + "." + key;
}

void diff(const Json& a, const Json& b, const std::string& path, std::string_view target,
          FieldErrors& out) {
  if (a == b) {
    return;
  }
  // An empty map or struct is not encoded, so a missing side compares as empty.
  if ((a.is_object() || b.is_object()) && (a.is_object() || a.is_null()) &&
      (b.is_object() || b.is_null())) {
    for (const auto& [k, v] : a.items()) {
      diff(v, b.contains(k) ? b[k] : Json(), childPath(path, k), target, out);
    }
    for (const auto& [k, v] : b.items()) {
      if (!a.contains(k)) {
        diff(Json(), v, childPath(path, k), target, out);
      }
    }
    return;
  }
  if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) {
      diff(a[i], b[i], path + "[" + std::to_string(i) + "]", target, out);
    }
    return;
  }
  out.push_back(
      {path, fielderr::invalid(a, "would not survive conversion to " + std::string(target))});
}

}  // namespace

FieldError noEquivalent(const FieldPath& path, std::string_view target, std::string_view hint) {
  std::string detail = "has no " + std::string(target) + " equivalent";
  if (!hint.empty()) {
    detail += "; ";
    detail += hint;
  }
  return {path.str(), fielderr::forbidden(detail)};
}

std::vector<karpenter::Taint> toV1(const std::vector<seedera::Taint>& taints) {
  std::vector<karpenter::Taint> out;
  out.reserve(taints.size());
  for (const seedera::Taint& t : taints) {
    out.push_back({t.key, t.value, t.effect, t.timeAdded});
  }
  return out;
}

std::vector<seedera::Taint> toSeedEra(const std::vector<karpenter::Taint>& taints) {
  std::vector<seedera::Taint> out;
  out.reserve(taints.size());
  for (const karpenter::Taint& t : taints) {
    out.push_back({t.key, t.value, t.effect, t.timeAdded});
  }
  return out;
}

std::vector<karpenter::NodeSelectorRequirementWithMinValues> toV1(
    const std::vector<seedera::NodeSelectorRequirement>& requirements) {
  std::vector<karpenter::NodeSelectorRequirementWithMinValues> out;
  out.reserve(requirements.size());
  for (const seedera::NodeSelectorRequirement& r : requirements) {
    out.push_back({r.key, r.operator_, r.values, std::nullopt});
  }
  return out;
}

std::vector<seedera::NodeSelectorRequirement> toSeedEra(
    const std::vector<karpenter::NodeSelectorRequirementWithMinValues>& requirements,
    const FieldPath& path, FieldErrors& errors) {
  std::vector<seedera::NodeSelectorRequirement> out;
  out.reserve(requirements.size());
  for (size_t i = 0; i < requirements.size(); ++i) {
    const auto& r = requirements[i];
    if (r.minValues) {
      errors.push_back(noEquivalent(path.index(i).child("minValues"), kV1Alpha5));
    }
    if (r.operator_ == "Gte" || r.operator_ == "Lte") {
      errors.push_back({path.index(i).child("operator").str(),
                        fielderr::unsupported(Json(r.operator_), {"In", "NotIn", "Exists",
                                                                  "DoesNotExist", "Gt", "Lt"})});
    }
    out.push_back({r.key, r.operator_, r.values});
  }
  return out;
}

std::optional<karpenter::KubeletConfiguration> toV1(
    const std::optional<seedera::KubeletConfiguration>& kubelet, const FieldPath& path,
    FieldErrors& errors) {
  if (!kubelet) {
    return std::nullopt;
  }
  const seedera::KubeletConfiguration& k = *kubelet;
  if (k.containerRuntime) {
    errors.push_back(noEquivalent(path.child("containerRuntime"), kV1,
                                  "Karpenter v1 nodes always run containerd"));
  }
  karpenter::KubeletConfiguration out;
  out.clusterDNS = k.clusterDNS;
  out.maxPods = k.maxPods;
  out.podsPerCore = k.podsPerCore;
  out.systemReserved = quantitiesToText(k.systemReserved);
  out.kubeReserved = quantitiesToText(k.kubeReserved);
  out.evictionHard = k.evictionHard;
  out.evictionSoft = k.evictionSoft;
  out.evictionSoftGracePeriod = k.evictionSoftGracePeriod;
  out.evictionMaxPodGracePeriod = k.evictionMaxPodGracePeriod;
  out.imageGCHighThresholdPercent = k.imageGCHighThresholdPercent;
  out.imageGCLowThresholdPercent = k.imageGCLowThresholdPercent;
  out.cpuCFSQuota = k.cpuCFSQuota;
  return out;
}

std::optional<seedera::KubeletConfiguration> toSeedEra(
    const std::optional<karpenter::KubeletConfiguration>& kubelet, const FieldPath& path,
    FieldErrors& errors) {
  if (!kubelet) {
    return std::nullopt;
  }
  const karpenter::KubeletConfiguration& k = *kubelet;
  seedera::KubeletConfiguration out;
  out.clusterDNS = k.clusterDNS;
  out.maxPods = k.maxPods;
  out.podsPerCore = k.podsPerCore;
  out.systemReserved = textToQuantities(k.systemReserved, path.child("systemReserved"), errors);
  out.kubeReserved = textToQuantities(k.kubeReserved, path.child("kubeReserved"), errors);
  out.evictionHard = k.evictionHard;
  out.evictionSoft = k.evictionSoft;
  out.evictionSoftGracePeriod = k.evictionSoftGracePeriod;
  out.evictionMaxPodGracePeriod = k.evictionMaxPodGracePeriod;
  out.imageGCHighThresholdPercent = k.imageGCHighThresholdPercent;
  out.imageGCLowThresholdPercent = k.imageGCLowThresholdPercent;
  out.cpuCFSQuota = k.cpuCFSQuota;
  return out;
}

std::vector<Condition> toV1(const std::vector<seedera::Condition>& conditions,
                            const std::map<std::string, std::string>& renames, Json& severities) {
  std::vector<Condition> out;
  out.reserve(conditions.size());
  for (const seedera::Condition& c : conditions) {
    auto it = renames.find(c.type);
    Condition v1;
    v1.type = it == renames.end() ? c.type : it->second;
    v1.status = c.status;
    v1.lastTransitionTime = c.lastTransitionTime;
    v1.reason = c.reason;
    v1.message = c.message;
    if (!c.severity.empty()) {
      severities[v1.type] = c.severity;
    }
    out.push_back(std::move(v1));
  }
  return out;
}

std::vector<seedera::Condition> toSeedEra(const std::vector<Condition>& conditions,
                                          const std::map<std::string, std::string>& renames,
                                          const Json& severities) {
  std::map<std::string, std::string> back;
  for (const auto& [seed, v1] : renames) {
    back[v1] = seed;
  }
  std::vector<seedera::Condition> out;
  out.reserve(conditions.size());
  for (const Condition& c : conditions) {
    auto it = back.find(c.type);
    seedera::Condition seed;
    seed.type = it == back.end() ? c.type : it->second;
    seed.status = c.status;
    seed.lastTransitionTime = c.lastTransitionTime;
    seed.reason = c.reason;
    seed.message = c.message;
    if (severities.is_object() && severities.contains(c.type) && severities[c.type].is_string()) {
      seed.severity = severities[c.type].get<std::string>();
    }
    out.push_back(std::move(seed));
  }
  return out;
}

std::optional<core::Duration> secondsToDuration(int64_t seconds, const FieldPath& path,
                                                FieldErrors& errors) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / kNanosPerSecond;
  if (seconds > kMax || seconds < -kMax) {
    errors.push_back(
        {path.str(), fielderr::invalid(Json(seconds), "must be at most " + std::to_string(kMax) +
                                                          " to be expressed as a duration")});
    return std::nullopt;
  }
  return core::Duration(std::chrono::seconds(seconds));
}

std::optional<int64_t> durationToSeconds(const core::Duration& d, const FieldPath& path,
                                         FieldErrors& errors) {
  const int64_t nanos = d.value().count();
  if (nanos < 0 || nanos % kNanosPerSecond != 0) {
    errors.push_back({path.str(), fielderr::invalid(Json(d.toString()),
                                                    "must be a non-negative whole number of "
                                                    "seconds to be expressed in " +
                                                        std::string(kV1Alpha5))});
    return std::nullopt;
  }
  return nanos / kNanosPerSecond;
}

FieldErrors lostFields(const Json& original, const Json& roundTrip, std::string_view target) {
  FieldErrors out;
  diff(original, roundTrip, "", target, out);
  return out;
}

}  // namespace nodewright::api::conversion
