#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "cloud/aws/launch/template_provider.h"
#include "cloud/aws/nodeclass/resolver.h"
#include "core/error.h"
#include "kube/client.h"
#include "runtime/controller.h"
#include "runtime/events.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// The EC2NodeClass controller, as Karpenter's nodeclass controller: it owns a node class's
// finalizer, its status (the resolved subnets, security groups and AMIs and their conditions)
// and the lifetime of its launch templates. Invariant: a node class carrying our finalizer may
// still have templates in EC2; once the finalizer is gone, none are left and no NodeClaim
// references it.
namespace nodewright::cloud::aws {

inline constexpr const char* kTerminationFinalizer = "karpenter.k8s.aws/termination";
// The event a node class gets while NodeClaims hold its deletion.
inline constexpr const char* kWaitingOnNodeClaims = "WaitingOnNodeClaimTermination";

struct NodeClassControllerOptions {
  // How often a node class is resolved again: the resolver's TTL, so dynamic fields (a subnet
  // tagged later, a new AMI behind an alias) reach status within one period.
  std::chrono::seconds resolveEvery{60};
  // How often a deletion held by NodeClaims looks again (their deletion also enqueues it).
  std::chrono::seconds terminationRecheck{10};
};

// Thread-safe as the runtime uses it (one reconcile per key at a time). `client`, `resolver`,
// `templates` and `events` (may be null: no events) must outlive it.
class NodeClassController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "ec2nodeclass";

  NodeClassController(kube::Client& client, NodeClassResolver& resolver,
                      LaunchTemplateProvider& templates, runtime::EventRecorder* events,
                      NodeClassControllerOptions options = {});

  // runtime::Reconciler
  //   deleting: wait for NodeClaims, delete every template, drop the finalizer;
  //   live: add the finalizer, delete stale templates after a spec change, write status.
  // An EC2 or API error is returned (the key backs off); nothing is written from it.
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Registers the controller with `manager`: it reconciles EC2NodeClasses, and a NodeClaim
  // event enqueues the node class it references while that node class is being deleted, so
  // the last NodeClaim going releases it at once. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager);

 private:
  using EC2NodeClass = api::karpenter::EC2NodeClass;

  runtime::Outcome finalize(const EC2NodeClass& nodeClass, runtime::Context& context);
  core::Result<std::vector<std::string>> referencingClaims(const std::string& nodeClassName);
  // The node class as stored after the update, or nullopt when leadership was lost.
  core::Result<std::optional<EC2NodeClass>> addFinalizer(const EC2NodeClass& nodeClass,
                                                         runtime::Context& context);
  core::Status deleteStaleTemplates(const EC2NodeClass& nodeClass, runtime::Context& context);
  runtime::Outcome writeStatus(const EC2NodeClass& nodeClass, runtime::Context& context);
  void event(const EC2NodeClass& nodeClass, runtime::EventType type, const std::string& reason,
             const std::string& message);

  kube::Typed<EC2NodeClass> nodeClasses_;
  kube::Typed<api::karpenter::NodeClaim> nodeClaims_;
  NodeClassResolver& resolver_;
  LaunchTemplateProvider& templates_;
  runtime::EventRecorder* events_;
  const NodeClassControllerOptions options_;

  std::mutex mu_;
  // The generation whose stale templates were deleted, per node class, so a reconcile retried
  // before its status write lands does not delete what launches made since.
  std::map<std::string, int64_t> cleanedGeneration_;  // GUARDED_BY(mu_)
};

// The spec changed since status was last written: the Ready condition was observed at another
// generation. A node class never resolved (no conditions) has nothing stale.
bool specChangedSinceStatus(const api::karpenter::EC2NodeClass& nodeClass);

// The names of `claims` whose spec.nodeClassRef points at the EC2NodeClass `nodeClassName`,
// sorted.
std::vector<std::string> claimsReferencing(const std::vector<api::karpenter::NodeClaim>& claims,
                                           const std::string& nodeClassName);

}  // namespace nodewright::cloud::aws
