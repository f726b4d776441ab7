#pragma once

#include <memory>
#include <string>

#include "aws/json_client.h"
#include "aws/sqs_client.h"
#include "aws/transport.h"
#include "cloud/aws/controllers/nodeclass_controller.h"
#include "cloud/aws/interruption/sqs_queue.h"
#include "cloud/aws/stack.h"
#include "controllers/disruption/controller.h"
#include "controllers/disruption/drift_controller.h"
#include "controllers/garbagecollection/garbage_collector.h"
#include "controllers/health/controller.h"
#include "controllers/interruption/controller.h"
#include "controllers/nodeclaim/controllers.h"
#include "controllers/nodeclass/controllers.h"
#include "controllers/nodepool/controllers.h"
#include "controllers/provisioning/provisioner.h"
#include "controllers/staticpool/static_controller.h"
#include "controllers/telemetry/cloud_metrics.h"
#include "controllers/telemetry/state_metrics.h"
#include "core/error.h"
#include "kube/client.h"
#include "lro/engine.h"
#include "runtime/manager.h"

// The Karpenter controllers for AWS on one manager: the EC2NodeClass controller, the
// provisioner, the NodeClaim lifecycle and termination, garbage collection, drift and
// disruption, node repair, and (with a queue) interruption, all over one AwsStack. `nodewright controller` runs
// it against any cluster; `nodewright up` runs it against the embedded API server and the EC2
// emulator.
namespace nodewright::cmd {

// Interruption handling (issue 26): off while `queue` is empty.
struct InterruptionOptions {
  std::string queue;     // the SQS queue's name
  std::string endpoint;  // absolute SQS endpoint (resolveSqsEndpoint)
  nodewright::aws::ReceiveOptions receive;
};

struct ControllerSetOptions {
  cloud::aws::AwsStackOptions aws;  // nodeClasses is filled in from the manager's cache
  cloud::aws::NodeClassControllerOptions nodeClasses;
  controllers::provisioning::ProvisionerOptions provisioner;
  controllers::garbagecollection::GarbageCollectorOptions garbageCollection;
  controllers::nodeclaim::Options nodeClaims;
  controllers::disruption::DriftOptions drift;
  controllers::disruption::DisruptionOptions disruption;
  controllers::staticpool::Options staticPools;
  InterruptionOptions interruption;
  // Node auto-repair: upstream's NodeRepair feature gate, off by default as upstream
  // (`nodewright up` turns it on).
  bool nodeRepair = false;
  controllers::health::Options repair;
  // The futures engine's timeouts from the --azure-* flags. Validated now; the CAPZ controllers
  // (issue 10) are their first user.
  lro::EngineOptions lro;
  // How drift hashes are computed; every controller that stamps or compares them gets it.
  api::karpenter::HashPolicy hashPolicy = api::karpenter::defaultHashPolicy();
};

class ControllerSet {
 public:
  // Builds the stack and registers every controller with `manager` (before it runs).
  // `transport` and the manager's client and clock must outlive the set.
  // Also registers Karpenter's metric families on the manager's registry and serves the gauges
  // derived from cluster state (controllers/telemetry).
  static core::Result<std::unique_ptr<ControllerSet>> create(runtime::Manager& manager,
                                                             nodewright::aws::Transport& transport,
                                                             ControllerSetOptions options);
  ~ControllerSet();

  cloud::aws::AwsStack& stack() { return *stack_; }
  cloud::CloudProvider& cloud() { return stack_->provider(); }
  controllers::provisioning::Provisioner& provisioner() { return *provisioner_; }

 private:
  ControllerSet() = default;
  // The provider wrapped for `controller`; lives as long as the set.
  cloud::CloudProvider& measured(runtime::Manager& manager, const std::string& controller);
  // The SQS client, the queue and the controller over them; `sqs` is the stack's credentials,
  // retries and region for SQS.
  void setupInterruption(runtime::Manager& manager, nodewright::aws::Transport& transport,
                         nodewright::aws::JsonClientOptions sqs,
                         const InterruptionOptions& options);

  std::unique_ptr<cloud::aws::AwsStack> stack_;
  // The provider as each controller sees it: timed and counted under that controller's name.
  std::vector<std::unique_ptr<controllers::telemetry::MeasuredCloudProvider>> measured_;
  std::unique_ptr<controllers::telemetry::StateMetricsController> stateMetrics_;
  std::unique_ptr<cloud::aws::NodeClassController> nodeClasses_;
  std::unique_ptr<controllers::provisioning::Provisioner> provisioner_;
  std::unique_ptr<controllers::garbagecollection::GarbageCollector> garbageCollector_;
  std::unique_ptr<controllers::nodeclaim::Controllers> nodeClaims_;
  std::unique_ptr<controllers::nodepool::Controllers> nodePools_;
  std::unique_ptr<controllers::nodeclass::Controllers> nodeClassHashes_;
  std::unique_ptr<controllers::disruption::DriftController> drift_;
  std::unique_ptr<controllers::disruption::DisruptionController> disruption_;
  std::unique_ptr<controllers::staticpool::StaticController> staticPools_;
  std::unique_ptr<controllers::health::RepairController> repair_;  // null while off
  // Interruption: all null while it is off. Declared in construction order.
  std::unique_ptr<nodewright::aws::JsonClient> sqsJson_;
  std::unique_ptr<nodewright::aws::SqsClient> sqs_;
  std::unique_ptr<cloud::aws::SqsInterruptionQueue> interruptionQueue_;
  std::unique_ptr<cloud::aws::IceCacheAvailability> interruptedOfferings_;
  std::unique_ptr<controllers::interruption::InterruptionController> interruption_;
};

}  // namespace nodewright::cmd
