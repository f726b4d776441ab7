#include "api/seedera/common.h"

#include <algorithm>
#include <set>
#include <utility>

namespace nodewright::api::seedera {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

const std::vector<std::string> kEvictionSignals = {
    "memory.available",  "nodefs.available",   "nodefs.inodesFree",
    "imagefs.available", "imagefs.inodesFree", "pid.available",
};
const std::vector<std::string> kReservedResources = {"cpu", "memory", "ephemeral-storage", "pid"};

bool contains(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

template <class V>
void checkKeys(const std::map<std::string, V>& m, const std::vector<std::string>& supported,
               const FieldPath& path, FieldErrors& errors) {
  for (const auto& [k, v] : m) {
    if (!contains(supported, k)) {
      errors.push_back({path.key(k).str(), fielderr::unsupported(Json(k), supported)});
    }
  }
}

bool isNonNegativeInteger(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

const StructSchema& describe(Tag<NodeSelectorRequirement>) {
  static const StructSchema s =
      StructBuilder<NodeSelectorRequirement>(
          "NodeSelectorRequirement",
          "A selector that relates a node label key to values by an operator.")
          .field<&NodeSelectorRequirement::key>("key", "The label key the selector applies to.")
          .required()
          .field<&NodeSelectorRequirement::operator_>(
              "operator",
              "How the key relates to the values: In, NotIn, Exists, DoesNotExist, "
              "Gt or Lt.")
          .required()
          .enums({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"})
          .field<&NodeSelectorRequirement::values>(
              "values", "The values; one integer for Gt and Lt, at least one for In.")
          .setList()
          .validate([](const NodeSelectorRequirement& r, const FieldPath& path, FieldErrors& errs) {
            if (r.operator_ == "In" && r.values.empty()) {
              errs.push_back({path.child("values").str(),
                              fielderr::required() + ": operator In needs at least one value"});
            }
            if ((r.operator_ == "Gt" || r.operator_ == "Lt") &&
                (r.values.size() != 1 || !isNonNegativeInteger(r.values[0]))) {
              errs.push_back({path.child("values").str(),
                              fielderr::invalid(Json(r.values), "operator " + r.operator_ +
                                                                    " needs a single "
                                                                    "non-negative integer value")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<Taint>) {
  static const StructSchema s =
      StructBuilder<Taint>("Taint", "A taint placed on the nodes launched for this object.")
          .field<&Taint::key>("key", "The taint key to be applied to a node.")
          .required()
          .field<&Taint::value>("value", "The taint value corresponding to the taint key.")
          .field<&Taint::effect>("effect",
                                 "The effect on pods that do not tolerate the taint: NoSchedule, "
                                 "PreferNoSchedule or NoExecute.")
          .required()
          .enums({"NoSchedule", "PreferNoSchedule", "NoExecute"})
          .field<&Taint::timeAdded>("timeAdded",
                                    "When a NoExecute taint was added; set by the node controller.")
          .build();
  return s;
}

const StructSchema& describe(Tag<ProviderRef>) {
  static const StructSchema s =
      StructBuilder<ProviderRef>("ProviderRef",
                                 "A reference to the provider-specific node template (for AWS an "
                                 "AWSNodeTemplate).")
          .field<&ProviderRef::kind>("kind", "Kind of the referent; AWSNodeTemplate if empty.")
          .field<&ProviderRef::name>("name", "Name of the referent.")
          .required()
          .field<&ProviderRef::apiVersion>("apiVersion", "API version of the referent.")
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeletConfiguration>) {
  static const StructSchema s =
      StructBuilder<KubeletConfiguration>("KubeletConfiguration",
                                          "Options passed to the kubelet of every node launched.")
          .field<&KubeletConfiguration::clusterDNS>(
              "clusterDNS", "IP addresses of the cluster DNS servers, in order.")
          .field<&KubeletConfiguration::containerRuntime>(
              "containerRuntime",
              "The container runtime of the nodes (dockerd or containerd); dropped in v1.")
          .enums({"dockerd", "containerd"})
          .field<&KubeletConfiguration::maxPods>("maxPods",
                                                 "Overrides the maximum number of pods per node.")
          .min(0)
          .field<&KubeletConfiguration::podsPerCore>("podsPerCore",
                                                     "Pods per CPU core; never more than maxPods.")
          .min(0)
          .field<&KubeletConfiguration::systemReserved>(
              "systemReserved", "Resources reserved for OS system daemons and kernel memory.")
          .field<&KubeletConfiguration::kubeReserved>(
              "kubeReserved", "Resources reserved for Kubernetes system components.")
          .field<&KubeletConfiguration::evictionHard>(
              "evictionHard", "Hard eviction thresholds by signal name (quantity or percentage).")
          .field<&KubeletConfiguration::evictionSoft>(
              "evictionSoft", "Soft eviction thresholds by signal name (quantity or percentage).")
          .field<&KubeletConfiguration::evictionSoftGracePeriod>(
              "evictionSoftGracePeriod", "Grace period of each soft eviction signal.")
          .field<&KubeletConfiguration::evictionMaxPodGracePeriod>(
              "evictionMaxPodGracePeriod",
              "Longest grace period, in seconds, for pods evicted by a soft threshold.")
          .field<&KubeletConfiguration::imageGCHighThresholdPercent>(
              "imageGCHighThresholdPercent",
              "Disk usage percent above which image garbage collection always runs.")
          .min(0)
          .max(100)
          .field<&KubeletConfiguration::imageGCLowThresholdPercent>(
              "imageGCLowThresholdPercent",
              "Disk usage percent below which image garbage collection never runs.")
          .min(0)
          .max(100)
          .field<&KubeletConfiguration::cpuCFSQuota>(
              "cpuCFSQuota", "Enforces CPU CFS quota for containers that set CPU limits.")
          .validate([](const KubeletConfiguration& k, const FieldPath& path, FieldErrors& errs) {
            checkKeys(k.evictionHard, kEvictionSignals, path.child("evictionHard"), errs);
            checkKeys(k.evictionSoft, kEvictionSignals, path.child("evictionSoft"), errs);
            checkKeys(k.evictionSoftGracePeriod, kEvictionSignals,
                      path.child("evictionSoftGracePeriod"), errs);
            checkKeys(k.systemReserved, kReservedResources, path.child("systemReserved"), errs);
            checkKeys(k.kubeReserved, kReservedResources, path.child("kubeReserved"), errs);
            for (const auto& [signal, threshold] : k.evictionSoft) {
              if (k.evictionSoftGracePeriod.count(signal) == 0) {
                errs.push_back({path.child("evictionSoft").key(signal).str(),
                                fielderr::invalid(Json(threshold),
                                                  "has no matching evictionSoftGracePeriod")});
              }
            }
            for (const auto& [signal, period] : k.evictionSoftGracePeriod) {
              if (k.evictionSoft.count(signal) == 0) {
                errs.push_back({path.child("evictionSoftGracePeriod").key(signal).str(),
                                fielderr::invalid(Json(period.toString()),
                                                  "has no matching evictionSoft threshold")});
              }
            }
            if (k.imageGCHighThresholdPercent && k.imageGCLowThresholdPercent &&
                *k.imageGCHighThresholdPercent <= *k.imageGCLowThresholdPercent) {
              errs.push_back(
                  {path.child("imageGCHighThresholdPercent").str(),
                   fielderr::invalid(Json(*k.imageGCHighThresholdPercent),
                                     "must be greater than imageGCLowThresholdPercent")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<Condition>) {
  static const StructSchema s =
      StructBuilder<Condition>("Condition",
                               "One aspect of the current state of this resource (knative style).")
          .field<&Condition::type>("type", "Type of condition.")
          .required()
          .field<&Condition::status>("status", "Status of the condition: True, False or Unknown.")
          .required()
          .enums({"True", "False", "Unknown"})
          .field<&Condition::severity>(
              "severity", "How to interpret a False status: Error if empty, Warning or Info.")
          .field<&Condition::lastTransitionTime>(
              "lastTransitionTime", "Last time the condition changed from one status to another.")
          .field<&Condition::reason>("reason", "One-word CamelCase reason for the last transition.")
          .field<&Condition::message>("message", "Human readable details of the last transition.")
          .build();
  return s;
}

void validateTaintPairs(const std::vector<Taint>& taints, const FieldPath& taintsPath,
                        const std::vector<Taint>& startupTaints, const FieldPath& startupPath,
                        FieldErrors& errors) {
  std::set<std::pair<std::string, std::string>> seen;
  auto check = [&](const std::vector<Taint>& list, const FieldPath& path) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (!seen.emplace(list[i].key, list[i].effect).second) {
        errors.push_back(
            {path.index(i).str(), fielderr::duplicate(Json(list[i].key + ":" + list[i].effect))});
      }
    }
  };
  check(taints, taintsPath);
  check(startupTaints, startupPath);
}

}  // namespace nodewright::api::seedera
