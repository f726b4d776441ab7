#include "cmd/controller_set.h"

#include <algorithm>

#include "cmd/build_info.h"

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"

namespace nodewright::cmd {

using api::karpenter::EC2NodeClass;

core::Result<std::unique_ptr<ControllerSet>> ControllerSet::create(
    runtime::Manager& manager, nodewright::aws::Transport& transport,
    ControllerSetOptions options) {
  // Launches read the node class from the cache the EC2NodeClass controller keeps current.
  const kube::Cache& nodeClasses = manager.informerFor<EC2NodeClass>().cache();
  options.aws.nodeClasses = [&nodeClasses](const std::string& name) -> core::Result<EC2NodeClass> {
    auto found = nodeClasses.get(name);
    if (!found || found->as<EC2NodeClass>() == nullptr) {
      return core::fail(core::Error::notFound("EC2NodeClass " + name + " not found"));
    }
    return *found->as<EC2NodeClass>();
  };
  options.aws.hashPolicy = options.hashPolicy;
  nodewright::aws::JsonClientOptions sqs =
      nodewright::aws::sqsJsonOptions(options.interruption.endpoint, options.aws.region);
  sqs.credentials = options.aws.credentials;
  sqs.retry = options.aws.retry;
  auto stack = cloud::aws::AwsStack::create(manager.clock(), transport, std::move(options.aws));
  if (!stack) {
    return core::fail(stack.error());
  }
  std::unique_ptr<ControllerSet> set(new ControllerSet());
  set->stack_ = std::move(*stack);
  kube::Client& client = manager.client();
  set->nodeClasses_ = std::make_unique<cloud::aws::NodeClassController>(
      client, set->stack_->resolver(), set->stack_->launchTemplates(), &manager.events(),
      options.nodeClasses);
  set->nodeClasses_->setup(manager);
  options.provisioner.hashPolicy = options.hashPolicy;
  options.drift.hashPolicy = options.hashPolicy;
  options.disruption.orchestration.hashPolicy = options.hashPolicy;
  registerBuildInfo(manager.metrics());
  controllers::telemetry::registerCloudProviderMetrics(manager.metrics());
  set->provisioner_ = std::make_unique<controllers::provisioning::Provisioner>(
      client, set->measured(manager, controllers::provisioning::Provisioner::kName),
      manager.clock(), &manager.events(), manager.metrics(), options.provisioner);
  set->provisioner_->setup(manager);
  set->nodeClaims_ = controllers::nodeclaim::setup(
      manager, set->measured(manager, controllers::nodeclaim::LifecycleController::kName),
      options.nodeClaims);
  set->garbageCollector_ = std::make_unique<controllers::garbagecollection::GarbageCollector>(
      client, set->measured(manager, controllers::garbagecollection::GarbageCollector::kName),
      manager.clock(), manager.metrics(), options.garbageCollection);
  set->garbageCollector_->setup(manager);
  set->nodePools_ = controllers::nodepool::setup(manager, {options.hashPolicy});
  set->nodeClassHashes_ = controllers::nodeclass::setup(manager, {options.hashPolicy});
  set->drift_ = std::make_unique<controllers::disruption::DriftController>(
      client, set->measured(manager, controllers::disruption::DriftController::kName),
      manager.clock(), &manager.events(), manager.metrics(), options.drift);
  set->drift_->setup(manager, {&manager.informerFor<EC2NodeClass>()});
  set->disruption_ = std::make_unique<controllers::disruption::DisruptionController>(
      client, set->measured(manager, controllers::disruption::DisruptionController::kName),
      manager.clock(), &manager.events(), manager.metrics(), options.disruption);
  set->disruption_->setup(manager);
  options.staticPools.hashPolicy = options.hashPolicy;
  set->staticPools_ = std::make_unique<controllers::staticpool::StaticController>(
      client, manager.clock(), &manager.events(), manager.metrics(), options.staticPools);
  set->staticPools_->setup(manager);
  if (options.nodeRepair) {
    set->repair_ = std::make_unique<controllers::health::RepairController>(
        client, manager.clock(), &manager.events(), manager.metrics(), options.repair);
    set->repair_->setup(manager);
  }
  set->stateMetrics_ = std::make_unique<controllers::telemetry::StateMetricsController>(
      controllers::telemetry::StateMetricsController::Caches{
          manager.informerFor<api::corev1::Node>().cache(),
          manager.informerFor<api::corev1::Pod>().cache(),
          manager.informerFor<api::karpenter::NodeClaim>().cache(),
          manager.informerFor<api::karpenter::NodePool>().cache()},
      manager.clock(), manager.metrics());
  set->stateMetrics_->setup(manager);
  if (!options.interruption.queue.empty()) {
    set->setupInterruption(manager, transport, std::move(sqs), options.interruption);
  }
  return set;
}

void ControllerSet::setupInterruption(runtime::Manager& manager,
                                      nodewright::aws::Transport& transport,
                                      nodewright::aws::JsonClientOptions sqs,
                                      const InterruptionOptions& options) {
  // One exchange outlasts the long poll, so an empty queue is an answer, not a timeout.
  sqs.attemptTimeout =
      std::max(sqs.attemptTimeout,
               std::chrono::milliseconds(std::chrono::seconds(options.receive.waitSeconds + 10)));
  sqsJson_ =
      std::make_unique<nodewright::aws::JsonClient>(manager.clock(), transport, std::move(sqs));
  sqs_ = std::make_unique<nodewright::aws::SqsClient>(*sqsJson_);
  interruptionQueue_ =
      std::make_unique<cloud::aws::SqsInterruptionQueue>(*sqs_, options.queue, options.receive);
  interruptedOfferings_ =
      std::make_unique<cloud::aws::IceCacheAvailability>(stack_->unavailableOfferings());
  interruption_ = std::make_unique<controllers::interruption::InterruptionController>(
      manager.client(), *interruptionQueue_, interruptedOfferings_.get(), manager.clock(),
      &manager.events(), manager.metrics());
  interruption_->setup(manager);
}

cloud::CloudProvider& ControllerSet::measured(runtime::Manager& manager,
                                              const std::string& controller) {
  measured_.push_back(std::make_unique<controllers::telemetry::MeasuredCloudProvider>(
      stack_->provider(), controller, manager.clock(), manager.metrics()));
  return *measured_.back();
}

ControllerSet::~ControllerSet() = default;

}  // namespace nodewright::cmd
