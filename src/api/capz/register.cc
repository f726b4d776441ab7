#include "api/capi/common.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_cluster_identity.h"
#include "api/capz/azure_machine.h"
#include "api/capz/azure_machine_pool.h"
#include "api/registry.h"

namespace nodewright::api {
namespace {

constexpr const char* kClusterLabelPath = ".metadata.labels.cluster\\.x-k8s\\.io/cluster-name";
constexpr const char* kReadyStatusPath = ".status.conditions[?(@.type=='Ready')].status";
constexpr const char* kReadyReasonPath = ".status.conditions[?(@.type=='Ready')].reason";
constexpr const char* kReadyMessagePath = ".status.conditions[?(@.type=='Ready')].message";

PrinterColumn column(std::string name, std::string jsonPath, std::string description = {},
                     int priority = 0, std::string type = "string") {
  return PrinterColumn{std::move(name), std::move(type), std::move(jsonPath),
                       std::move(description), priority};
}

template <class T>
KindInfo capzKind(std::string kind, std::string plural, std::vector<std::string> shortNames) {
  KindInfo info = kindFor<T>(capz::kGroup, capz::kVersion, std::move(kind), std::move(plural));
  info.namespaced = true;
  info.statusSubresource = true;
  info.shortNames = std::move(shortNames);
  info.categories = {capi::kCategory};
  return info;
}

}  // namespace

void registerAzureKinds(Registry& registry) {
  KindInfo cluster = capzKind<capz::AzureCluster>("AzureCluster", "azureclusters", {});
  cluster.printerColumns = {
      column("Cluster", kClusterLabelPath, "Cluster to which this AzureCluster belongs"),
      column("Ready", kReadyStatusPath),
      column("Reason", kReadyReasonPath),
      column("Message", kReadyMessagePath, {}, 1),
      column("Resource Group", ".spec.resourceGroup", {}, 1),
      column("SubscriptionID", ".spec.subscriptionID", {}, 1),
      column("Location", ".spec.location", {}, 1),
      column("Endpoint", ".spec.controlPlaneEndpoint.host", "Control Plane Endpoint", 1),
  };
  registry.add(std::move(cluster));

  KindInfo identity =
      capzKind<capz::AzureClusterIdentity>("AzureClusterIdentity", "azureclusteridentities", {});
  identity.printerColumns = {
      column("Type", ".spec.type", "Type of AzureClusterIdentity"),
      column("Age", ".metadata.creationTimestamp",
             "Time duration since creation of this AzureClusterIdentity", 0, "date"),
  };
  registry.add(std::move(identity));

  KindInfo machine = capzKind<capz::AzureMachine>("AzureMachine", "azuremachines", {});
  machine.printerColumns = {
      column("Cluster", kClusterLabelPath, "Cluster to which this AzureMachine belongs", 1),
      column("Ready", kReadyStatusPath),
      column("Severity", ".status.conditions[?(@.type=='Ready')].severity"),
      column("Reason", kReadyReasonPath),
      column("Message", kReadyMessagePath, {}, 1),
      column("State", ".status.vmState", "Azure VM provisioning state"),
      column("Machine", ".metadata.ownerReferences[?(@.kind==\"Machine\")].name",
             "Machine object to which this AzureMachine belongs", 1),
      column("VM ID", ".spec.providerID", "Azure VM ID", 1),
      column("VM Size", ".spec.vmSize", "Azure VM Size", 1),
      column("Age", ".metadata.creationTimestamp",
             "Time duration since creation of this AzureMachine", 0, "date"),
  };
  registry.add(std::move(machine));

  KindInfo machineTemplate =
      capzKind<capz::AzureMachineTemplate>("AzureMachineTemplate", "azuremachinetemplates", {});
  machineTemplate.statusSubresource = false;
  registry.add(std::move(machineTemplate));

  KindInfo pool =
      capzKind<capz::AzureMachinePool>("AzureMachinePool", "azuremachinepools", {"amp"});
  pool.printerColumns = {
      column("Replicas", ".status.replicas", "AzureMachinePool replicas count"),
      column("Ready", ".status.ready", "Whether the scale set is ready"),
      column("State", ".status.provisioningState", "Azure VMSS provisioning state"),
      column("Cluster", kClusterLabelPath, "Cluster to which this AzureMachinePool belongs", 1),
      column("MachinePool", ".metadata.ownerReferences[?(@.kind==\"MachinePool\")].name",
             "MachinePool object to which this AzureMachinePool belongs", 1),
      column("VMSS ID", ".spec.providerID", "Azure VMSS ID", 1),
      column("VM Size", ".spec.template.vmSize", "Azure VM Size", 1),
      column("Age", ".metadata.creationTimestamp",
             "Time duration since creation of this AzureMachinePool", 0, "date"),
  };
  registry.add(std::move(pool));

  KindInfo poolMachine = capzKind<capz::AzureMachinePoolMachine>(
      "AzureMachinePoolMachine", "azuremachinepoolmachines", {"ampm"});
  poolMachine.printerColumns = {
      column("Version", ".status.version", "Kubernetes version"),
      column("Ready", ".status.ready",
             "Flag indicating infrastructure is successfully provisioned"),
      column("State", ".status.provisioningState", "Azure VMSS VM provisioning state"),
      column("Cluster", kClusterLabelPath, "Cluster to which this AzureMachinePoolMachine belongs",
             1),
      column("VMSS VM ID", ".spec.providerID", "Azure VMSS VM ID", 1),
  };
  registry.add(std::move(poolMachine));
}

}  // namespace nodewright::api
