#include "api/capz/azure_machine.h"

namespace nodewright::api::capz {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<AzureMachineSpec>) {
  static const StructSchema s =
      StructBuilder<AzureMachineSpec>("AzureMachineSpec", "Desired state of an Azure VM.")
          .field<&AzureMachineSpec::providerID>(
              "providerID", "Cloud provider ID of the VM; set by the controller.")
          .field<&AzureMachineSpec::vmSize>("vmSize", "Azure VM size, e.g. Standard_D2s_v3.")
          .required()
          .field<&AzureMachineSpec::failureDomain>("failureDomain",
                                                   "Availability zone to place the VM in.")
          .field<&AzureMachineSpec::image>(
              "image", "Image of the VM; the CAPI reference image of the Marketplace when unset.")
          .field<&AzureMachineSpec::identity>(
              "identity", "Managed identity of the VM: None, SystemAssigned or UserAssigned.")
          .enums({"None", "SystemAssigned", "UserAssigned"})
          .defaultsTo("None")
          .field<&AzureMachineSpec::userAssignedIdentities>(
              "userAssignedIdentities", "Identities for the UserAssigned identity type.")
          .field<&AzureMachineSpec::systemAssignedIdentityRole>(
              "systemAssignedIdentityRole", "Role of the SystemAssigned identity.")
          .field<&AzureMachineSpec::roleAssignmentName>(
              "roleAssignmentName", "Deprecated: use systemAssignedIdentityRole.name.")
          .field<&AzureMachineSpec::osDisk>("osDisk", "The operating system disk.")
          .required()
          .field<&AzureMachineSpec::dataDisks>("dataDisks", "Data disks attached to the VM.")
          .field<&AzureMachineSpec::sshPublicKey>("sshPublicKey",
                                                  "Base64 encoded SSH public key (Linux only).")
          .field<&AzureMachineSpec::additionalTags>(
              "additionalTags", "Extra tags for the VM; they win over the cluster's tags.")
          .field<&AzureMachineSpec::additionalCapabilities>("additionalCapabilities",
                                                            "Optional VM capabilities.")
          .field<&AzureMachineSpec::allocatePublicIP>("allocatePublicIP",
                                                      "Give the VM a dynamic public IP.")
          .field<&AzureMachineSpec::enableIPForwarding>(
              "enableIPForwarding", "Let the VM forward traffic (needed by some CNIs).")
          .field<&AzureMachineSpec::acceleratedNetworking>(
              "acceleratedNetworking", "Deprecated: use networkInterfaces[].acceleratedNetworking.")
          .field<&AzureMachineSpec::diagnostics>("diagnostics",
                                                 "Diagnostic settings; managed boot logs if unset.")
          .field<&AzureMachineSpec::spotVMOptions>("spotVMOptions",
                                                   "Run the VM as an Azure Spot VM.")
          .field<&AzureMachineSpec::securityProfile>("securityProfile",
                                                     "Security settings of the VM.")
          .field<&AzureMachineSpec::subnetName>("subnetName",
                                                "Deprecated: use networkInterfaces[].subnetName.")
          .field<&AzureMachineSpec::dnsServers>("dnsServers", "DNS servers for the VM's NICs.")
          .field<&AzureMachineSpec::disableExtensionOperations>(
              "disableExtensionOperations",
              "Disable VM extensions (and with them CAPZ's bootstrap check).")
          .field<&AzureMachineSpec::vmExtensions>("vmExtensions", "Extensions to install.")
          .mapList({"name"})
          .field<&AzureMachineSpec::networkInterfaces>(
              "networkInterfaces", "Network interfaces; the first is primary. One NIC if unset.")
          .field<&AzureMachineSpec::capacityReservationGroupID>(
              "capacityReservationGroupID", "Capacity reservation group to allocate the VM from.")
          .defaults([](AzureMachineSpec& spec) { defaultDataDisks(spec.dataDisks); })
          .validate([](const AzureMachineSpec& spec, const FieldPath& path, FieldErrors& errors) {
            validateDataDisks(spec.dataDisks, path.child("dataDisks"), errors);
            validateSSHPublicKey(spec.sshPublicKey, path.child("sshPublicKey"), errors);
            validateIdentity(spec.identity, spec.roleAssignmentName,
                             spec.systemAssignedIdentityRole, spec.userAssignedIdentities, path,
                             errors);
            validateNetworkInterfaces(spec.subnetName, spec.acceleratedNetworking,
                                      spec.networkInterfaces, path, errors);
            if (spec.disableExtensionOperations.value_or(false) && !spec.vmExtensions.empty()) {
              errors.push_back({path.child("vmExtensions").str(),
                                fielderr::forbidden("VMExtensions must be empty when "
                                                    "DisableExtensionOperations is true")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMachineStatus>) {
  static const StructSchema s = [] {
    StructBuilder<AzureMachineStatus> b("AzureMachineStatus", "Observed state of an Azure VM.");
    b.field<&AzureMachineStatus::ready>("ready", "Whether the VM is provisioned and running.")
        .field<&AzureMachineStatus::addresses>("addresses", "Addresses of the VM.")
        .field<&AzureMachineStatus::vmState>(
            "vmState", "Provisioning state of the VM, e.g. Creating, Succeeded or Failed.")
        .field<&AzureMachineStatus::failureReason>(
            "failureReason", "Machine-readable reason for a terminal reconcile failure.")
        .field<&AzureMachineStatus::failureMessage>(
            "failureMessage", "Human-readable description of a terminal reconcile failure.")
        .field<&AzureMachineStatus::conditions>("conditions",
                                                "State of each Azure service of the VM.");
    futuresField(b);
    return b
        .validate([](const AzureMachineStatus& status, const FieldPath& path, FieldErrors& errors) {
          capi::validateCapiConditions(status.conditions, path.child("conditions"), errors);
        })
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<AzureMachine>) {
  static const StructSchema s = [] {
    StructBuilder<AzureMachine> b("AzureMachine", "An Azure VM behind a Cluster API Machine.");
    withTypeMeta(b);
    return b.field<&AzureMachine::spec>("spec", "Desired state of the VM.")
        .field<&AzureMachine::status>("status", "Observed state of the VM.")
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<AzureMachineTemplateResource>) {
  static const StructSchema s =
      StructBuilder<AzureMachineTemplateResource>("AzureMachineTemplateResource",
                                                  "The AzureMachines made from a template.")
          .field<&AzureMachineTemplateResource::metadata>(
              "metadata", "Labels and annotations of the created AzureMachines.")
          .field<&AzureMachineTemplateResource::spec>("spec", "Spec of the created AzureMachines.")
          .required()
          .validate([](const AzureMachineTemplateResource& t, const FieldPath& path,
                       FieldErrors& errors) {
            // Every machine made from the template would claim the same role assignment.
            FieldPath spec = path.child("spec");
            if (!t.spec.roleAssignmentName.empty()) {
              errors.push_back({spec.child("roleAssignmentName").str(),
                                fielderr::forbidden("cannot be set in a template: every machine "
                                                    "needs its own role assignment")});
            }
            if (t.spec.systemAssignedIdentityRole &&
                !t.spec.systemAssignedIdentityRole->name.empty()) {
              errors.push_back(
                  {spec.child("systemAssignedIdentityRole").child("name").str(),
                   fielderr::forbidden("cannot be set in a template: every machine needs its own "
                                       "role assignment")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMachineTemplateSpec>) {
  static const StructSchema s =
      StructBuilder<AzureMachineTemplateSpec>("AzureMachineTemplateSpec",
                                              "Desired state of an AzureMachineTemplate.")
          .field<&AzureMachineTemplateSpec::template_>("template", "The AzureMachines to create.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMachineTemplate>) {
  static const StructSchema s = [] {
    StructBuilder<AzureMachineTemplate> b(
        "AzureMachineTemplate", "A template from which MachineDeployments make AzureMachines.");
    withTypeMeta(b);
    return b.field<&AzureMachineTemplate::spec>("spec", "Desired state of the template.").build();
  }();
  return s;
}

}  // namespace nodewright::api::capz
