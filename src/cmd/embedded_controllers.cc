#include "cmd/embedded_controllers.h"

#include "api/core/validation.h"
#include "core/log.h"
#include "kube/config.h"

namespace nodewright::cmd {

core::Result<std::unique_ptr<EmbeddedControllers>> EmbeddedControllers::start(
    const EmbeddedControllersOptions& options) {
  auto config = kube::loadKubeconfig(options.kubeconfig);
  if (!config) {
    return core::fail(config.error());
  }
  std::unique_ptr<EmbeddedControllers> self(new EmbeddedControllers());
  auto client = kube::Client::create(*config);
  if (!client) {
    return core::fail(client.error());
  }
  self->client_ = std::move(*client);
  self->transport_ = nodewright::aws::makeCurlTransport();
  runtime::ManagerOptions managerOptions;
  managerOptions.component = "karpenter";
  managerOptions.metricsEndpoint = options.metrics;
  self->manager_ = std::make_unique<runtime::Manager>(*self->client_, managerOptions);

  ControllerSetOptions set;
  set.aws.region = options.region;
  set.aws.ec2Endpoint = options.ec2Endpoint;
  set.aws.ssmEndpoint = options.ec2Endpoint;
  set.aws.pricingEndpoint = options.ec2Endpoint;
  set.aws.credentials = [] {
    // The emulator's well-known development key, not a secret (DESIGN.md).
    return nodewright::aws::ApiResult<nodewright::aws::sigv4::Credentials>(
        nodewright::aws::sigv4::Credentials{"nodewright", "nodewright", ""});
  };
  set.aws.cluster.name = options.clusterName;
  set.aws.cluster.endpoint = config->server;
  set.aws.cluster.caBundle = api::corev1::encodeBase64(config->caPem);
  set.aws.cluster.serviceCidr = "10.100.0.0/16";
  set.interruption.queue = options.interruptionQueue;
  set.interruption.endpoint = options.ec2Endpoint;
  set.repair.timeScale = options.timeScale;
  // The playground shows node repair too, which a cluster turns on with NodeRepair=true.
  set.nodeRepair = true;
  // No kube-scheduler runs here: a pod without a node is pending.
  set.provisioner.pendingRule = controllers::provisioning::PendingRule::Unbound;
  auto controllers = ControllerSet::create(*self->manager_, *self->transport_, std::move(set));
  if (!controllers) {
    return core::fail(controllers.error());
  }
  self->controllers_ = std::move(*controllers);
  if (options.azure) {
    auto azure = AzureControllerSet::create(*self->manager_, core::systemClock(), *options.azure);
    if (!azure) {
      return core::fail(azure.error());
    }
    self->azure_ = std::move(*azure);
  }
  self->agent_ = emulators::kubelet::setupNodeAgent(*self->manager_, self->controllers_->cloud(),
                                                    emulators::kubelet::NodeAgentOptions{});
  self->workloads_ = emulators::kubelet::setupWorkloadControllers(*self->manager_);
  runtime::Manager* manager = self->manager_.get();
  self->thread_ = std::jthread([manager](std::stop_token stop) {
    if (auto ran = manager->run(stop); !ran) {
      core::logError("controllers stopped", {{"error", ran.error()}});
    }
  });
  return self;
}

EmbeddedControllers::~EmbeddedControllers() {
  // Reconciles waiting out a poll window park their operations now, so the manager stops
  // without waiting for them.
  if (azure_) {
    azure_->engine().stop();
  }
  thread_ = {};
}

}  // namespace nodewright::cmd
