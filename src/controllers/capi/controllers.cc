#include "controllers/capi/controllers.h"

#include "api/capz/network.h"

namespace nodewright::controllers::capi {
namespace {

std::vector<const api::KindInfo*> kindsNamed(const api::Registry& registry, const char* kind) {
  const std::string apiVersion = std::string(api::capz::kGroup) + "/" + api::capz::kVersion;
  const api::KindInfo* info = registry.find(apiVersion, kind);
  return info == nullptr ? std::vector<const api::KindInfo*>{}
                         : std::vector<const api::KindInfo*>{info};
}

}  // namespace

InfrastructureKinds infrastructureKinds(const api::Registry& registry) {
  return InfrastructureKinds{kindsNamed(registry, "AzureCluster"),
                             kindsNamed(registry, "AzureMachine"),
                             kindsNamed(registry, "AzureMachinePool")};
}

CapiControllers::CapiControllers(kube::Client& client, const core::Clock& clock,
                                 const InfrastructureKinds& kinds)
    : cluster_(client, clock, kinds.cluster),
      machineDeployment_(client, clock),
      machineSet_(client, clock),
      machine_(client, clock, kinds.machine),
      machinePool_(client, clock, kinds.machinePool) {}

std::unique_ptr<CapiControllers> setupCapiControllers(runtime::Manager& manager,
                                                      kube::Client& client,
                                                      const core::Clock& clock,
                                                      const CapiOptions& options) {
  auto controllers =
      std::make_unique<CapiControllers>(client, clock, infrastructureKinds(client.registry()));
  controllers->cluster().setup(manager, options);
  controllers->machineDeployment().setup(manager, options);
  controllers->machineSet().setup(manager, options);
  controllers->machine().setup(manager, options);
  controllers->machinePool().setup(manager, options);
  return controllers;
}

}  // namespace nodewright::controllers::capi
