#include "api/capi/machine.h"

namespace nodewright::api::capi {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<Bootstrap>) {
  static const StructSchema s =
      StructBuilder<Bootstrap>("Bootstrap", "Where the machine's bootstrap data comes from.")
          .field<&Bootstrap::configRef>(
              "configRef",
              "Bootstrap provider object (e.g. a KubeadmConfig) that renders the data.")
          .field<&Bootstrap::dataSecretName>(
              "dataSecretName", "Secret holding ready bootstrap data; the machine waits until set.")
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineReadinessGate>) {
  static const StructSchema s =
      StructBuilder<MachineReadinessGate>(
          "MachineReadinessGate",
          "A Machine condition that must be True for the machine to be ready.")
          .field<&MachineReadinessGate::conditionType>("conditionType",
                                                       "Type of the Machine condition to wait for.")
          .required()
          .maxLength(316)
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineSpec>) {
  static const StructSchema s =
      StructBuilder<MachineSpec>("MachineSpec", "Desired state of a Cluster API machine.")
          .field<&MachineSpec::clusterName>("clusterName",
                                            "Name of the Cluster the machine is part of.")
          .required()
          .field<&MachineSpec::bootstrap>("bootstrap",
                                          "How the machine gets its bootstrap (cloud-init) data.")
          .field<&MachineSpec::infrastructureRef>(
              "infrastructureRef",
              "Provider object (e.g. an AzureMachine) that holds the machine's infrastructure.")
          .required()
          .field<&MachineSpec::version>("version",
                                        "Kubernetes version the machine runs, such as v1.30.2.")
          .field<&MachineSpec::providerID>(
              "providerID", "Cloud provider ID of the machine; matches the Node's spec.providerID.")
          .field<&MachineSpec::failureDomain>(
              "failureDomain", "Failure domain (availability zone) to place the machine in.")
          .field<&MachineSpec::readinessGates>(
              "readinessGates", "Extra conditions that must be True before the machine is ready.")
          .mapList({"conditionType"})
          .maxItems(32)
          .field<&MachineSpec::nodeDrainTimeout>(
              "nodeDrainTimeout", "Longest time to spend draining the node; unset means no limit.")
          .field<&MachineSpec::nodeVolumeDetachTimeout>(
              "nodeVolumeDetachTimeout",
              "Longest time to wait for volumes to detach; unset means no limit.")
          .field<&MachineSpec::nodeDeletionTimeout>(
              "nodeDeletionTimeout",
              "How long to keep trying to delete the Node once the machine is deleted.")
          .validate([](const MachineSpec& spec, const FieldPath& path, FieldErrors& errors) {
            validateVersion(spec.version, path.child("version"), errors);
          })
          .defaults([](MachineSpec& spec) { normalizeVersion(spec.version); })
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineTemplateSpec>) {
  static const StructSchema s =
      StructBuilder<MachineTemplateSpec>("MachineTemplateSpec",
                                         "Template of the Machines a controller creates.")
          .field<&MachineTemplateSpec::metadata>("metadata",
                                                 "Labels and annotations of created Machines.")
          .field<&MachineTemplateSpec::spec>("spec", "Spec of created Machines.")
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineDeletionStatus>) {
  static const StructSchema s =
      StructBuilder<MachineDeletionStatus>("MachineDeletionStatus",
                                           "How far the deletion of the machine has come.")
          .field<&MachineDeletionStatus::nodeDrainStartTime>("nodeDrainStartTime",
                                                             "When draining the node started.")
          .field<&MachineDeletionStatus::waitForNodeVolumeDetachStartTime>(
              "waitForNodeVolumeDetachStartTime", "When waiting for volume detachment started.")
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineStatus>) {
  static const StructSchema s =
      StructBuilder<MachineStatus>("MachineStatus", "Observed state of a Cluster API machine.")
          .field<&MachineStatus::nodeRef>("nodeRef",
                                          "The Node this machine became, once it exists.")
          .field<&MachineStatus::nodeInfo>("nodeInfo",
                                           "System information of the node, copied verbatim.")
          .field<&MachineStatus::lastUpdated>("lastUpdated", "When the phase last changed.")
          .field<&MachineStatus::failureReason>(
              "failureReason", "Machine-readable reason for a terminal reconcile failure.")
          .field<&MachineStatus::failureMessage>(
              "failureMessage", "Human-readable description of a terminal reconcile failure.")
          .field<&MachineStatus::addresses>("addresses",
                                            "Addresses copied from the infrastructure machine.")
          .field<&MachineStatus::phase>(
              "phase",
              "Lifecycle phase: Pending, Provisioning, Provisioned, Running, Deleting, "
              "Deleted, Failed or Unknown.")
          .field<&MachineStatus::certificatesExpiryDate>(
              "certificatesExpiryDate", "When the machine's control plane certificates expire.")
          .field<&MachineStatus::bootstrapReady>("bootstrapReady",
                                                 "Whether the bootstrap data is available.")
          .field<&MachineStatus::infrastructureReady>(
              "infrastructureReady", "Whether the infrastructure provider reports the VM ready.")
          .field<&MachineStatus::observedGeneration>(
              "observedGeneration", "The metadata.generation the controller last acted on.")
          .field<&MachineStatus::conditions>("conditions", "Current state of the machine.")
          .field<&MachineStatus::deletion>("deletion", "Progress of the machine's deletion.")
          .field<&MachineStatus::v1beta2>(
              "v1beta2", "Status fields previewing the v1beta2 API, kept verbatim.")
          .validate([](const MachineStatus& status, const FieldPath& path, FieldErrors& errors) {
            validateCapiConditions(status.conditions, path.child("conditions"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<Machine>) {
  static const StructSchema s = [] {
    StructBuilder<Machine> b(
        "Machine", "A Cluster API machine: one node's infrastructure and bootstrap data.");
    withTypeMeta(b);
    return b.field<&Machine::spec>("spec", "Desired state of the machine.")
        .field<&Machine::status>("status", "Observed state of the machine.")
        .defaults([](Machine& m) {
          if (!m.spec.clusterName.empty()) {
            m.metadata.labels[kClusterNameLabel] = m.spec.clusterName;
          }
          // References without a namespace point into the machine's own namespace.
          if (m.spec.bootstrap.configRef && !m.spec.bootstrap.configRef->name.empty() &&
              m.spec.bootstrap.configRef->namespace_.empty()) {
            m.spec.bootstrap.configRef->namespace_ = m.metadata.namespace_;
          }
          if (!m.spec.infrastructureRef.name.empty() &&
              m.spec.infrastructureRef.namespace_.empty()) {
            m.spec.infrastructureRef.namespace_ = m.metadata.namespace_;
          }
          if (!m.spec.nodeDeletionTimeout) {
            m.spec.nodeDeletionTimeout = core::Duration(std::chrono::seconds(10));
          }
        })
        .validate([](const Machine& m, const FieldPath& path, FieldErrors& errors) {
          FieldPath spec = path.child("spec");
          if (!m.spec.bootstrap.configRef && !m.spec.bootstrap.dataSecretName) {
            errors.push_back({spec.child("bootstrap").child("data").str(),
                              fielderr::required() +
                                  ": expected either spec.bootstrap.dataSecretName or "
                                  "spec.bootstrap.configRef to be populated"});
          }
          // A manifest without a namespace is applied into one later; only a mismatch that is
          // already visible is an error.
          const std::string& ns = m.metadata.namespace_;
          if (!ns.empty() && m.spec.bootstrap.configRef &&
              m.spec.bootstrap.configRef->namespace_ != ns) {
            errors.push_back({spec.child("bootstrap").child("configRef").child("namespace").str(),
                              fielderr::invalid(Json(m.spec.bootstrap.configRef->namespace_),
                                                "must match metadata.namespace")});
          }
          if (!ns.empty() && !m.spec.infrastructureRef.name.empty() &&
              m.spec.infrastructureRef.namespace_ != ns) {
            errors.push_back({spec.child("infrastructureRef").child("namespace").str(),
                              fielderr::invalid(Json(m.spec.infrastructureRef.namespace_),
                                                "must match metadata.namespace")});
          }
        })
        .build();
  }();
  return s;
}

void normalizeVersion(std::optional<std::string>& version) {
  if (version && !version->empty() && version->front() != 'v') {
    version = "v" + *version;
  }
}

void validateVersion(const std::optional<std::string>& version, const FieldPath& path,
                     FieldErrors& errors) {
  if (version && !isKubeSemver(*version)) {
    errors.push_back(
        {path.str(), fielderr::invalid(Json(*version), "must be a valid semantic version")});
  }
}

}  // namespace nodewright::api::capi
