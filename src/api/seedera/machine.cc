#include "api/seedera/machine.h"

namespace nodewright::api::seedera {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<MachineResources>) {
  static const StructSchema s =
      StructBuilder<MachineResources>("ResourceRequirements",
                                      "The resources the machine must offer when launched.")
          .field<&MachineResources::requests>(
              "requests", "Minimum resources (pods plus daemonset overhead) the machine needs.")
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineSpec>) {
  static const StructSchema s =
      StructBuilder<MachineSpec>("MachineSpec", "Desired state of a Machine.")
          .field<&MachineSpec::taints>("taints", "Taints applied to the machine's node.")
          .setList()
          .field<&MachineSpec::startupTaints>(
              "startupTaints",
              "Taints applied at startup and expected to be removed by a daemon; ignored for "
              "scheduling.")
          .setList()
          .field<&MachineSpec::requirements>(
              "requirements", "Constraints on the instance type, zone and other node labels.")
          .dynamic()
          .field<&MachineSpec::resources>("resources",
                                          "The resources the machine must offer when launched.")
          .field<&MachineSpec::kubelet>("kubelet", "Options passed to the machine's kubelet.")
          .field<&MachineSpec::machineTemplateRef>(
              "machineTemplateRef",
              "Reference to the provider-specific template (AWSNodeTemplate) to launch with.")
          .validate([](const MachineSpec& m, const FieldPath& path, FieldErrors& errs) {
            validateTaintPairs(m.taints, path.child("taints"), m.startupTaints,
                               path.child("startupTaints"), errs);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<MachineStatus>) {
  static const StructSchema s =
      StructBuilder<MachineStatus>("MachineStatus", "Observed state of a Machine.")
          .field<&MachineStatus::nodeName>("nodeName", "Name of the node registered for it.")
          .field<&MachineStatus::providerID>("providerID",
                                             "Cloud provider ID of the launched instance.")
          .field<&MachineStatus::capacity>("capacity", "Estimated full capacity of the machine.")
          .field<&MachineStatus::allocatable>("allocatable",
                                              "Estimated allocatable capacity of the machine.")
          .field<&MachineStatus::conditions>(
              "conditions", "Lifecycle signals: MachineLaunched, MachineRegistered, ...")
          .mapList({"type"})
          .build();
  return s;
}

const StructSchema& describe(Tag<Machine>) {
  static const StructSchema s = [] {
    StructBuilder<Machine> b("Machine",
                             "Seed-era (karpenter.sh/v1alpha5) requested node; converted to a "
                             "karpenter.sh/v1 NodeClaim.");
    withTypeMeta(b)
        .field<&Machine::spec>("spec", "Desired state of the machine.")
        .field<&Machine::status>("status", "Observed state of the machine.");
    return b.build();
  }();
  return s;
}

}  // namespace nodewright::api::seedera
