#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_client.h"
#include "aws/ssm_client.h"
#include "cloud/aws/capacityreservation/provider.h"
#include "cloud/aws/nodeclass/lookup.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/aws/nodeclass/ttl_cache.h"
#include "cloud/aws/sdk.h"
#include "core/clock.h"
#include "core/error.h"

// Resolves an EC2NodeClass's selector terms against EC2 and SSM, as Karpenter's subnet,
// security-group and AMI providers do, and computes the status the node class should carry.
namespace nodewright::cloud::aws {

struct ResolverOptions {
  // The cluster's minor version: it picks the EKS images an alias resolves to.
  std::string kubernetesVersion = "1.32";
  // How long a lookup's answer is reused (Karpenter caches these for a minute).
  std::chrono::seconds ttl{60};
};

// Thread-safe. `clock`, `ec2` and `ssm` must outlive it.
//
// Terms are ORed and the fields of one term ANDed. Lookups are cached per selector (the same
// terms in two node classes, or in a class and its interfaces, share one answer) until `ttl`
// passes on the clock or invalidate() is called; errors are not cached.
class NodeClassResolver {
 public:
  NodeClassResolver(const core::Clock& clock, sdk::Ec2Client& ec2, sdk::SsmClient& ssm,
                    ResolverOptions options);

  // The node class resolved, with status (subnets, securityGroups, amis and the conditions
  // SubnetsReady, SecurityGroupsReady, AMIsReady, ValidationSucceeded, Ready) computed against
  // `nodeClass.status`: a condition whose status did not change keeps its lastTransitionTime.
  // Nothing matching a selector is a False condition, not an error; an error means EC2 or SSM
  // could not be asked (throttled, unreachable, refused), and is the client's, wrapped.
  core::Result<ResolvedNodeClass> resolve(const api::karpenter::EC2NodeClass& nodeClass);

  // Forgets every cached answer, e.g. after the node class or the network changed.
  void invalidate();

  // The reservations behind status.capacityReservations, and how many instances each can take.
  CapacityReservationProvider& capacityReservations() { return reservations_; }

  // The available group spec.placementGroupSelector names (nodeclass::findPlacementGroup),
  // cached like the other lookups; nullopt without a selector or when EC2 has no such group.
  core::Result<std::optional<sdk::PlacementGroup>> placementGroup(
      const api::karpenter::PlacementGroupSelector& selector);

 private:
  core::Result<std::vector<sdk::Subnet>> subnets(
      const std::vector<api::karpenter::SubnetSelectorTerm>& terms);
  core::Result<std::vector<sdk::SecurityGroup>> securityGroups(
      const std::vector<api::karpenter::SecurityGroupSelectorTerm>& terms);
  core::Result<nodeclass::ImageSearch> images(
      const std::vector<api::karpenter::AMISelectorTerm>& terms);
  std::chrono::steady_clock::time_point expiry() const;

  const core::Clock& clock_;
  sdk::Ec2Client& ec2_;
  sdk::SsmClient& ssm_;
  const ResolverOptions options_;

  std::mutex mu_;  // guards the caches; never held across a call to EC2 or SSM
  nodeclass::TtlCache<std::vector<sdk::Subnet>> subnetCache_;
  nodeclass::TtlCache<std::vector<sdk::SecurityGroup>> groupCache_;
  nodeclass::TtlCache<nodeclass::ImageSearch> imageCache_;
  nodeclass::TtlCache<std::optional<sdk::PlacementGroup>> placementGroupCache_;
  CapacityReservationProvider reservations_;
};

}  // namespace nodewright::cloud::aws
