#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "aws/ec2_client.h"
#include "cloud/aws/cache/unavailable_offerings.h"
#include "cloud/aws/instance/batcher.h"
#include "cloud/aws/launch/plan.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/aws/sdk.h"
#include "cloud/cloud_provider.h"
#include "cloud/instance_type.h"
#include "core/clock.h"
#include "core/error.h"

// EC2 instances for NodeClaims: launched with CreateFleet (Type instant) over the cheapest
// pools the claim allows, looked up and terminated in batches, listed by the cluster's
// ownership tag, and garbage-collected when no NodeClaim knows them.
namespace nodewright::cloud::aws {

// Karpenter's: an instance younger than this may belong to a NodeClaim whose status does not
// name it yet (the launch answer is still being written back).
inline constexpr std::chrono::seconds kDefaultGcGrace{30};

struct InstanceProviderOptions {
  std::string clusterName;
  BatcherOptions describeBatch;
  BatcherOptions terminateBatch;
  // Called with a capacity reservation a reserved launch found full (ReservationCapacityExceeded
  // or another capacity error), so its offerings stop being offered until EC2 is asked again.
  std::function<void(const std::string&)> reservationFull{};
};

// "aws:///us-east-1a/i-0123456789abcdef0".
std::string providerID(const std::string& zone, const std::string& instanceId);
// The instance id of a provider ID; Invalid for any other shape.
core::Result<std::string> parseProviderID(std::string_view providerID);
// The fields of a Machine an instance alone tells (not labels or resources: those come from
// its instance type).
Machine toMachine(const sdk::Instance& instance);

// Thread-safe. Every collaborator must outlive it.
class InstanceProvider {
 public:
  InstanceProvider(sdk::Ec2Client& ec2, LaunchTemplateProvider& templates,
                   UnavailableOfferings& unavailable, const core::Clock& clock,
                   InstanceProviderOptions options);

  // One instance for the claim, or:
  //   InsufficientCapacity  no pool could launch (each pool that answered with a capacity error
  //                         is marked unavailable first, so the next attempt tries others);
  //   Invalid               the node class cannot launch (no subnet in an allowed zone, no AMI
  //                         for any type, a template EC2 would reject);
  //   others                EC2's errors (aws::toCoreError).
  // Idempotent per claim: the fleet's ClientToken comes from the claim, so a retry after a lost
  // answer gets the instance launched before.
  core::Result<sdk::Instance> create(const LaunchRequest& request);

  // NotFound when the instance is unknown or terminated. Batched with concurrent calls.
  core::Result<sdk::Instance> get(const std::string& instanceId);
  // Every instance of this cluster (tag kubernetes.io/cluster/<cluster>=owned, launched by a
  // NodePool) that is not terminated.
  core::Result<std::vector<sdk::Instance>> list();
  // Starts termination; NotFound when the instance is unknown or already terminated. Batched.
  core::Status remove(const std::string& instanceId);

  // Terminates the instances list() finds that no provider ID in `known` names, that launched
  // at least `grace` before `now` and are not already shutting down; returns them.
  core::Result<std::vector<sdk::Instance>> garbageCollect(
      const std::set<std::string>& known, core::TimePoint now,
      std::chrono::seconds grace = kDefaultGcGrace);

  // For tests: how many batches each batcher ran.
  uint64_t describeBatchesForTest() const { return describe_.batchesRunForTest(); }
  size_t describeWaitingForTest() const { return describe_.waitingForTest(); }
  size_t terminateWaitingForTest() const { return terminate_.waitingForTest(); }

 private:
  core::Result<sdk::Instance> launch(const LaunchRequest& request, const LaunchPlan& plan);
  core::Result<sdk::Instance> findLaunched(const api::karpenter::NodeClaim& claim);
  void recordErrors(const sdk::FleetResult& result, const LaunchPlan& plan);

  std::map<std::string, core::Result<sdk::Instance>> describeBatch(
      const std::vector<std::string>& ids);
  std::map<std::string, core::Result<sdk::InstanceStateChange>> terminateBatch(
      const std::vector<std::string>& ids);

  int attempt(const std::string& claimKey) const;
  void setAttempt(const std::string& claimKey, int attempt);
  void forgetAttempts(const std::string& claimKey);

  sdk::Ec2Client& ec2_;
  LaunchTemplateProvider& templates_;
  UnavailableOfferings& unavailable_;
  const core::Clock& clock_;
  const InstanceProviderOptions options_;
  Batcher<sdk::Instance> describe_;
  Batcher<sdk::InstanceStateChange> terminate_;

  mutable std::mutex mu_;
  // Launch attempts that ended with nothing launched, per claim: the next one needs a new
  // ClientToken, since EC2 would replay the failed answer for the old one.
  std::map<std::string, int> attempts_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::cloud::aws
