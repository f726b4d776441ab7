// Fleet launches against the EC2 emulator: the cheapest pool, spot vs on-demand, fallback on
// insufficient capacity, one instance per NodeClaim however often it is retried, and one
// LaunchTemplateConfig per distinct template.
#include "cloud/aws/instance/instance_provider.h"

#include <gtest/gtest.h>

#include <set>

#include "api/core/validation.h"

#include "cloud/aws/instance/instance_fixture.h"
#include "cloud/aws/launch/plan.h"

namespace nodewright::cloud::aws {
namespace {

using InstanceProviderTest = testing::InstanceProviderFixture;

TEST_F(InstanceProviderTest, LaunchesTheCheapestPoolAndTagsTheInstance) {
  auto instance = launch(claim("general-a"));
  ASSERT_TRUE(instance) << instance.error().message();
  EXPECT_EQ(instance->instanceType, "m5.large");
  EXPECT_EQ(instance->availabilityZone, "us-east-1a");
  EXPECT_EQ(instance->lifecycle, "");
  // Both types in every zone were offered, cheapest first, on-demand at the lowest price.
  EXPECT_EQ(lastOverrides(),
            (std::vector<std::string>{"m5.large/us-east-1a", "m5.large/us-east-1b",
                                      "m5.large/us-east-1c", "m5.xlarge/us-east-1a",
                                      "m5.xlarge/us-east-1b", "m5.xlarge/us-east-1c"}));
  EXPECT_EQ(lastFleetParam("OnDemandOptions.AllocationStrategy"), "lowest-price");
  EXPECT_EQ(lastFleetParam("TargetCapacitySpecification.DefaultTargetCapacityType"), "on-demand");
  EXPECT_EQ(lastFleetParam("ClientToken"), "uid-general-a");

  auto described = instances_->get(instance->instanceId);
  ASSERT_TRUE(described) << described.error().message();
  EXPECT_EQ(described->imageId, resolved_.images.at(0).id);
  const sdk::Tags& tags = described->tags;
  EXPECT_EQ(tags.at("karpenter.sh/nodepool"), "general");
  EXPECT_EQ(tags.at("karpenter.sh/nodeclaim"), "general-a");
  EXPECT_EQ(tags.at("karpenter.k8s.aws/ec2nodeclass"), "default");
  EXPECT_EQ(tags.at("kubernetes.io/cluster/nodewright"), "owned");
  EXPECT_EQ(tags.at("eks:eks-cluster-name"), "nodewright");
  EXPECT_EQ(tags.at("Name"), "general-a");
  EXPECT_EQ(tags.at("team"), "storage");

  const Machine m = toMachine(*described);
  EXPECT_EQ(m.providerID, "aws:///us-east-1a/" + instance->instanceId);
  EXPECT_EQ(m.nodeClaimName, "general-a");
  EXPECT_EQ(m.nodePoolName, "general");
  EXPECT_EQ(m.capacityType, "on-demand");
}

TEST_F(InstanceProviderTest, SpotWhenAllowedUsesPriceCapacityOptimized) {
  auto instance = launch(claim("general-s", {"spot", "on-demand"}));
  ASSERT_TRUE(instance) << instance.error().message();
  EXPECT_EQ(instance->lifecycle, "spot");
  EXPECT_EQ(lastFleetParam("SpotOptions.AllocationStrategy"), "price-capacity-optimized");
  EXPECT_EQ(lastFleetParam("TargetCapacitySpecification.DefaultTargetCapacityType"), "spot");
  EXPECT_EQ(toMachine(*instance).capacityType, "spot");
}

TEST_F(InstanceProviderTest, FallsBackToAnotherPoolAndRemembersTheEmptyOne) {
  peer_.putFaults(R"({"capacity": [
      {"instanceType": "m5.large", "zone": "us-east-1a", "capacityType": "on-demand"}]})");
  auto first = launch(claim("general-a"));
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_EQ(first->instanceType, "m5.large");
  EXPECT_EQ(first->availabilityZone, "us-east-1b");
  EXPECT_TRUE(unavailable_.isUnavailable("m5.large", "us-east-1a", "on-demand"));

  // The next launch does not offer the empty pool at all.
  auto second = launch(claim("general-b"));
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(lastOverrides(),
            (std::vector<std::string>{"m5.large/us-east-1b", "m5.large/us-east-1c",
                                      "m5.xlarge/us-east-1a", "m5.xlarge/us-east-1b",
                                      "m5.xlarge/us-east-1c"}));
}

TEST_F(InstanceProviderTest, NoCapacityAnywhereIsInsufficientCapacityThenRetriesWithANewToken) {
  peer_.putFaults(R"({"capacity": [{"capacityType": "on-demand"}]})");
  const auto c = claim("general-a");
  auto failed = launch(c);
  ASSERT_FALSE(failed);
  EXPECT_TRUE(failed.error().is(core::Code::InsufficientCapacity)) << failed.error().message();
  EXPECT_NE(failed.error().message().find("InsufficientInstanceCapacity m5.xlarge"),
            std::string::npos)
      << failed.error().message();
  for (const char* type : {"m5.large", "m5.xlarge"}) {
    for (const char* zone : {"us-east-1a", "us-east-1b", "us-east-1c"}) {
      EXPECT_TRUE(unavailable_.isUnavailable(type, zone, "on-demand")) << type << " " << zone;
    }
  }
  // While every pool is marked, nothing is sent at all.
  auto marked = launch(c);
  ASSERT_FALSE(marked);
  EXPECT_TRUE(marked.error().is(core::Code::InsufficientCapacity));
  EXPECT_EQ(peer_.sentRequests("CreateFleet").size(), 1u);

  // Capacity is back and the marks expired: the retry launches, under a token of its own (EC2
  // would replay the failed answer for the first one).
  peer_.putFaults("{}");
  clock_.advance(std::chrono::minutes(3));
  auto launched = launch(c);
  ASSERT_TRUE(launched) << launched.error().message();
  EXPECT_EQ(peer_.creates("uid-general-a"), 1);
  EXPECT_EQ(peer_.creates("uid-general-a-1"), 1);
  EXPECT_EQ(emulators::testing::liveCount(peer_.stats(), "instance"), 1);
}

TEST_F(InstanceProviderTest, SameNodeClaimTwiceIsOneInstance) {
  const auto c = claim("general-a");
  auto first = launch(c);
  ASSERT_TRUE(first) << first.error().message();
  auto again = launch(c);  // the first answer was lost, say
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(again->instanceId, first->instanceId);
  // A restarted controller (no memory of attempts) gets the same instance too.
  auto restarted = provider(immediate());
  auto third = restarted->create({c, nodeClass_, resolved_, testing::pointers(types_)});
  ASSERT_TRUE(third) << third.error().message();
  EXPECT_EQ(third->instanceId, first->instanceId);

  EXPECT_EQ(peer_.sentRequests("CreateFleet").size(), 3u);
  EXPECT_EQ(peer_.creates("uid-general-a"), 1);
  EXPECT_EQ(emulators::testing::liveCount(peer_.stats(), "instance"), 1);
  EXPECT_TRUE(peer_.stats()["duplicateClientTokens"].empty());
}

TEST_F(InstanceProviderTest, OneLaunchTemplateConfigPerArchitectureAndMaxPods) {
  resolved_.images.push_back(
      peer_.image("amazon-eks-node-al2023-arm64-standard-1.31-v20241115", "arm64"));
  InstanceType graviton = testing::instanceType("m6g.large", 0.077, 29);
  graviton.labels["kubernetes.io/arch"] = "arm64";
  types_.insert(types_.begin(), graviton);
  auto instance = launch(claim("general-a"));
  ASSERT_TRUE(instance) << instance.error().message();
  EXPECT_EQ(instance->instanceType, "m6g.large");
  EXPECT_EQ(instance->imageId, resolved_.images.at(1).id);
  const auto templates =
      peer_.sent("CreateFleet",
                 R"(LaunchTemplateConfigs\.\d+\.LaunchTemplateSpecification\.LaunchTemplateName)");
  // arm64 with 29 pods, amd64 with 29 (m5.large) and with 58 (m5.xlarge): the user data
  // registers each with its own max pods, as Karpenter's does.
  ASSERT_EQ(templates.size(), 3u);
  EXPECT_EQ(std::set<std::string>(templates.begin(), templates.end()).size(), 3u);
  EXPECT_EQ(lastOverrides(),
            (std::vector<std::string>{
                "m6g.large/us-east-1a", "m6g.large/us-east-1b", "m6g.large/us-east-1c",
                "m5.large/us-east-1a", "m5.large/us-east-1b", "m5.large/us-east-1c",
                "m5.xlarge/us-east-1a", "m5.xlarge/us-east-1b", "m5.xlarge/us-east-1c"}));
  EXPECT_EQ(peer_.sentRequests("CreateLaunchTemplate").size(), 3u);
}

TEST_F(InstanceProviderTest, KubeletMaxPodsMakesOneTemplateForAllSizes) {
  api::karpenter::KubeletConfiguration kubelet;
  kubelet.maxPods = 110;
  nodeClass_.spec.kubelet = kubelet;
  auto instance = launch(claim("general-a"));
  ASSERT_TRUE(instance) << instance.error().message();
  EXPECT_EQ(peer_.sentRequests("CreateLaunchTemplate").size(), 1u);
  EXPECT_EQ(
      peer_
          .sent("CreateFleet",
                R"(LaunchTemplateConfigs\.\d+\.LaunchTemplateSpecification\.LaunchTemplateName)")
          .size(),
      1u);
}

TEST_F(InstanceProviderTest, EfaPodsGetTemplatesWithEfaInterfaces) {
  for (InstanceType& t : types_) {
    t.capacity["vpc.amazonaws.com/efa"] = core::Quantity::fromInt(t.name == "m5.large" ? 1 : 2);
  }
  auto c = claim("general-a");
  c.spec.resources.requests["vpc.amazonaws.com/efa"] = core::Quantity::fromInt(1);
  // Planning alone shows it: one template per EFA count, each with that many interfaces. (The
  // launch itself fails: m5 has no EFA, which the compatibility filter keeps from happening.)
  (void)launch(c);
  const auto requests = peer_.sentRequests("CreateLaunchTemplate");
  ASSERT_EQ(requests.size(), 2u);
  std::vector<size_t> efaInterfaces;
  for (const auto& r : requests) {
    size_t n = 0;
    for (const auto& [k, v] : r) {
      n += k.ends_with(".InterfaceType") && v == "efa" ? 1 : 0;
    }
    efaInterfaces.push_back(n);
  }
  std::sort(efaInterfaces.begin(), efaInterfaces.end());
  EXPECT_EQ(efaInterfaces, (std::vector<size_t>{1, 2}));
}

// As Karpenter v1.14, every node registers with karpenter.sh/unregistered:NoExecute through its
// user data, once, whether or not the claim lists it among its startup taints.
TEST_F(InstanceProviderTest, UserDataRegistersTheUnregisteredTaintOnce) {
  const auto registrations = [this] {
    std::vector<size_t> counts;
    for (const sdk::ParamPairs& r : peer_.sentRequests("CreateLaunchTemplate")) {
      for (const auto& [k, v] : r) {
        if (k != "LaunchTemplateData.UserData") {
          continue;
        }
        const auto decoded = api::corev1::decodeBase64(v);
        EXPECT_FALSE(decoded.errorOffset);
        size_t n = 0;
        const std::string taint = "- effect: NoExecute\n          key: karpenter.sh/unregistered\n";
        for (size_t at = decoded.bytes.find(taint); at != std::string::npos;
             at = decoded.bytes.find(taint, at + 1)) {
          ++n;
        }
        counts.push_back(n);
      }
    }
    return counts;
  };
  nodeClass_.spec.kubelet = api::karpenter::KubeletConfiguration{};
  nodeClass_.spec.kubelet->maxPods = 110;  // one template per launch
  ASSERT_TRUE(launch(claim("general-a")));
  EXPECT_EQ(registrations(), std::vector<size_t>{1});

  auto c = claim("general-b");
  c.spec.startupTaints.push_back({"karpenter.sh/unregistered", "", "NoExecute", std::nullopt});
  c.spec.taints.push_back({"team", "a", "NoSchedule", std::nullopt});
  ASSERT_TRUE(launch(c));
  EXPECT_EQ(registrations(), (std::vector<size_t>{1, 1}));
}

// As Karpenter v1.14's getTenancyType: default unless the claim's instance-tenancy requirements
// rule it out, then dedicated.
TEST(LaunchTenancy, DefaultFirstThenDedicated) {
  api::karpenter::NodeClaim c;
  EXPECT_EQ(launchTenancy(c), "default");
  c.spec.requirements = {
      {"karpenter.k8s.aws/instance-tenancy", "In", {"dedicated", "default"}, {}}};
  EXPECT_EQ(launchTenancy(c), "default");
  c.spec.requirements = {{"karpenter.k8s.aws/instance-tenancy", "In", {"dedicated"}, {}}};
  EXPECT_EQ(launchTenancy(c), "dedicated");
  c.spec.requirements = {{"karpenter.k8s.aws/instance-tenancy", "NotIn", {"default"}, {}}};
  EXPECT_EQ(launchTenancy(c), "dedicated");
}

// A claim that asks for dedicated tenancy launches from a template whose Placement says so; EC2
// (the emulator) runs the instance dedicated, DescribeInstances reports it, and the machine
// carries karpenter.k8s.aws/instance-tenancy as Karpenter's NodeClaims do.
TEST_F(InstanceProviderTest, DedicatedTenancyReachesTheTemplateAndTheInstance) {
  const auto sentTenancies = [this] {
    std::vector<std::string> out;
    for (const sdk::ParamPairs& r : peer_.sentRequests("CreateLaunchTemplate")) {
      for (const auto& [k, v] : r) {
        if (k == "LaunchTemplateData.Placement.Tenancy") {
          out.push_back(v);
        }
      }
    }
    return out;
  };
  nodeClass_.spec.kubelet = api::karpenter::KubeletConfiguration{};
  nodeClass_.spec.kubelet->maxPods = 110;  // one template per launch
  auto shared = launch(claim("general-a"));
  ASSERT_TRUE(shared) << shared.error().message();
  auto c = claim("general-d");
  c.spec.requirements.push_back({"karpenter.k8s.aws/instance-tenancy", "In", {"dedicated"}, {}});
  auto dedicated = launch(c);
  ASSERT_TRUE(dedicated) << dedicated.error().message();
  EXPECT_EQ(sentTenancies(), (std::vector<std::string>{"default", "dedicated"}));
  EXPECT_EQ(dedicated->tenancy, "dedicated");
  EXPECT_EQ(toMachine(*dedicated).labels.at("karpenter.k8s.aws/instance-tenancy"), "dedicated");

  auto described = instances_->get(dedicated->instanceId);
  ASSERT_TRUE(described) << described.error().message();
  EXPECT_EQ(described->tenancy, "dedicated");
  EXPECT_EQ(toMachine(*described).labels.at("karpenter.k8s.aws/instance-tenancy"), "dedicated");
  described = instances_->get(shared->instanceId);
  ASSERT_TRUE(described) << described.error().message();
  EXPECT_EQ(described->tenancy, "default");
  EXPECT_EQ(toMachine(*described).labels.at("karpenter.k8s.aws/instance-tenancy"), "default");
}

TEST_F(InstanceProviderTest, NoSubnetInAllowedZonesIsInvalid) {
  auto c = claim("general-a");
  c.spec.requirements.push_back({"topology.kubernetes.io/zone", "In", {"us-east-1z"}, {}});
  auto failed = launch(c);
  ASSERT_FALSE(failed);
  EXPECT_TRUE(failed.error().is(core::Code::Invalid));
  EXPECT_TRUE(peer_.sentRequests("CreateFleet").empty());
}

TEST(ProviderIdTest, RoundTripsAndRejectsOtherShapes) {
  EXPECT_EQ(providerID("us-east-1a", "i-0123"), "aws:///us-east-1a/i-0123");
  EXPECT_EQ(parseProviderID("aws:///us-east-1a/i-0123"), "i-0123");
  for (const char* bad : {"", "aws:///us-east-1a/", "gce://p/z/i-1", "aws:///us-east-1a/vol-1"}) {
    auto parsed = parseProviderID(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_TRUE(parsed.error().is(core::Code::Invalid));
  }
}

}  // namespace
}  // namespace nodewright::cloud::aws
