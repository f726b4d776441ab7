#include "cmd/azure_controller_set.h"

#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "api/capz/azure_machine_pool.h"
#include "cloud/azure/entra_credentials.h"
#include "cloud/azure/scale_set_instances.h"

namespace nodewright::cmd {
namespace {

namespace pool = controllers::capz::azuremachinepool;

// The AzureMachinePool controller's seam over ARM (nw_cloud_azure does not know the
// controllers, so the adapter lives where both are wired).
class ArmScaleSetInstances final : public pool::ScaleSetInstances {
 public:
  ArmScaleSetInstances(cloud::azure::ArmClient& arm, std::chrono::milliseconds timeout)
      : arm_(arm), timeout_(timeout) {}

  core::Result<std::vector<api::Json>> list(const std::string& scaleSetId) override {
    return cloud::azure::listScaleSetInstances(arm_, scaleSetId, timeout_);
  }

 private:
  cloud::azure::ArmClient& arm_;
  const std::chrono::milliseconds timeout_;
};

}  // namespace

core::Result<std::unique_ptr<AzureControllerSet>> AzureControllerSet::create(
    runtime::Manager& manager, const core::Clock& clock, AzureControllerSetOptions options) {
  if (options.armEndpoint.empty() || options.tenantId.empty() || options.clientId.empty()) {
    return core::fail(
        core::Error::invalid("azure: the ARM endpoint, tenant id and client id are required"));
  }
  std::unique_ptr<AzureControllerSet> self(new AzureControllerSet());
  cloud::azure::CurlTransportOptions transport;
  transport.caPem = options.caPem;
  self->transport_ = cloud::azure::makeCurlTransport(transport);
  cloud::azure::EntraOptions entra;
  entra.authorityHost = options.authorityHost.empty() ? options.armEndpoint : options.authorityHost;
  entra.tenantId = options.tenantId;
  entra.clientId = options.clientId;
  cloud::azure::TokenCredentialPtr credential;
  if (!options.federatedTokenFile.empty()) {
    credential = std::make_unique<cloud::azure::WorkloadIdentityCredential>(
        entra, options.federatedTokenFile, *self->transport_, clock);
  } else {
    credential = std::make_unique<cloud::azure::ClientSecretCredential>(
        entra, std::move(options.clientSecret), *self->transport_, clock);
  }
  self->credential_ = cloud::azure::cached(std::move(credential), clock);
  cloud::azure::ArmClientOptions arm;
  arm.endpoint = options.armEndpoint;
  self->arm_ =
      std::make_unique<cloud::azure::ArmClient>(arm, *self->transport_, *self->credential_, clock);
  self->engine_ =
      std::make_unique<lro::Engine>(*self->arm_, clock, options.lro, &manager.metrics());
  self->runner_ =
      std::make_unique<controllers::capz::ServiceRunner>(*self->engine_, clock, options.runner);
  kube::Client& client = manager.client();
  self->capi_ = controllers::capi::setupCapiControllers(manager, client, clock, options.capi);
  self->azureClusters_ = std::make_unique<controllers::capz::AzureClusterController>(
      client, *self->runner_, *self->arm_, clock, options.azureClusters);
  self->azureMachines_ = std::make_unique<controllers::capz::AzureMachineController>(
      client, *self->runner_, *self->engine_, clock, options.azureMachines);
  self->scaleSetInstances_ =
      std::make_unique<ArmScaleSetInstances>(*self->arm_, options.listTimeout);
  self->azureMachinePools_ = std::make_unique<pool::PoolController>(
      client, *self->runner_, *self->scaleSetInstances_, clock, options.azureMachinePools);
  self->azureMachinePoolMachines_ = std::make_unique<pool::PoolMachineController>(
      client, *self->runner_, *self->engine_, clock, options.azureMachinePoolMachines);
  const auto window = options.debouncingTimer;
  self->azureClusters_->setup(
      manager, self->debounce(manager.informerFor<api::capz::AzureCluster>(), *self->azureClusters_,
                              clock, window));
  self->azureMachines_->setup(
      manager, self->debounce(manager.informerFor<api::capz::AzureMachine>(), *self->azureMachines_,
                              clock, window));
  self->azureMachinePools_->setup(manager,
                                  self->debounce(manager.informerFor<api::capz::AzureMachinePool>(),
                                                 *self->azureMachinePools_, clock, window));
  self->azureMachinePoolMachines_->setup(
      manager, self->debounce(manager.informerFor<api::capz::AzureMachinePoolMachine>(),
                              *self->azureMachinePoolMachines_, clock, window));
  return self;
}

runtime::Reconciler* AzureControllerSet::debounce(kube::Informer& own, runtime::Reconciler& inner,
                                                  const core::Clock& clock,
                                                  std::chrono::milliseconds window) {
  if (window <= std::chrono::milliseconds::zero()) {
    return nullptr;
  }
  const kube::Informer* informer = &own;
  auto lookup = [informer](const runtime::Request& request) {
    std::optional<runtime::ObjectVersion> version;
    if (auto object = informer->cache().get(request.key())) {
      version = runtime::versionOf(object->metadata());
    }
    return version;
  };
  debounced_.push_back(
      std::make_unique<runtime::CoalescingReconciler>(inner, clock, window, std::move(lookup)));
  return debounced_.back().get();
}

AzureControllerSet::~AzureControllerSet() {
  // Workers blocked in a poll window park their operations and return.
  if (engine_) {
    engine_->stop();
  }
}

}  // namespace nodewright::cmd
