#include "api/capi/machine_pool.h"

namespace nodewright::api::capi {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<MachinePoolSpec>) {
  static const StructSchema s =
      StructBuilder<MachinePoolSpec>("MachinePoolSpec", "Desired state of a MachinePool.")
          .field<&MachinePoolSpec::clusterName>("clusterName",
                                                "Name of the Cluster the pool is part of.")
          .required()
          .field<&MachinePoolSpec::replicas>(
              "replicas", "Desired number of machines; defaults to 1 or the autoscaler's minimum.")
          .behavioral()
          .min(0)
          .field<&MachinePoolSpec::template_>("template", "The machines of the pool.")
          .required()
          .field<&MachinePoolSpec::minReadySeconds>(
              "minReadySeconds", "Seconds a new instance must be ready to count available.")
          .behavioral()
          .min(0)
          .field<&MachinePoolSpec::providerIDList>(
              "providerIDList", "Provider IDs of the pool's instances, written by the provider.")
          .behavioral()
          .field<&MachinePoolSpec::failureDomains>(
              "failureDomains", "Failure domains (availability zones) the pool may use.")
          .setList()
          .build();
  return s;
}

const StructSchema& describe(Tag<MachinePoolStatus>) {
  static const StructSchema s =
      StructBuilder<MachinePoolStatus>("MachinePoolStatus", "Observed state of a MachinePool.")
          .field<&MachinePoolStatus::nodeRefs>("nodeRefs", "The Nodes the pool's instances became.")
          .field<&MachinePoolStatus::replicas>("replicas", "Most recently observed replica count.")
          .field<&MachinePoolStatus::readyReplicas>("readyReplicas",
                                                    "Instances whose node is Ready.")
          .field<&MachinePoolStatus::availableReplicas>(
              "availableReplicas", "Instances ready for at least minReadySeconds.")
          .field<&MachinePoolStatus::unavailableReplicas>(
              "unavailableReplicas", "Instances still needed for full availability.")
          .field<&MachinePoolStatus::failureReason>(
              "failureReason", "Machine-readable reason for a terminal reconcile failure.")
          .field<&MachinePoolStatus::failureMessage>(
              "failureMessage", "Human-readable description of a terminal reconcile failure.")
          .field<&MachinePoolStatus::phase>(
              "phase",
              "Pending, Provisioning, Provisioned, Running, ScalingUp, ScalingDown, "
              "Scaling, Deleting, Failed or Unknown.")
          .field<&MachinePoolStatus::bootstrapReady>("bootstrapReady",
                                                     "Whether the bootstrap data is available.")
          .field<&MachinePoolStatus::infrastructureReady>(
              "infrastructureReady", "Whether the infrastructure provider reports the pool ready.")
          .field<&MachinePoolStatus::observedGeneration>(
              "observedGeneration", "The metadata.generation the controller last acted on.")
          .field<&MachinePoolStatus::conditions>("conditions", "Current state of the pool.")
          .field<&MachinePoolStatus::v1beta2>(
              "v1beta2", "Status fields previewing the v1beta2 API, kept verbatim.")
          .validate(
              [](const MachinePoolStatus& status, const FieldPath& path, FieldErrors& errors) {
                validateCapiConditions(status.conditions, path.child("conditions"), errors);
              })
          .build();
  return s;
}

const StructSchema& describe(Tag<MachinePool>) {
  static const StructSchema s = [] {
    StructBuilder<MachinePool> b("MachinePool",
                                 "A group of machines the infrastructure provider scales as one.");
    withTypeMeta(b);
    return b.field<&MachinePool::spec>("spec", "Desired state of the pool.")
        .field<&MachinePool::status>("status", "Observed state of the pool.")
        .defaults([](MachinePool& mp) {
          if (!mp.spec.clusterName.empty()) {
            mp.metadata.labels[kClusterNameLabel] = mp.spec.clusterName;
          }
          if (!mp.spec.replicas) {
            mp.spec.replicas = defaultReplicas(mp.metadata);
          }
          mp.spec.minReadySeconds = mp.spec.minReadySeconds.value_or(0);
          auto& configRef = mp.spec.template_.spec.bootstrap.configRef;
          if (configRef && !configRef->name.empty() && configRef->namespace_.empty()) {
            configRef->namespace_ = mp.metadata.namespace_;
          }
        })
        .validate([](const MachinePool& mp, const FieldPath& path, FieldErrors& errors) {
          FieldPath bootstrap =
              path.child("spec").child("template").child("spec").child("bootstrap");
          const Bootstrap& b = mp.spec.template_.spec.bootstrap;
          if (!b.configRef && !b.dataSecretName) {
            errors.push_back({bootstrap.child("data").str(),
                              fielderr::required() +
                                  ": expected either spec.template.spec.bootstrap.dataSecretName "
                                  "or spec.template.spec.bootstrap.configRef to be populated"});
          }
          const std::string& ns = mp.metadata.namespace_;
          if (!ns.empty() && b.configRef && b.configRef->namespace_ != ns) {
            errors.push_back({bootstrap.child("configRef").child("namespace").str(),
                              fielderr::invalid(Json(b.configRef->namespace_),
                                                "must match metadata.namespace")});
          }
        })
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::capi
