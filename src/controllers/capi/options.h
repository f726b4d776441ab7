#pragma once

// Tunables of the Cluster API core controllers: concurrent reconciles per kind (CAPI's
// --cluster-concurrency, --machinedeployment-concurrency, ... flags, default 10 each).
namespace nodewright::controllers::capi {

struct CapiOptions {
  int clusterConcurrency = 10;
  int machineDeploymentConcurrency = 10;
  int machineSetConcurrency = 10;
  int machineConcurrency = 10;
  int machinePoolConcurrency = 10;
};

}  // namespace nodewright::controllers::capi
