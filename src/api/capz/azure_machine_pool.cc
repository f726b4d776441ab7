#include "api/capz/azure_machine_pool.h"

#include "api/codec.h"

namespace nodewright::api::capz {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<AzureMachinePoolMachineTemplate>) {
  static const StructSchema s =
      StructBuilder<AzureMachinePoolMachineTemplate>("AzureMachinePoolMachineTemplate",
                                                     "The VM model of the scale set.")
          .field<&AzureMachinePoolMachineTemplate::vmSize>("vmSize",
                                                           "Azure VM size, e.g. Standard_D2s_v3.")
          .required()
          .field<&AzureMachinePoolMachineTemplate::image>(
              "image", "Image of the VMs; the CAPI reference image of the Marketplace when unset.")
          .field<&AzureMachinePoolMachineTemplate::osDisk>("osDisk", "The operating system disk.")
          .required()
          .field<&AzureMachinePoolMachineTemplate::dataDisks>("dataDisks",
                                                              "Data disks attached to each VM.")
          .field<&AzureMachinePoolMachineTemplate::sshPublicKey>(
              "sshPublicKey", "Base64 encoded SSH public key (Linux only).")
          .field<&AzureMachinePoolMachineTemplate::acceleratedNetworking>(
              "acceleratedNetworking", "Deprecated: use networkInterfaces[].acceleratedNetworking.")
          .field<&AzureMachinePoolMachineTemplate::additionalCapabilities>(
              "additionalCapabilities", "Optional VM capabilities.")
          .field<&AzureMachinePoolMachineTemplate::diagnostics>(
              "diagnostics", "Diagnostic settings; managed boot logs if unset.")
          .field<&AzureMachinePoolMachineTemplate::terminateNotificationTimeout>(
              "terminateNotificationTimeout",
              "Minutes (5 to 15) of notice given before an instance is terminated.")
          .min(5)
          .max(15)
          .field<&AzureMachinePoolMachineTemplate::securityProfile>("securityProfile",
                                                                    "Security settings of the VMs.")
          .field<&AzureMachinePoolMachineTemplate::spotVMOptions>("spotVMOptions",
                                                                  "Run the VMs as Azure Spot VMs.")
          .field<&AzureMachinePoolMachineTemplate::subnetName>(
              "subnetName", "Deprecated: use networkInterfaces[].subnetName.")
          .field<&AzureMachinePoolMachineTemplate::vmExtensions>("vmExtensions",
                                                                 "Extensions to install.")
          .mapList({"name"})
          .field<&AzureMachinePoolMachineTemplate::disableVMBootstrapExtension>(
              "disableVMBootstrapExtension", "Skip CAPZ's bootstrap-check extension.")
          .field<&AzureMachinePoolMachineTemplate::networkInterfaces>(
              "networkInterfaces", "Network interfaces; the first is primary. One NIC if unset.")
          .defaults([](AzureMachinePoolMachineTemplate& t) { defaultDataDisks(t.dataDisks); })
          .validate([](const AzureMachinePoolMachineTemplate& t, const FieldPath& path,
                       FieldErrors& errors) {
            validateDataDisks(t.dataDisks, path.child("dataDisks"), errors);
            validateSSHPublicKey(t.sshPublicKey, path.child("sshPublicKey"), errors);
            validateNetworkInterfaces(t.subnetName, t.acceleratedNetworking, t.networkInterfaces,
                                      path, errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMachinePoolRollingUpdate>) {
  static const StructSchema s =
      StructBuilder<AzureMachinePoolRollingUpdate>("MachineRollingUpdateDeployment",
                                                   "Bounds of a rolling update of the scale set.")
          .field<&AzureMachinePoolRollingUpdate::maxUnavailable>(
              "maxUnavailable",
              "Instances (number or percentage, rounded down) that may be unavailable during the "
              "update; not 0 when maxSurge is 0.")
          .defaultsTo(0)
          .field<&AzureMachinePoolRollingUpdate::maxSurge>(
              "maxSurge",
              "Instances (number or percentage, rounded up) that may exist above the desired "
              "count during the update.")
          .defaultsTo(1)
          .field<&AzureMachinePoolRollingUpdate::deletePolicy>(
              "deletePolicy",
              "Which instances go first when scaling down: Random, Newest or Oldest.")
          .enums({"Random", "Newest", "Oldest"})
          .defaultsTo("Oldest")
          .validate([](const AzureMachinePoolRollingUpdate& r, const FieldPath& path,
                       FieldErrors& errors) {
            if (r.maxSurge) {
              capi::validateIntOrPercent(*r.maxSurge, path.child("maxSurge"), false, errors);
            }
            if (r.maxUnavailable) {
              capi::validateIntOrPercent(*r.maxUnavailable, path.child("maxUnavailable"), true,
                                         errors);
            }
            if (r.maxSurge && r.maxUnavailable && capi::isZeroIntOrPercent(*r.maxSurge) &&
                capi::isZeroIntOrPercent(*r.maxUnavailable)) {
              errors.push_back({path.child("maxUnavailable").str(),
                                fielderr::invalid(toJson(*r.maxUnavailable),
                                                  "may not be 0 when `maxSurge` is 0")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMachinePoolDeploymentStrategy>) {
  static const StructSchema s =
      StructBuilder<AzureMachinePoolDeploymentStrategy>(
          "AzureMachinePoolDeploymentStrategy", "How instances with an old model are replaced.")
          .field<&AzureMachinePoolDeploymentStrategy::type>(
              "type", "Kind of rollout; only RollingUpdate is supported.")
          .enums({"RollingUpdate"})
          .defaultsTo("RollingUpdate")
          .field<&AzureMachinePoolDeploymentStrategy::rollingUpdate>("rollingUpdate",
                                                                     "Bounds of a RollingUpdate.")
          .defaults([](AzureMachinePoolDeploymentStrategy& strategy) {
            if (strategy.type == "RollingUpdate" && !strategy.rollingUpdate) {
              strategy.rollingUpdate.emplace();
              applyDefaults(*strategy.rollingUpdate);
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMachinePoolSpec>) {
  static const StructSchema s =
      StructBuilder<AzureMachinePoolSpec>("AzureMachinePoolSpec",
                                          "Desired state of an Azure virtual machine scale set.")
          .field<&AzureMachinePoolSpec::location>("location", "Azure region, e.g. westeurope.")
          .required()
          .field<&AzureMachinePoolSpec::template_>("template", "The VM model of the scale set.")
          .required()
          .field<&AzureMachinePoolSpec::additionalTags>(
              "additionalTags", "Extra tags for the scale set; they win over the cluster's tags.")
          .field<&AzureMachinePoolSpec::providerID>(
              "providerID", "Cloud provider ID of the scale set; set by the controller.")
          .field<&AzureMachinePoolSpec::providerIDList>(
              "providerIDList", "Provider IDs of the instances; written by the controller.")
          .behavioral()
          .field<&AzureMachinePoolSpec::identity>(
              "identity", "Managed identity of the VMs: None, SystemAssigned or UserAssigned.")
          .enums({"None", "SystemAssigned", "UserAssigned"})
          .defaultsTo("None")
          .field<&AzureMachinePoolSpec::systemAssignedIdentityRole>(
              "systemAssignedIdentityRole", "Role of the SystemAssigned identity.")
          .field<&AzureMachinePoolSpec::userAssignedIdentities>(
              "userAssignedIdentities", "Identities for the UserAssigned identity type.")
          .field<&AzureMachinePoolSpec::roleAssignmentName>(
              "roleAssignmentName", "Deprecated: use systemAssignedIdentityRole.name.")
          .field<&AzureMachinePoolSpec::strategy>("strategy",
                                                  "How instances with an old model are replaced.")
          .behavioral()
          .field<&AzureMachinePoolSpec::orchestrationMode>(
              "orchestrationMode", "Scale set orchestration: Uniform (default) or Flexible.")
          .enums({"Flexible", "Uniform"})
          .defaultsTo("Uniform")
          .field<&AzureMachinePoolSpec::platformFaultDomainCount>(
              "platformFaultDomainCount", "Number of fault domains the scale set spreads over.")
          .min(1)
          .field<&AzureMachinePoolSpec::zoneBalance>(
              "zoneBalance", "Keep instances strictly even across availability zones.")
          .validate(
              [](const AzureMachinePoolSpec& spec, const FieldPath& path, FieldErrors& errors) {
                validateIdentity(spec.identity, spec.roleAssignmentName,
                                 spec.systemAssignedIdentityRole, spec.userAssignedIdentities, path,
                                 errors);
              })
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMachinePoolInstanceStatus>) {
  static const StructSchema s =
      StructBuilder<AzureMachinePoolInstanceStatus>("AzureMachinePoolInstanceStatus",
                                                    "State of one instance of the scale set.")
          .field<&AzureMachinePoolInstanceStatus::version>("version",
                                                           "Kubernetes version of the instance.")
          .field<&AzureMachinePoolInstanceStatus::provisioningState>(
              "provisioningState", "Provisioning state of the instance.")
          .field<&AzureMachinePoolInstanceStatus::providerID>("providerID",
                                                              "Provider ID of the instance.")
          .field<&AzureMachinePoolInstanceStatus::instanceID>(
              "instanceID", "ID of the instance within the scale set.")
          .field<&AzureMachinePoolInstanceStatus::instanceName>("instanceName",
                                                                "Name of the instance.")
          .field<&AzureMachinePoolInstanceStatus::latestModelApplied>(
              "latestModelApplied", "Whether the instance runs the scale set's current model.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMachinePoolStatus>) {
  static const StructSchema s = [] {
    StructBuilder<AzureMachinePoolStatus> b(
        "AzureMachinePoolStatus", "Observed state of an Azure virtual machine scale set.");
    b.field<&AzureMachinePoolStatus::ready>("ready", "Whether the scale set is ready.")
        .field<&AzureMachinePoolStatus::replicas>("replicas", "Most recently observed instances.")
        .field<&AzureMachinePoolStatus::instances>("instances", "State of each instance.")
        .field<&AzureMachinePoolStatus::image>(
            "image", "Image the scale set runs; the resolved default when spec has none.")
        .field<&AzureMachinePoolStatus::version>("version",
                                                 "Kubernetes version of the current model.")
        .field<&AzureMachinePoolStatus::provisioningState>(
            "provisioningState", "Provisioning state of the scale set, e.g. Succeeded.")
        .field<&AzureMachinePoolStatus::failureReason>(
            "failureReason", "Machine-readable reason for a terminal reconcile failure.")
        .field<&AzureMachinePoolStatus::failureMessage>(
            "failureMessage", "Human-readable description of a terminal reconcile failure.")
        .field<&AzureMachinePoolStatus::conditions>(
            "conditions", "State of each Azure service of the scale set.");
    futuresField(b);
    return b
        .field<&AzureMachinePoolStatus::infrastructureMachineKind>(
            "infrastructureMachineKind",
            "Kind of the per-instance objects, AzureMachinePoolMachine.")
        .validate(
            [](const AzureMachinePoolStatus& status, const FieldPath& path, FieldErrors& errors) {
              capi::validateCapiConditions(status.conditions, path.child("conditions"), errors);
            })
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<AzureMachinePool>) {
  static const StructSchema s = [] {
    StructBuilder<AzureMachinePool> b("AzureMachinePool",
                                      "An Azure virtual machine scale set behind a MachinePool.");
    withTypeMeta(b);
    return b.field<&AzureMachinePool::spec>("spec", "Desired state of the scale set.")
        .field<&AzureMachinePool::status>("status", "Observed state of the scale set.")
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<AzureMachinePoolMachineSpec>) {
  static const StructSchema s =
      StructBuilder<AzureMachinePoolMachineSpec>("AzureMachinePoolMachineSpec",
                                                 "Identity of one scale set instance.")
          .field<&AzureMachinePoolMachineSpec::providerID>("providerID",
                                                           "Cloud provider ID of the instance.")
          .required()
          .field<&AzureMachinePoolMachineSpec::instanceID>(
              "instanceID", "ID of the instance within the scale set.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMachinePoolMachineStatus>) {
  static const StructSchema s = [] {
    StructBuilder<AzureMachinePoolMachineStatus> b("AzureMachinePoolMachineStatus",
                                                   "Observed state of one scale set instance.");
    b.field<&AzureMachinePoolMachineStatus::nodeRef>(
         "nodeRef", "The Node the instance became, once it exists.")
        .field<&AzureMachinePoolMachineStatus::version>("version",
                                                        "Kubernetes version of the instance.")
        .field<&AzureMachinePoolMachineStatus::provisioningState>(
            "provisioningState", "Provisioning state of the instance.")
        .field<&AzureMachinePoolMachineStatus::instanceName>("instanceName",
                                                             "Name of the instance.")
        .field<&AzureMachinePoolMachineStatus::failureReason>(
            "failureReason", "Machine-readable reason for a terminal reconcile failure.")
        .field<&AzureMachinePoolMachineStatus::failureMessage>(
            "failureMessage", "Human-readable description of a terminal reconcile failure.")
        .field<&AzureMachinePoolMachineStatus::conditions>("conditions",
                                                           "Current state of the instance.");
    futuresField(b);
    return b
        .field<&AzureMachinePoolMachineStatus::latestModelApplied>(
            "latestModelApplied", "Whether the instance runs the scale set's current model.")
        .field<&AzureMachinePoolMachineStatus::ready>("ready",
                                                      "Whether the instance is provisioned.")
        .validate([](const AzureMachinePoolMachineStatus& status, const FieldPath& path,
                     FieldErrors& errors) {
          capi::validateCapiConditions(status.conditions, path.child("conditions"), errors);
        })
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<AzureMachinePoolMachine>) {
  static const StructSchema s = [] {
    StructBuilder<AzureMachinePoolMachine> b("AzureMachinePoolMachine",
                                             "One instance of an AzureMachinePool's scale set.");
    withTypeMeta(b);
    return b.field<&AzureMachinePoolMachine::spec>("spec", "Identity of the instance.")
        .field<&AzureMachinePoolMachine::status>("status", "Observed state of the instance.")
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::capz
