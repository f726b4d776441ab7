#include "api/karpenter/common.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "api/karpenter/rules.h"

namespace nodewright::api::karpenter {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

const std::vector<std::string> kOperators = {"In", "NotIn", "Exists", "DoesNotExist",
                                             "Gt", "Lt",    "Gte",    "Lte"};
const std::vector<std::string> kReservedResources = {"cpu", "memory", "ephemeral-storage", "pid"};
const std::vector<std::string> kEvictionSignals = {"memory.available",   "nodefs.available",
                                                   "nodefs.inodesFree",  "imagefs.available",
                                                   "imagefs.inodesFree", "pid.available"};

bool contains(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// "10%", "5.5%" or "100%"; the kubelet's percentage form of an eviction threshold.
bool isPercentage(const std::string& s) {
  if (s.size() < 2 || s.back() != '%') {
    return false;
  }
  std::string number = s.substr(0, s.size() - 1);
  size_t dot = number.find('.');
  std::string whole = number.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : number.substr(dot + 1);
  auto digits = [](const std::string& d) {
    return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || whole.size() > 3 || !digits(whole) || frac.size() > 2 || !digits(frac) ||
      (dot != std::string::npos && frac.empty())) {
    return false;
  }
  int w = std::stoi(whole);
  return w < 100 || (w == 100 && frac.find_first_not_of('0') == std::string::npos);
}

// The NodeSelectorRequirementWithMinValues item schema of karpenter.sh/v1: the key by pattern
// and CEL domain rules, each value by pattern and length. The rules that relate operator,
// values and minValues sit on the list (rules::validateRequirementList); key syntax beyond the
// pattern is checked at runtime.
void validateRequirement(const NodeSelectorRequirementWithMinValues& r, const FieldPath& p,
                         FieldErrors& errs) {
  if (!r.key.empty()) {
    std::string at = p.child("key").str();
    if (!rules::matchesKeyPattern(r.key)) {
      errs.push_back({at, rules::patternError(r.key, at, rules::kKeyPattern)});
    }
    for (const std::string& m : rules::restrictedKeyMessages(r.key, false)) {
      errs.push_back({at, rules::celError("string", m)});
    }
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    std::string at = p.child("values").index(i).str();
    if (r.values[i].size() > 63) {
      errs.push_back({at, "Too long: may not be more than 63 bytes"});
    }
    if (!rules::matchesValuePattern(r.values[i])) {
      errs.push_back({at, rules::patternError(r.values[i], at, rules::kValuePattern)});
    }
  }
}

// The core/v1 Taint item schema the karpenter.sh CRDs carry: key and value by pattern (no length
// limit; IsQualifiedName is checked at runtime).
void validateTaint(const Taint& t, const FieldPath& p, FieldErrors& errs) {
  if (!t.key.empty() && !rules::matchesKeyPattern(t.key)) {
    std::string at = p.child("key").str();
    errs.push_back({at, rules::patternError(t.key, at, rules::kKeyPattern)});
  }
  if (!t.value.empty() && !rules::matchesKeyPattern(t.value)) {
    std::string at = p.child("value").str();
    errs.push_back({at, rules::patternError(t.value, at, rules::kKeyPattern)});
  }
}

void validateReserved(const std::map<std::string, std::string>& reserved, const FieldPath& path,
                      FieldErrors& errs) {
  for (const auto& [key, value] : reserved) {
    FieldPath at = path.key(key);
    if (!contains(kReservedResources, key)) {
      errs.push_back({at.str(), fielderr::unsupported(Json(key), kReservedResources)});
    }
    auto q = core::Quantity::parse(value);
    if (!q) {
      errs.push_back({at.str(), fielderr::invalid(Json(value), q.error().message())});
    } else if (*q < core::Quantity()) {
      errs.push_back({at.str(), fielderr::invalid(Json(value), "must not be negative")});
    }
  }
}

void validateEviction(const std::map<std::string, std::string>& thresholds, const FieldPath& path,
                      FieldErrors& errs) {
  for (const auto& [key, value] : thresholds) {
    FieldPath at = path.key(key);
    if (!contains(kEvictionSignals, key)) {
      errs.push_back({at.str(), fielderr::unsupported(Json(key), kEvictionSignals)});
    }
    if (!isPercentage(value) && !core::Quantity::parse(value)) {
      errs.push_back(
          {at.str(), fielderr::invalid(Json(value), "must be a percentage or a quantity")});
    }
  }
}

void validateKubelet(const KubeletConfiguration& k, const FieldPath& p, FieldErrors& errs) {
  validateReserved(k.systemReserved, p.child("systemReserved"), errs);
  validateReserved(k.kubeReserved, p.child("kubeReserved"), errs);
  validateEviction(k.evictionHard, p.child("evictionHard"), errs);
  validateEviction(k.evictionSoft, p.child("evictionSoft"), errs);
  for (const auto& [key, period] : k.evictionSoftGracePeriod) {
    FieldPath at = p.child("evictionSoftGracePeriod").key(key);
    if (!contains(kEvictionSignals, key)) {
      errs.push_back({at.str(), fielderr::unsupported(Json(key), kEvictionSignals)});
    }
    rules::checkDuration(period, rules::DurationRule::Seconds, at, errs);
    if (!k.evictionSoft.contains(key)) {
      errs.push_back({p.child("evictionSoft").key(key).str(),
                      fielderr::required() + ": evictionSoftGracePeriod[" + key +
                          "] needs a matching soft eviction threshold"});
    }
  }
  for (const auto& [key, threshold] : k.evictionSoft) {
    if (!k.evictionSoftGracePeriod.contains(key)) {
      errs.push_back({p.child("evictionSoftGracePeriod").key(key).str(),
                      fielderr::required() + ": evictionSoft[" + key + "] needs a grace period"});
    }
  }
  if (k.imageGCHighThresholdPercent && k.imageGCLowThresholdPercent &&
      *k.imageGCHighThresholdPercent <= *k.imageGCLowThresholdPercent) {
    errs.push_back({p.child("imageGCHighThresholdPercent").str(),
                    fielderr::invalid(Json(*k.imageGCHighThresholdPercent),
                                      "must be greater than imageGCLowThresholdPercent (" +
                                          std::to_string(*k.imageGCLowThresholdPercent) + ")")});
  }
}

}  // namespace

const StructSchema& describe(Tag<NodeSelectorRequirementWithMinValues>) {
  using R = NodeSelectorRequirementWithMinValues;
  static const StructSchema s =
      StructBuilder<R>("NodeSelectorRequirementWithMinValues",
                       "A node selector requirement (key, operator, values) with an optional "
                       "minimum number of distinct values the scheduler must keep available.")
          .field<&R::key>("key", "The label key that the selector applies to.")
          .required()
          .maxLength(316)
          .field<&R::operator_>("operator",
                                "The key's relationship to the values: In, NotIn, Exists, "
                                "DoesNotExist, Gt, Lt, Gte or Lte.")
          .required()
          .enums(kOperators)
          .field<&R::values>("values",
                             "Values for In/NotIn (In needs at least one), none for "
                             "Exists/DoesNotExist, exactly one integer for Gt/Lt/Gte/Lte.")
          .pattern(R"(^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$)")
          .field<&R::minValues>("minValues",
                                "Minimum number of distinct values that must stay available for "
                                "this key when launching (In and Exists only).")
          .min(1)
          .max(50)
          .validate(validateRequirement)
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeSelectorRequirement>) {
  using R = NodeSelectorRequirement;
  static const StructSchema s =
      StructBuilder<R>("NodeSelectorRequirement",
                       "A selector that relates a label key to a set of values.")
          .field<&R::key>("key", "The label key that the selector applies to.")
          .required()
          .field<&R::operator_>("operator", "The key's relationship to the values.")
          .required()
          .enums(kOperators)
          .field<&R::values>("values", "The values the operator compares against.")
          .build();
  return s;
}

const StructSchema& describe(Tag<Taint>) {
  static const StructSchema s =
      StructBuilder<Taint>("Taint",
                           "A taint placed on the node; pods that do not tolerate it are "
                           "affected as its effect says.")
          .field<&Taint::key>("key", "The taint key to be applied to a node.")
          .required()
          .field<&Taint::value>("value", "The taint value corresponding to the taint key.")
          .field<&Taint::effect>("effect",
                                 "Effect on pods that do not tolerate the taint: NoSchedule, "
                                 "PreferNoSchedule or NoExecute.")
          .required()
          .enums({"NoSchedule", "PreferNoSchedule", "NoExecute"})
          .field<&Taint::timeAdded>("timeAdded",
                                    "When the taint was added; written only for NoExecute taints.")
          .validate(validateTaint)
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeClassReference>) {
  using R = NodeClassReference;
  static const StructSchema s =
      StructBuilder<R>("NodeClassReference",
                       "Reference to the cloud-provider node class that configures the instance.")
          .field<&R::group>("group", "API group of the node class, e.g. karpenter.k8s.aws.")
          .required()
          .pattern("^[^/]*$")
          .field<&R::kind>("kind", "Kind of the node class, e.g. EC2NodeClass.")
          .required()
          .field<&R::name>("name", "Name of the node class.")
          .required()
          .validate([](const R& r, const FieldPath& p, FieldErrors& errs) {
            if (r.group.find('/') != std::string::npos) {
              std::string at = p.child("group").str();
              errs.push_back({at, rules::patternError(r.group, at, "^[^/]*$")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeletConfiguration>) {
  using K = KubeletConfiguration;
  static const StructSchema s =
      StructBuilder<K>("KubeletConfiguration",
                       "Kubelet settings for the nodes; a subset of the upstream kubelet "
                       "configuration with the same names.")
          .field<&K::clusterDNS>("clusterDNS", "IP addresses of the cluster DNS servers, in order.")
          .field<&K::maxPods>("maxPods", "Overrides the maximum number of pods on a node.")
          .min(0)
          .field<&K::podsPerCore>("podsPerCore",
                                  "Maximum pods per CPU core; never more than maxPods.")
          .min(0)
          .field<&K::systemReserved>("systemReserved",
                                     "Resources reserved for OS daemons: cpu, memory, "
                                     "ephemeral-storage, pid.")
          .field<&K::kubeReserved>("kubeReserved",
                                   "Resources reserved for Kubernetes daemons: cpu, memory, "
                                   "ephemeral-storage, pid.")
          .field<&K::evictionHard>("evictionHard",
                                   "Hard eviction thresholds by signal, as quantities or "
                                   "percentages.")
          .field<&K::evictionSoft>("evictionSoft",
                                   "Soft eviction thresholds by signal; each needs a grace period.")
          .field<&K::evictionSoftGracePeriod>(
              "evictionSoftGracePeriod", "Grace period per soft eviction signal before evicting.")
          .field<&K::evictionMaxPodGracePeriod>(
              "evictionMaxPodGracePeriod",
              "Maximum pod termination grace period, in seconds, for soft evictions.")
          .field<&K::imageGCHighThresholdPercent>(
              "imageGCHighThresholdPercent",
              "Disk usage percent above which image garbage collection always runs.")
          .min(0)
          .max(100)
          .field<&K::imageGCLowThresholdPercent>(
              "imageGCLowThresholdPercent",
              "Disk usage percent below which image garbage collection never runs.")
          .min(0)
          .max(100)
          .field<&K::cpuCFSQuota>("cpuCFSQuota",
                                  "Enforces CPU CFS quota for containers with CPU limits.")
          .validate(validateKubelet)
          .build();
  return s;
}

}  // namespace nodewright::api::karpenter
