#include "api/core/apps.h"

#include "api/codec.h"
#include "api/core/validation.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

// A workload owns the pods its selector matches, so the selector must be non-empty and must
// match the pods it creates.
void validateSelectorAndTemplate(const std::optional<LabelSelector>& selector,
                                 const PodTemplateSpec& tmpl, std::string_view kind,
                                 const FieldPath& spec, FieldErrors& errors) {
  if (!selector) {
    return;  // reported as Required
  }
  if (selector->empty()) {
    errors.push_back({spec.child("selector").str(),
                      fielderr::invalid(toJson(*selector),
                                        "empty selector is invalid for " + std::string(kind))});
    return;
  }
  if (!matches(*selector, tmpl.metadata.labels)) {
    errors.push_back({spec.child("template").child("metadata").child("labels").str(),
                      fielderr::invalid(toJson(tmpl.metadata.labels),
                                        "`selector` does not match template `labels`")});
  }
}

// Deployments and DaemonSets phrase the same rules slightly differently upstream; DaemonSets
// also cap maxSurge at 100% and allow only one of the two to be non-zero.
template <class T>
void validateRollingUpdate(const T& r, const FieldPath& path, bool daemonSet, FieldErrors& errors) {
  if (r.maxUnavailable) {
    validateIntOrPercent(*r.maxUnavailable, path.child("maxUnavailable"), errors);
  }
  if (r.maxSurge) {
    validateIntOrPercent(*r.maxSurge, path.child("maxSurge"), errors, daemonSet);
  }
  // Absent values are defaulted later; only a rollout that explicitly can make no progress
  // is refused here.
  if (r.maxUnavailable && r.maxSurge && isZero(r.maxUnavailable) && isZero(r.maxSurge)) {
    errors.push_back({path.child("maxUnavailable").str(),
                      fielderr::invalid(intOrStringJson(*r.maxUnavailable),
                                        daemonSet ? "cannot be 0 when maxSurge is 0"
                                                  : "may not be 0 when `maxSurge` is 0")});
  }
  if (daemonSet && !isZero(r.maxUnavailable) && !isZero(r.maxSurge)) {
    errors.push_back({path.child("maxSurge").str(),
                      fielderr::invalid(intOrStringJson(*r.maxSurge),
                                        "may not be set when maxUnavailable is non-zero")});
  }
}

void defaultDeployment(DeploymentSpec& spec) {
  if (!spec.replicas) {
    spec.replicas = 1;
  }
  DeploymentStrategy& st = spec.strategy;
  if (st.type.empty()) {
    st.type = "RollingUpdate";
  }
  if (st.type == "RollingUpdate") {
    if (!st.rollingUpdate) {
      st.rollingUpdate.emplace();
    }
    if (!st.rollingUpdate->maxUnavailable) {
      st.rollingUpdate->maxUnavailable = IntOrString::ofString("25%");
    }
    if (!st.rollingUpdate->maxSurge) {
      st.rollingUpdate->maxSurge = IntOrString::ofString("25%");
    }
  }
  if (!spec.revisionHistoryLimit) {
    spec.revisionHistoryLimit = 10;
  }
  if (!spec.progressDeadlineSeconds) {
    spec.progressDeadlineSeconds = 600;
  }
}

void defaultDaemonSet(DaemonSetSpec& spec) {
  DaemonSetUpdateStrategy& st = spec.updateStrategy;
  if (st.type.empty()) {
    st.type = "RollingUpdate";
  }
  if (st.type == "RollingUpdate") {
    if (!st.rollingUpdate) {
      st.rollingUpdate.emplace();
    }
    if (!st.rollingUpdate->maxUnavailable) {
      st.rollingUpdate->maxUnavailable = IntOrString::ofInt(1);
    }
    if (!st.rollingUpdate->maxSurge) {
      st.rollingUpdate->maxSurge = IntOrString::ofInt(0);
    }
  }
  if (!spec.revisionHistoryLimit) {
    spec.revisionHistoryLimit = 10;
  }
}

template <class T>
StructBuilder<T>& statusConditions(StructBuilder<T>& b) {
  return b.template field<&T::conditions>("conditions", "Latest observations of the state.")
      .mapList({"type"});
}

}  // namespace

const StructSchema& describe(Tag<WorkloadCondition>) {
  static const StructSchema s =
      StructBuilder<WorkloadCondition>("WorkloadCondition",
                                       "One aspect of a workload's current state.")
          .field<&WorkloadCondition::type>("type", "Condition type, e.g. Available.")
          .required()
          .field<&WorkloadCondition::status>("status", "True, False or Unknown.")
          .required()
          .enums({"True", "False", "Unknown"})
          .field<&WorkloadCondition::lastUpdateTime>("lastUpdateTime",
                                                     "Last time the condition was updated.")
          .field<&WorkloadCondition::lastTransitionTime>("lastTransitionTime",
                                                         "Last time the status changed.")
          .field<&WorkloadCondition::reason>("reason", "Reason for the last transition.")
          .field<&WorkloadCondition::message>("message", "Human-readable details.")
          .keepUnknownIn<&WorkloadCondition::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<RollingUpdateDeployment>) {
  static const StructSchema s =
      StructBuilder<RollingUpdateDeployment>("RollingUpdateDeployment",
                                             "How fast a Deployment replaces its pods.")
          .field<&RollingUpdateDeployment::maxUnavailable>(
              "maxUnavailable", "Pods that may be unavailable during the update (number or %).")
          .field<&RollingUpdateDeployment::maxSurge>(
              "maxSurge", "Pods that may be created above the desired count (number or %).")
          .keepUnknownIn<&RollingUpdateDeployment::unknown>()
          .validate([](const RollingUpdateDeployment& r, const FieldPath& path,
                       FieldErrors& errors) { validateRollingUpdate(r, path, false, errors); })
          .build();
  return s;
}

const StructSchema& describe(Tag<DeploymentStrategy>) {
  static const StructSchema s =
      StructBuilder<DeploymentStrategy>("DeploymentStrategy",
                                        "How a Deployment replaces old pods with new ones.")
          .field<&DeploymentStrategy::type>("type", "Recreate or RollingUpdate (the default).")
          .field<&DeploymentStrategy::rollingUpdate>("rollingUpdate", "Rolling update parameters.")
          .keepUnknownIn<&DeploymentStrategy::unknown>()
          .validate([](const DeploymentStrategy& st, const FieldPath& path, FieldErrors& errors) {
            checkOptionalEnum(st.type, {"Recreate", "RollingUpdate"}, path.child("type"), errors);
            if (st.type == "Recreate" && st.rollingUpdate) {
              errors.push_back(
                  {path.child("rollingUpdate").str(),
                   fielderr::forbidden("may not be specified when strategy `type` is 'Recreate'")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<DeploymentSpec>) {
  static const StructSchema s =
      StructBuilder<DeploymentSpec>("DeploymentSpec", "The desired state of a Deployment.")
          .field<&DeploymentSpec::replicas>("replicas", "Desired number of pods (default 1).")
          .min(0)
          .field<&DeploymentSpec::selector>("selector",
                                            "Selects the pods; must match the template's labels.")
          .required()
          .field<&DeploymentSpec::template_>("template", "The pods to create.")
          .field<&DeploymentSpec::strategy>("strategy", "How old pods are replaced.")
          .field<&DeploymentSpec::minReadySeconds>(
              "minReadySeconds", "Seconds a new pod must be ready to count as available.")
          .min(0)
          .field<&DeploymentSpec::revisionHistoryLimit>("revisionHistoryLimit",
                                                        "Old ReplicaSets kept for rollback.")
          .min(0)
          .field<&DeploymentSpec::paused>("paused", "Whether the rollout is paused.")
          .field<&DeploymentSpec::progressDeadlineSeconds>(
              "progressDeadlineSeconds", "Seconds before a stalled rollout is reported failed.")
          .validate([](const DeploymentSpec& spec, const FieldPath& path, FieldErrors& errors) {
            validateSelectorAndTemplate(spec.selector, spec.template_, "deployment", path, errors);
            if (spec.progressDeadlineSeconds &&
                *spec.progressDeadlineSeconds <= spec.minReadySeconds) {
              errors.push_back({path.child("progressDeadlineSeconds").str(),
                                fielderr::invalid(Json(*spec.progressDeadlineSeconds),
                                                  "must be greater than minReadySeconds")});
            }
          })
          .defaults(defaultDeployment)
          .build();
  return s;
}

const StructSchema& describe(Tag<DeploymentStatus>) {
  static const StructSchema s = [] {
    StructBuilder<DeploymentStatus> b("DeploymentStatus", "The observed state of a Deployment.");
    b.field<&DeploymentStatus::observedGeneration>("observedGeneration",
                                                   "The generation the controller last saw.")
        .field<&DeploymentStatus::replicas>("replicas", "Pods targeted by the Deployment.")
        .field<&DeploymentStatus::updatedReplicas>("updatedReplicas",
                                                   "Pods with the current template.")
        .field<&DeploymentStatus::readyReplicas>("readyReplicas", "Pods that are ready.")
        .field<&DeploymentStatus::availableReplicas>("availableReplicas",
                                                     "Pods ready for at least minReadySeconds.")
        .field<&DeploymentStatus::unavailableReplicas>("unavailableReplicas",
                                                       "Pods still needed for full capacity.");
    statusConditions(b);
    return b
        .field<&DeploymentStatus::collisionCount>("collisionCount",
                                                  "Counts template hash collisions.")
        .keepUnknownIn<&DeploymentStatus::unknown>()
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<Deployment>) {
  static const StructSchema s = [] {
    StructBuilder<Deployment> b("Deployment", "Declarative updates for a set of identical pods.");
    withTypeMeta(b);
    return b.field<&Deployment::spec>("spec", "The desired state.")
        .field<&Deployment::status>("status", "The observed state.")
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<ReplicaSetSpec>) {
  static const StructSchema s =
      StructBuilder<ReplicaSetSpec>("ReplicaSetSpec", "The desired state of a ReplicaSet.")
          .field<&ReplicaSetSpec::replicas>("replicas", "Desired number of pods (default 1).")
          .min(0)
          .defaultsTo(1)
          .field<&ReplicaSetSpec::minReadySeconds>(
              "minReadySeconds", "Seconds a new pod must be ready to count as available.")
          .min(0)
          .field<&ReplicaSetSpec::selector>("selector",
                                            "Selects the pods; must match the template's labels.")
          .required()
          .field<&ReplicaSetSpec::template_>("template", "The pods to create.")
          .validate([](const ReplicaSetSpec& spec, const FieldPath& path, FieldErrors& errors) {
            validateSelectorAndTemplate(spec.selector, spec.template_, "replicaset", path, errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<ReplicaSetStatus>) {
  static const StructSchema s = [] {
    StructBuilder<ReplicaSetStatus> b("ReplicaSetStatus", "The observed state of a ReplicaSet.");
    b.field<&ReplicaSetStatus::replicas>("replicas", "Most recently observed number of pods.")
        .field<&ReplicaSetStatus::fullyLabeledReplicas>(
            "fullyLabeledReplicas", "Pods whose labels match the template's labels.")
        .field<&ReplicaSetStatus::readyReplicas>("readyReplicas", "Pods that are ready.")
        .field<&ReplicaSetStatus::availableReplicas>("availableReplicas",
                                                     "Pods ready for at least minReadySeconds.")
        .field<&ReplicaSetStatus::observedGeneration>("observedGeneration",
                                                      "The generation the controller last saw.");
    statusConditions(b);
    return b.keepUnknownIn<&ReplicaSetStatus::unknown>().build();
  }();
  return s;
}

const StructSchema& describe(Tag<ReplicaSet>) {
  static const StructSchema s = [] {
    StructBuilder<ReplicaSet> b("ReplicaSet", "Keeps a number of identical pods running.");
    withTypeMeta(b);
    return b.field<&ReplicaSet::spec>("spec", "The desired state.")
        .field<&ReplicaSet::status>("status", "The observed state.")
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<RollingUpdateDaemonSet>) {
  static const StructSchema s =
      StructBuilder<RollingUpdateDaemonSet>("RollingUpdateDaemonSet",
                                            "How fast a DaemonSet replaces its pods.")
          .field<&RollingUpdateDaemonSet::maxUnavailable>(
              "maxUnavailable", "Nodes whose pod may be unavailable during the update.")
          .field<&RollingUpdateDaemonSet::maxSurge>(
              "maxSurge", "Nodes that may run an old and a new pod at once.")
          .keepUnknownIn<&RollingUpdateDaemonSet::unknown>()
          .validate([](const RollingUpdateDaemonSet& r, const FieldPath& path,
                       FieldErrors& errors) { validateRollingUpdate(r, path, true, errors); })
          .build();
  return s;
}

const StructSchema& describe(Tag<DaemonSetUpdateStrategy>) {
  static const StructSchema s =
      StructBuilder<DaemonSetUpdateStrategy>("DaemonSetUpdateStrategy",
                                             "How a DaemonSet replaces old pods.")
          .field<&DaemonSetUpdateStrategy::type>("type", "RollingUpdate (the default) or OnDelete.")
          .field<&DaemonSetUpdateStrategy::rollingUpdate>("rollingUpdate",
                                                          "Rolling update parameters.")
          .keepUnknownIn<&DaemonSetUpdateStrategy::unknown>()
          .validate([](const DaemonSetUpdateStrategy& st, const FieldPath& path,
                       FieldErrors& errors) {
            checkOptionalEnum(st.type, {"RollingUpdate", "OnDelete"}, path.child("type"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<DaemonSetSpec>) {
  static const StructSchema s =
      StructBuilder<DaemonSetSpec>("DaemonSetSpec", "The desired state of a DaemonSet.")
          .field<&DaemonSetSpec::selector>("selector",
                                           "Selects the pods; must match the template's labels.")
          .required()
          .field<&DaemonSetSpec::template_>("template", "The pod to run on every eligible node.")
          .field<&DaemonSetSpec::updateStrategy>("updateStrategy", "How old pods are replaced.")
          .field<&DaemonSetSpec::minReadySeconds>(
              "minReadySeconds", "Seconds a new pod must be ready to count as available.")
          .min(0)
          .field<&DaemonSetSpec::revisionHistoryLimit>("revisionHistoryLimit",
                                                       "Old revisions kept for rollback.")
          .min(0)
          .validate([](const DaemonSetSpec& spec, const FieldPath& path, FieldErrors& errors) {
            validateSelectorAndTemplate(spec.selector, spec.template_, "daemonset", path, errors);
          })
          .defaults(defaultDaemonSet)
          .build();
  return s;
}

const StructSchema& describe(Tag<DaemonSetStatus>) {
  static const StructSchema s = [] {
    StructBuilder<DaemonSetStatus> b("DaemonSetStatus", "The observed state of a DaemonSet.");
    b.field<&DaemonSetStatus::currentNumberScheduled>(
         "currentNumberScheduled", "Nodes running at least one daemon pod that should.")
        .field<&DaemonSetStatus::numberMisscheduled>("numberMisscheduled",
                                                     "Nodes running a daemon pod that should not.")
        .field<&DaemonSetStatus::desiredNumberScheduled>("desiredNumberScheduled",
                                                         "Nodes that should run the daemon pod.")
        .field<&DaemonSetStatus::numberReady>("numberReady", "Nodes whose daemon pod is ready.")
        .field<&DaemonSetStatus::observedGeneration>("observedGeneration",
                                                     "The generation the controller last saw.")
        .field<&DaemonSetStatus::updatedNumberScheduled>("updatedNumberScheduled",
                                                         "Nodes running the updated daemon pod.")
        .field<&DaemonSetStatus::numberAvailable>("numberAvailable",
                                                  "Nodes whose daemon pod is available.")
        .field<&DaemonSetStatus::numberUnavailable>(
            "numberUnavailable", "Nodes that should run an available daemon pod but do not.")
        .field<&DaemonSetStatus::collisionCount>("collisionCount",
                                                 "Counts template hash collisions.");
    statusConditions(b);
    return b.keepUnknownIn<&DaemonSetStatus::unknown>().build();
  }();
  return s;
}

const StructSchema& describe(Tag<DaemonSet>) {
  static const StructSchema s = [] {
    StructBuilder<DaemonSet> b("DaemonSet", "Runs a copy of a pod on every eligible node.");
    withTypeMeta(b);
    return b.field<&DaemonSet::spec>("spec", "The desired state.")
        .field<&DaemonSet::status>("status", "The observed state.")
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::corev1
