#include "api/capi/cluster.h"
#include "api/capi/machine.h"
#include "api/capi/machine_deployment.h"
#include "api/capi/machine_health_check.h"
#include "api/capi/machine_pool.h"
#include "api/capi/machine_set.h"
#include "api/registry.h"

namespace nodewright::api {
namespace {

PrinterColumn column(std::string name, std::string type, std::string jsonPath,
                     std::string description, int priority = 0) {
  return PrinterColumn{std::move(name), std::move(type), std::move(jsonPath),
                       std::move(description), priority};
}

PrinterColumn ageColumn(const std::string& kind) {
  return column("Age", "date", ".metadata.creationTimestamp",
                "Time duration since creation of " + kind);
}

template <class T>
KindInfo capiKind(std::string kind, std::string plural, std::string shortName) {
  KindInfo info = kindFor<T>(capi::kGroup, capi::kVersion, std::move(kind), std::move(plural));
  info.namespaced = true;
  info.statusSubresource = true;
  info.shortNames = {std::move(shortName)};
  info.categories = {capi::kCategory};
  return info;
}

}  // namespace

void registerClusterApiKinds(Registry& registry) {
  KindInfo cluster = capiKind<capi::Cluster>("Cluster", "clusters", "cl");
  cluster.printerColumns = {
      column("ClusterClass", "string", ".spec.topology.class",
             "ClusterClass of this Cluster, empty if the Cluster is not using a ClusterClass"),
      column("Phase", "string", ".status.phase",
             "Cluster status such as Pending/Provisioning/Provisioned/Deleting/Failed"),
      ageColumn("Cluster"),
      column("Version", "string", ".spec.topology.version",
             "Kubernetes version associated with this Cluster"),
  };
  registry.add(std::move(cluster));

  KindInfo deployment =
      capiKind<capi::MachineDeployment>("MachineDeployment", "machinedeployments", "md");
  deployment.printerColumns = {
      column("Cluster", "string", ".spec.clusterName", "Cluster"),
      column("Desired", "integer", ".spec.replicas",
             "Total number of machines desired by this MachineDeployment", 10),
      column("Replicas", "integer", ".status.replicas",
             "Total number of non-terminated machines targeted by this MachineDeployment"),
      column("Ready", "integer", ".status.readyReplicas",
             "Total number of ready machines targeted by this MachineDeployment"),
      column("Updated", "integer", ".status.updatedReplicas",
             "Total number of non-terminated machines targeted by this deployment that have the "
             "desired template spec"),
      column("Unavailable", "integer", ".status.unavailableReplicas",
             "Total number of unavailable machines targeted by this MachineDeployment"),
      column("Phase", "string", ".status.phase",
             "MachineDeployment status such as ScalingUp/ScalingDown/Running/Failed/Unknown"),
      ageColumn("MachineDeployment"),
      column("Version", "string", ".spec.template.spec.version",
             "Kubernetes version associated with this MachineDeployment"),
  };
  registry.add(std::move(deployment));

  KindInfo set = capiKind<capi::MachineSet>("MachineSet", "machinesets", "ms");
  set.printerColumns = {
      column("Cluster", "string", ".spec.clusterName", "Cluster"),
      column("Desired", "integer", ".spec.replicas",
             "Total number of machines desired by this machineset", 10),
      column("Replicas", "integer", ".status.replicas",
             "Total number of non-terminated machines targeted by this machineset"),
      column("Ready", "integer", ".status.readyReplicas",
             "Total number of ready machines targeted by this machineset."),
      column("Available", "integer", ".status.availableReplicas",
             "Total number of available machines (ready for at least minReadySeconds)"),
      ageColumn("MachineSet"),
      column("Version", "string", ".spec.template.spec.version",
             "Kubernetes version associated with this MachineSet"),
  };
  registry.add(std::move(set));

  KindInfo machine = capiKind<capi::Machine>("Machine", "machines", "ma");
  machine.printerColumns = {
      column("Cluster", "string", ".spec.clusterName", "Cluster"),
      column("NodeName", "string", ".status.nodeRef.name",
             "Node name associated with this machine"),
      column("ProviderID", "string", ".spec.providerID", "Provider ID"),
      column("Phase", "string", ".status.phase",
             "Machine status such as Terminating/Pending/Running/Failed etc"),
      ageColumn("Machine"),
      column("Version", "string", ".spec.version",
             "Kubernetes version associated with this Machine"),
  };
  registry.add(std::move(machine));

  KindInfo healthCheck =
      capiKind<capi::MachineHealthCheck>("MachineHealthCheck", "machinehealthchecks", "mhc");
  healthCheck.shortNames.push_back("mhcs");
  healthCheck.printerColumns = {
      column("Cluster", "string", ".spec.clusterName", "Cluster"),
      column("ExpectedMachines", "integer", ".status.expectedMachines",
             "Number of machines currently monitored"),
      column("MaxUnhealthy", "string", ".spec.maxUnhealthy",
             "Maximum number of unhealthy machines allowed"),
      column("CurrentHealthy", "integer", ".status.currentHealthy",
             "Current observed healthy machines"),
      ageColumn("MachineHealthCheck"),
  };
  registry.add(std::move(healthCheck));

  KindInfo pool = capiKind<capi::MachinePool>("MachinePool", "machinepools", "mp");
  pool.printerColumns = {
      column("Cluster", "string", ".spec.clusterName", "Cluster"),
      column("Desired", "integer", ".spec.replicas",
             "Total number of machines desired by this MachinePool", 10),
      column("Replicas", "string", ".status.replicas", "MachinePool replicas count"),
      column("Phase", "string", ".status.phase",
             "MachinePool status such as Terminating/Pending/Provisioning/Running/Failed etc"),
      ageColumn("MachinePool"),
      column("Version", "string", ".spec.template.spec.version",
             "Kubernetes version associated with this MachinePool"),
  };
  registry.add(std::move(pool));
}

}  // namespace nodewright::api
