#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine_pool.h"
#include "api/reflect/json.h"
#include "controllers/capz/service.h"
#include "core/error.h"

// An AzureMachinePool's virtual machine scale set (CAPZ's scalesets service) and the delete of
// one of its instances (the scalesetvms service of an AzureMachinePoolMachine). The scale set
// runs `replicas` instances of its model; the model is PUT again only when the pool's template,
// tags or replicas changed.
namespace nodewright::controllers::capz::azuremachinepool {

inline constexpr const char* kScaleSetsService = "scalesets";
inline constexpr const char* kScaleSetVMsService = "scalesetvms";
inline constexpr const char* kScaleSetRunningCondition = "ScaleSetRunning";
inline constexpr const char* kVMRunningCondition = "VMRunning";

struct PoolScope {
  // Must outlive the scope.
  const api::capz::AzureMachinePool* pool = nullptr;
  const api::capz::AzureCluster* cluster = nullptr;
  std::string clusterName;
  int32_t replicas = 0;                     // the MachinePool's spec.replicas
  std::vector<std::string> failureDomains;  // the MachinePool's zones
  std::string bootstrapData;                // never logged

  const std::string& name() const { return pool->metadata.name; }
};

std::string scaleSetId(const PoolScope& scope);
// ".../virtualMachineScaleSets/NAME/virtualMachines/ID"
std::string instanceResourceId(const PoolScope& scope, const std::string& instanceID);

// The scale set's model: sku (vmSize, capacity = replicas), VM profile (image, disks, admin
// user and key, custom data, one NIC in the node subnet, extensions with CAPZ's bootstrap one),
// Manual upgrade policy. Invalid when it cannot be built (no node subnet, a bad SSH key).
core::Result<api::Json> scaleSetBody(const PoolScope& scope);
core::Result<std::vector<Service>> scaleSetServices(const PoolScope& scope);

// The scale set's delete (its instances go with it); needs no model.
std::vector<Service> scaleSetDeleteServices(const PoolScope& scope);

// Deleting the instance behind an AzureMachinePoolMachine (spec.instanceID): its VMRunning
// condition says Deleting from the first pass on; ARM runs one instance fewer afterwards.
std::vector<Service> poolMachineDeleteServices(const PoolScope& scope,
                                               const api::capz::AzureMachinePoolMachine& machine);

// An instance as ARM returns it (GET of .../virtualMachines/ID), in the pool's status terms.
api::capz::AzureMachinePoolInstanceStatus instanceStatus(const api::Json& instance);

}  // namespace nodewright::controllers::capz::azuremachinepool
