#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/hashing.h"
#include "cloud/aws/drift/node_class_drift.h"
#include "cloud/aws/instance/instance_provider.h"
#include "cloud/aws/instancetype/provider.h"
#include "cloud/aws/launch/template_provider.h"
#include "cloud/aws/nodeclass/resolver.h"
#include "cloud/cloud_provider.h"

// The AWS CloudProvider: a NodeClaim becomes an EC2 instance of one of the types its
// requirements, requests and node class allow (network interfaces included, seed 001), launched
// from a launch template generated for its node class.
namespace nodewright::cloud::aws {

// The EC2NodeClass of a name; NotFound when there is none. Called on every create and
// instanceTypes, so it should read a cache (the informer's), not the API server.
using NodeClassLookup =
    std::function<core::Result<api::karpenter::EC2NodeClass>(const std::string& name)>;

struct AwsProviders {
  NodeClassResolver& resolver;
  InstanceTypeProvider& instanceTypes;
  LaunchTemplateProvider& launchTemplates;
  InstanceProvider& instances;
};

// Thread-safe; the providers must outlive it.
class AwsCloudProvider final : public CloudProvider {
 public:
  // `hashPolicy` computes the node class hashes claims are stamped with at launch and compared
  // against for drift (api/karpenter/hashing.h).
  AwsCloudProvider(AwsProviders providers, NodeClassLookup nodeClasses,
                   api::karpenter::HashPolicy hashPolicy = api::karpenter::defaultHashPolicy());

  std::string name() const override { return "aws"; }
  // Errors besides the instance provider's: NotFound for a missing node class, Invalid for a
  // node class that is not ready (its Ready condition's message), InsufficientCapacity when no
  // instance type is left to offer (saying why, and how many types the node class excluded).
  // The machine's annotations carry the node class hash (stampNodeClass).
  core::Result<Machine> create(const api::karpenter::NodeClaim& claim) override;
  core::Result<Machine> get(std::string_view providerID) override;
  core::Result<std::vector<Machine>> list() override;
  core::Status remove(std::string_view providerID) override;
  core::Result<InstanceTypes> instanceTypes(const api::karpenter::NodePool& pool) override;
  // The node class checks (drift/node_class_drift.h) against the node class's status as the
  // lookup returns it. The instance comes from what get/list last saw of it, or one (batched)
  // DescribeInstances for it alone. Errors: NotFound for a missing node class or instance,
  // Invalid for a claim with no provider ID; the instance provider's otherwise.
  core::Result<std::vector<DriftCheck>> isDrifted(const api::karpenter::NodeClaim& claim) override;

  // Terminates this cluster's instances that no NodeClaim knows (`known` provider IDs) and
  // that launched more than `grace` ago; returns their machines.
  core::Result<std::vector<Machine>> garbageCollect(const std::set<std::string>& known,
                                                    core::TimePoint now,
                                                    std::chrono::seconds grace = kDefaultGcGrace);

 private:
  struct NodeClassView {
    api::karpenter::EC2NodeClass nodeClass;
    ResolvedNodeClass resolved;
    std::vector<std::string> zones;  // of the resolved subnets, sorted
  };
  core::Result<NodeClassView> nodeClass(const std::string& name);
  // The node class's reservations with what each can take now.
  std::vector<UsableReservation> usableReservations(const ResolvedNodeClass& resolved);
  // The instance's machine, with the labels and resources of its type when the type is known.
  Machine machineOf(const sdk::Instance& instance, const InstanceType* type) const;

  // A node class with its drift context, shared by the checks of its claims until the node
  // class changes (its resourceVersion).
  struct DriftEntry {
    api::karpenter::EC2NodeClass nodeClass;
    NodeClassDriftContext context;  // points into nodeClass
  };
  std::shared_ptr<const DriftEntry> driftEntry(api::karpenter::EC2NodeClass nodeClass);
  core::Result<InstanceFacts> instanceFacts(const std::string& instanceId);
  void remember(const sdk::Instance& instance);

  AwsProviders providers_;
  NodeClassLookup nodeClasses_;
  const api::karpenter::HashPolicy hashPolicy_;

  std::mutex mu_;  // guards the caches; never held across a call to EC2
  // By name; an entry whose node class has no resourceVersion (tests' lookups) is not kept.
  std::map<std::string, std::shared_ptr<const DriftEntry>> driftEntries_;
  // By instance id: what DescribeInstances (get, list, isDrifted) told; list() replaces it, so it
  // holds what EC2 runs.
  std::map<std::string, InstanceFacts> facts_;
  // By instance id: the reservation of a reserved instance being removed, until remove() finds
  // it gone.
  std::map<std::string, std::string> terminating_;
};

}  // namespace nodewright::cloud::aws
