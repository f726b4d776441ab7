#include "api/capi/machine_deployment.h"

#include "api/codec.h"

namespace nodewright::api::capi {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<MachineRollingUpdateDeployment>) {
  static const StructSchema s =
      StructBuilder<MachineRollingUpdateDeployment>("MachineRollingUpdateDeployment",
                                                    "Bounds of a rolling update of machines.")
          .field<&MachineRollingUpdateDeployment::maxUnavailable>(
              "maxUnavailable",
              "Machines (number or percentage, rounded down) that may be unavailable during "
              "the update; not 0 when maxSurge is 0.")
          .field<&MachineRollingUpdateDeployment::maxSurge>(
              "maxSurge",
              "Machines (number or percentage, rounded up) that may exist above the desired "
              "count during the update; not 0 when maxUnavailable is 0.")
          .field<&MachineRollingUpdateDeployment::deletePolicy>(
              "deletePolicy",
              "Which machines go first when scaling down: Random, Newest or Oldest.")
          .enums({"Random", "Newest", "Oldest"})
          .validate([](const MachineRollingUpdateDeployment& r, const FieldPath& path,
                       FieldErrors& errors) {
            if (r.maxSurge) {
              validateIntOrPercent(*r.maxSurge, path.child("maxSurge"), false, errors);
            }
            if (r.maxUnavailable) {
              validateIntOrPercent(*r.maxUnavailable, path.child("maxUnavailable"), true, errors);
            }
            // With neither surge nor unavailability allowed a rollout could never progress.
            if (r.maxSurge && r.maxUnavailable && isZeroIntOrPercent(*r.maxSurge) &&
                isZeroIntOrPercent(*r.maxUnavailable)) {
              errors.push_back({path.child("maxUnavailable").str(),
                                fielderr::invalid(toJson(*r.maxUnavailable),
                                                  "may not be 0 when `maxSurge` is 0")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<RemediationStrategy>) {
  static const StructSchema s =
      StructBuilder<RemediationStrategy>("RemediationStrategy",
                                         "How unhealthy machines are remediated.")
          .field<&RemediationStrategy::maxInFlight>(
              "maxInFlight", "Machines (number or percentage) remediated at the same time.")
          .validate([](const RemediationStrategy& r, const FieldPath& path, FieldErrors& errors) {
            if (r.maxInFlight) {
              validateIntOrPercent(*r.maxInFlight, path.child("maxInFlight"), false, errors);
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineDeploymentStrategy>) {
  static const StructSchema s =
      StructBuilder<MachineDeploymentStrategy>("MachineDeploymentStrategy",
                                               "How old machines are replaced by new ones.")
          .field<&MachineDeploymentStrategy::type>(
              "type", "RollingUpdate replaces machines gradually; OnDelete waits for deletions.")
          .enums({"RollingUpdate", "OnDelete"})
          .defaultsTo("RollingUpdate")
          .field<&MachineDeploymentStrategy::rollingUpdate>("rollingUpdate",
                                                            "Bounds of a RollingUpdate.")
          .field<&MachineDeploymentStrategy::remediation>(
              "remediation", "How unhealthy machines of the deployment are remediated.")
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineDeploymentSpec>) {
  static const StructSchema s =
      StructBuilder<MachineDeploymentSpec>("MachineDeploymentSpec",
                                           "Desired state of a MachineDeployment.")
          .field<&MachineDeploymentSpec::clusterName>(
              "clusterName", "Name of the Cluster the MachineDeployment is part of.")
          .required()
          .field<&MachineDeploymentSpec::replicas>(
              "replicas", "Desired number of machines; defaults to 1 or the autoscaler's minimum.")
          .behavioral()
          .min(0)
          .field<&MachineDeploymentSpec::rolloutAfter>(
              "rolloutAfter", "Replace every machine created before this time.")
          .field<&MachineDeploymentSpec::selector>(
              "selector", "Label query over the machines this deployment manages.")
          .field<&MachineDeploymentSpec::template_>("template", "The machines to create.")
          .required()
          .field<&MachineDeploymentSpec::machineNamingStrategy>(
              "machineNamingStrategy", "How the names of created Machines are generated.")
          .field<&MachineDeploymentSpec::strategy>("strategy",
                                                   "How old machines are replaced by new ones.")
          .behavioral()
          .field<&MachineDeploymentSpec::minReadySeconds>(
              "minReadySeconds", "Seconds a new machine must be ready to count available.")
          .behavioral()
          .min(0)
          .field<&MachineDeploymentSpec::revisionHistoryLimit>(
              "revisionHistoryLimit", "Old MachineSets kept for rollback; defaults to 1.")
          .behavioral()
          .min(0)
          .field<&MachineDeploymentSpec::paused>("paused", "Stops rollouts while true.")
          .behavioral()
          .field<&MachineDeploymentSpec::progressDeadlineSeconds>(
              "progressDeadlineSeconds",
              "Seconds a rollout may go without progress before it is reported failed.")
          .behavioral()
          .min(0)
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineDeploymentStatus>) {
  static const StructSchema s =
      StructBuilder<MachineDeploymentStatus>("MachineDeploymentStatus",
                                             "Observed state of a MachineDeployment.")
          .field<&MachineDeploymentStatus::observedGeneration>(
              "observedGeneration", "The metadata.generation the controller last acted on.")
          .field<&MachineDeploymentStatus::selector>(
              "selector", "The selector in query-parameter form, for the scale subresource.")
          .field<&MachineDeploymentStatus::replicas>("replicas",
                                                     "Non-terminated machines of the deployment.")
          .field<&MachineDeploymentStatus::updatedReplicas>(
              "updatedReplicas", "Machines that already have the desired template.")
          .field<&MachineDeploymentStatus::readyReplicas>("readyReplicas",
                                                          "Machines whose node is Ready.")
          .field<&MachineDeploymentStatus::availableReplicas>(
              "availableReplicas", "Machines ready for at least minReadySeconds.")
          .field<&MachineDeploymentStatus::unavailableReplicas>(
              "unavailableReplicas", "Machines still needed for full availability.")
          .field<&MachineDeploymentStatus::phase>(
              "phase", "ScalingUp, ScalingDown, Running, Failed or Unknown.")
          .field<&MachineDeploymentStatus::conditions>("conditions",
                                                       "Current state of the MachineDeployment.")
          .field<&MachineDeploymentStatus::v1beta2>(
              "v1beta2", "Status fields previewing the v1beta2 API, kept verbatim.")
          .validate([](const MachineDeploymentStatus& status, const FieldPath& path,
                       FieldErrors& errors) {
            validateCapiConditions(status.conditions, path.child("conditions"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineDeployment>) {
  static const StructSchema s = [] {
    StructBuilder<MachineDeployment> b("MachineDeployment",
                                       "Declarative rollouts of Machines through MachineSets.");
    withTypeMeta(b);
    return b.field<&MachineDeployment::spec>("spec", "Desired state of the MachineDeployment.")
        .field<&MachineDeployment::status>("status", "Observed state of the MachineDeployment.")
        .defaults([](MachineDeployment& md) {
          MachineDeploymentSpec& spec = md.spec;
          if (!spec.clusterName.empty()) {
            md.metadata.labels[kClusterNameLabel] = spec.clusterName;
          }
          if (!spec.replicas) {
            spec.replicas = defaultReplicas(md.metadata);
          }
          spec.minReadySeconds = spec.minReadySeconds.value_or(0);
          spec.revisionHistoryLimit = spec.revisionHistoryLimit.value_or(1);
          spec.progressDeadlineSeconds = spec.progressDeadlineSeconds.value_or(600);
          if (!spec.strategy) {
            spec.strategy = MachineDeploymentStrategy{"RollingUpdate", {}, {}};
          }
          if (spec.strategy->type == "RollingUpdate") {
            auto& rollingUpdate = spec.strategy->rollingUpdate;
            if (!rollingUpdate) {
              rollingUpdate.emplace();
            }
            if (!rollingUpdate->maxSurge) {
              rollingUpdate->maxSurge = IntOrString::ofInt(1);
            }
            if (!rollingUpdate->maxUnavailable) {
              rollingUpdate->maxUnavailable = IntOrString::ofInt(0);
            }
          }
          defaultSelector(spec.selector, spec.template_.metadata, kMachineDeploymentNameLabel,
                          md.metadata.name, spec.clusterName);
        })
        .validate([](const MachineDeployment& md, const FieldPath& path, FieldErrors& errors) {
          for (const std::string& problem : labelValueErrors(md.metadata.name)) {
            errors.push_back({path.child("metadata").child("name").str(),
                              fielderr::invalid(Json(md.metadata.name),
                                                "must be a valid label value: " + problem)});
          }
          validateSelectorMatchesTemplate(md.spec.selector, md.spec.template_.metadata,
                                          path.child("spec"), errors);
        })
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::capi
