#pragma once

#include <memory>
#include <string>

#include "aws/transport.h"
#include "cloud/aws/controllers/nodeclass_controller.h"
#include "cloud/aws/stack.h"
#include "controllers/garbagecollection/garbage_collector.h"
#include "controllers/nodeclaim/controllers.h"
#include "controllers/provisioning/provisioner.h"
#include "core/error.h"
#include "kube/client.h"
#include "runtime/manager.h"

// The Karpenter controllers for AWS on one manager: the EC2NodeClass controller, the
// provisioner, the NodeClaim lifecycle and termination, and garbage collection, all over one
// AwsStack. `nodewright controller` runs it against any cluster; `nodewright up` runs it against
// the embedded API server and the EC2 emulator.
namespace nodewright::cmd {

struct ControllerSetOptions {
  cloud::aws::AwsStackOptions aws;  // nodeClasses is filled in from the manager's cache
  controllers::provisioning::ProvisionerOptions provisioner;
  controllers::garbagecollection::GarbageCollectorOptions garbageCollection;
  controllers::nodeclaim::Options nodeClaims;
};

class ControllerSet {
 public:
  // Builds the stack and registers every controller with `manager` (before it runs).
  // `transport` and the manager's client and clock must outlive the set.
  static core::Result<std::unique_ptr<ControllerSet>> create(runtime::Manager& manager,
                                                             nodewright::aws::Transport& transport,
                                                             ControllerSetOptions options);
  ~ControllerSet();

  cloud::aws::AwsStack& stack() { return *stack_; }
  cloud::CloudProvider& cloud() { return stack_->provider(); }
  controllers::provisioning::Provisioner& provisioner() { return *provisioner_; }

 private:
  ControllerSet() = default;

  std::unique_ptr<cloud::aws::AwsStack> stack_;
  std::unique_ptr<cloud::aws::NodeClassController> nodeClasses_;
  std::unique_ptr<controllers::provisioning::Provisioner> provisioner_;
  std::unique_ptr<controllers::garbagecollection::GarbageCollector> garbageCollector_;
  std::unique_ptr<controllers::nodeclaim::Controllers> nodeClaims_;
};

}  // namespace nodewright::cmd
