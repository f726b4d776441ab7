// What the resolver remembers: lookups for a minute on the clock (counted by the emulator's
// admin stats), and each condition's lastTransitionTime across resolves.
#include "cloud/aws/nodeclass/resolver.h"

#include <gtest/gtest.h>

#include "cloud/aws/nodeclass/emulated_peer.h"
#include "cloud/aws/nodeclass/expect.h"
#include "cloud/aws/nodeclass/status.h"

namespace nodewright::cloud::aws {
namespace {

using namespace testing;
using namespace std::chrono_literals;

class NodeClassResolverCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    peer_ = std::make_unique<EmulatedPeer>(clock_, emulators::testing::fastOptions());
    ASSERT_TRUE(peer_->ok());
    resolver_ = std::make_unique<NodeClassResolver>(
        clock_, peer_->ec2(), peer_->ssm(), ResolverOptions{"1.32", std::chrono::minutes(1)});
  }

  ResolvedNodeClass resolve(const api::karpenter::EC2NodeClass& nc) {
    auto r = resolver_->resolve(nc);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : ResolvedNodeClass{};
  }

  core::FakeClock clock_;
  std::unique_ptr<EmulatedPeer> peer_;
  std::unique_ptr<NodeClassResolver> resolver_;
};

TEST_F(NodeClassResolverCacheTest, ASecondResolveWithinTheTtlMakesNoCalls) {
  const auto nc = discoveryNodeClass();
  ResolvedNodeClass first = resolve(nc);
  const int64_t calls = peer_->resolverRequests();
  // Subnets, groups, five SSM parameters and one DescribeImages.
  EXPECT_EQ(calls, 8);
  clock_.advance(59s);
  ResolvedNodeClass second = resolve(nc);
  EXPECT_EQ(peer_->resolverRequests(), calls);
  EXPECT_EQ(subnetIds(second.subnets), subnetIds(first.subnets));
  EXPECT_EQ(imageIds(second.images), imageIds(first.images));

  clock_.advance(2s);  // past the minute
  resolve(nc);
  EXPECT_EQ(peer_->resolverRequests(), 2 * calls);
}

TEST_F(NodeClassResolverCacheTest, SharesLookupsBetweenSelectorsAndForgetsOnInvalidate) {
  auto nc = discoveryNodeClass();
  resolve(nc);
  const int64_t subnets = peer_->requests("DescribeSubnets");
  // An interface with the class's own terms, and another class with them: no new lookups.
  api::karpenter::NetworkInterface ni;
  ni.subnetSelectorTerms = nc.spec.subnetSelectorTerms;
  nc.spec.networkInterfaces = {ni};
  nc.metadata.name = "other";
  resolve(nc);
  EXPECT_EQ(peer_->requests("DescribeSubnets"), subnets);
  // Different terms are a different lookup.
  nc.spec.networkInterfaces[0].subnetSelectorTerms = {{{}, kSubnetB}};
  resolve(nc);
  EXPECT_EQ(peer_->requests("DescribeSubnets"), subnets + 1);

  resolver_->invalidate();
  resolve(nc);
  EXPECT_EQ(peer_->requests("DescribeSubnets"), subnets + 3);
}

TEST_F(NodeClassResolverCacheTest, ErrorsAreNotCached) {
  peer_->putFaults(R"({"throttling": false, "errors": {"DescribeSubnets":
                       [{"code": "InternalError", "probability": 1}]}})");
  EXPECT_FALSE(resolver_->resolve(discoveryNodeClass()));
  peer_->putFaults(R"({"throttling": false})");
  ResolvedNodeClass r = resolve(discoveryNodeClass());
  EXPECT_EQ(r.subnets.size(), 3u);
}

TEST_F(NodeClassResolverCacheTest, KeepsLastTransitionTimeWhileAConditionsStatusHolds) {
  auto nc = discoveryNodeClass();
  const core::Time created(std::chrono::floor<std::chrono::seconds>(clock_.now()));
  nc.status = resolve(nc).status;

  clock_.advance(10min);  // past the TTL: everything is looked up again, and matches again
  nc.metadata.generation = 2;
  ResolvedNodeClass again = resolve(nc);
  for (const api::Condition& c : again.status.conditions) {
    EXPECT_EQ(c.lastTransitionTime, created) << c.type;
    EXPECT_EQ(c.observedGeneration, 2) << c.type;
  }

  // Subnets stop matching: SubnetsReady, ValidationSucceeded and Ready change now, the others
  // keep their time.
  nc.status = again.status;
  clock_.advance(1min);
  nc.spec.subnetSelectorTerms = {{{{"karpenter.sh/discovery", "nobody"}}, ""}};
  ResolvedNodeClass broken = resolve(nc);
  const core::Time now(clock_.now());
  EXPECT_EQ(condition(broken, nodeclass::kSubnetsReady).lastTransitionTime, now);
  EXPECT_EQ(condition(broken, nodeclass::kValidationSucceeded).lastTransitionTime, now);
  EXPECT_EQ(condition(broken, nodeclass::kReady).lastTransitionTime, now);
  EXPECT_EQ(condition(broken, nodeclass::kSecurityGroupsReady).lastTransitionTime, created);
  EXPECT_EQ(condition(broken, nodeclass::kAMIsReady).lastTransitionTime, created);

  // Still broken a minute later, with another message: the time stays.
  nc.status = broken.status;
  clock_.advance(1min);
  nc.spec.subnetSelectorTerms = {{{{"karpenter.sh/discovery", "still-nobody"}}, ""}};
  EXPECT_EQ(condition(resolve(nc), nodeclass::kSubnetsReady).lastTransitionTime, now);
}

TEST_F(NodeClassResolverCacheTest, KeepsTheInstanceProfileOfTheStatus) {
  auto nc = discoveryNodeClass();
  nc.status.instanceProfile = "nodewright-profile";
  EXPECT_EQ(resolve(nc).status.instanceProfile, "nodewright-profile");
}

}  // namespace
}  // namespace nodewright::cloud::aws
