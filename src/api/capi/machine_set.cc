#include "api/capi/machine_set.h"

#include "api/codec.h"

namespace nodewright::api::capi {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<MachineNamingStrategy>) {
  static const StructSchema s =
      StructBuilder<MachineNamingStrategy>("MachineNamingStrategy",
                                           "How the names of created Machines are generated.")
          .field<&MachineNamingStrategy::template_>(
              "template", "Go template for the name; must contain {{ .random }}.")
          .maxLength(256)
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineSetSpec>) {
  static const StructSchema s =
      StructBuilder<MachineSetSpec>("MachineSetSpec", "Desired state of a MachineSet.")
          .field<&MachineSetSpec::clusterName>("clusterName",
                                               "Name of the Cluster the MachineSet is part of.")
          .required()
          .field<&MachineSetSpec::replicas>("replicas", "Number of Machines to keep running.")
          .behavioral()
          .min(0)
          .field<&MachineSetSpec::minReadySeconds>(
              "minReadySeconds", "Seconds a new machine's node must be ready to count available.")
          .behavioral()
          .min(0)
          .field<&MachineSetSpec::deletePolicy>(
              "deletePolicy",
              "Which machines go first when scaling down: Random, Newest or Oldest.")
          .behavioral()
          .enums({"Random", "Newest", "Oldest"})
          .field<&MachineSetSpec::selector>(
              "selector", "Label query over the Machines this set counts; must match the template.")
          .field<&MachineSetSpec::template_>("template", "The Machines this set creates.")
          .field<&MachineSetSpec::machineNamingStrategy>(
              "machineNamingStrategy", "How the names of created Machines are generated.")
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineSetStatus>) {
  static const StructSchema s =
      StructBuilder<MachineSetStatus>("MachineSetStatus", "Observed state of a MachineSet.")
          .field<&MachineSetStatus::selector>("selector",
                                              "The selector in query-parameter form, for scale.")
          .field<&MachineSetStatus::replicas>("replicas", "Most recently observed replica count.")
          .field<&MachineSetStatus::fullyLabeledReplicas>(
              "fullyLabeledReplicas", "Replicas whose labels match the template's labels.")
          .field<&MachineSetStatus::readyReplicas>("readyReplicas", "Replicas whose node is Ready.")
          .field<&MachineSetStatus::availableReplicas>(
              "availableReplicas", "Replicas ready for at least minReadySeconds.")
          .field<&MachineSetStatus::observedGeneration>(
              "observedGeneration", "The metadata.generation the controller last acted on.")
          .field<&MachineSetStatus::failureReason>(
              "failureReason", "Machine-readable reason for a terminal reconcile failure.")
          .field<&MachineSetStatus::failureMessage>(
              "failureMessage", "Human-readable description of a terminal reconcile failure.")
          .field<&MachineSetStatus::conditions>("conditions", "Current state of the MachineSet.")
          .field<&MachineSetStatus::v1beta2>(
              "v1beta2", "Status fields previewing the v1beta2 API, kept verbatim.")
          .validate([](const MachineSetStatus& status, const FieldPath& path, FieldErrors& errors) {
            validateCapiConditions(status.conditions, path.child("conditions"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineSet>) {
  static const StructSchema s = [] {
    StructBuilder<MachineSet> b("MachineSet", "Keeps a number of identical Machines running.");
    withTypeMeta(b);
    return b.field<&MachineSet::spec>("spec", "Desired state of the MachineSet.")
        .field<&MachineSet::status>("status", "Observed state of the MachineSet.")
        .defaults([](MachineSet& m) {
          if (!m.spec.clusterName.empty()) {
            m.metadata.labels[kClusterNameLabel] = m.spec.clusterName;
          }
          if (!m.spec.replicas) {
            m.spec.replicas = defaultReplicas(m.metadata);
          }
          if (!m.spec.deletePolicy) {
            m.spec.deletePolicy = "Random";
          }
          defaultSelector(m.spec.selector, m.spec.template_.metadata, kMachineSetNameLabel,
                          m.metadata.name, m.spec.clusterName);
        })
        .validate([](const MachineSet& m, const FieldPath& path, FieldErrors& errors) {
          FieldPath spec = path.child("spec");
          if (m.spec.selector.empty()) {
            errors.push_back({spec.child("selector").str(),
                              fielderr::invalid(toJson(m.spec.selector),
                                                "empty selector is not valid for MachineSet.")});
          } else {
            validateSelectorMatchesTemplate(m.spec.selector, m.spec.template_.metadata, spec,
                                            errors);
          }
        })
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::capi
