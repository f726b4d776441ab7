// InstanceTypeProvider against the EC2 emulator with the full shared catalog: seed 001's
// filter, offerings, prices, unavailable pools and the TTL cache, all through the wire.
#include "cloud/aws/instancetype/provider.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "cloud/aws/instancetype/emulated_ec2.h"
#include "emulators/ec2/spot_prices.h"

namespace nodewright::cloud::aws {
namespace {

using namespace std::chrono_literals;
using api::karpenter::NetworkInterface;

const std::vector<std::string> kZones = {"us-east-1a", "us-east-1b", "us-east-1c"};

NetworkInterface iface(int card, std::string type = "") {
  NetworkInterface n;
  n.networkCardIndex = card;
  n.deviceIndex = 0;
  n.interfaceType = std::move(type);
  return n;
}

const cloud::InstanceType* findType(const cloud::InstanceTypes& types, const std::string& name) {
  for (const auto& t : types.compatible) {
    if (t.name == name) {
      return &t;
    }
  }
  return nullptr;
}

std::optional<std::string> exclusion(const cloud::InstanceTypes& types, const std::string& name) {
  for (const auto& e : types.excluded) {
    if (e.instanceType == name) {
      return e.reason;
    }
  }
  return std::nullopt;
}

const cloud::Offering* findOffering(const cloud::InstanceType& type, const std::string& zone,
                                    const std::string& capacityType) {
  for (const auto& o : type.offerings) {
    if (o.zone == zone && o.capacityType == capacityType) {
      return &o;
    }
  }
  return nullptr;
}

class InstanceTypeProviderTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(ec2_.ok()); }

  cloud::InstanceTypes list(const std::vector<std::string>& zones = kZones, int efa = 0) {
    auto types = provider_.list(nodeClass_, kubelet_, zones, efa);
    EXPECT_TRUE(types) << types.error().message();
    return types ? *types : cloud::InstanceTypes{};
  }

  core::FakeClock clock_;
  testing::EmulatedEc2 ec2_{clock_};
  PricingProvider pricing_{clock_, ec2_.ec2(), nullptr};
  UnavailableOfferings unavailable_{clock_};
  InstanceTypeProvider provider_{clock_, ec2_.ec2(), pricing_, unavailable_};
  api::karpenter::EC2NodeClass nodeClass_;
  std::optional<api::karpenter::KubeletConfiguration> kubelet_;
};

TEST_F(InstanceTypeProviderTest, DescribesEveryCatalogTypeAsCompatibleOrExcluded) {
  const cloud::InstanceTypes types = list();
  EXPECT_EQ(types.compatible.size() + types.excluded.size(), ec2_.catalog().size());
  EXPECT_GT(types.compatible.size(), 1300u);
  // The ones left out are those EC2 describes too little of to run pods on.
  EXPECT_EQ(exclusion(types, "p2.xlarge"),
            "p2.xlarge has no known IPv4 addresses per network interface, so its pod limit is "
            "unknown");
}

// Seed 001: a NodePool allows m5.large and m5.xlarge, and its node class asks for 4 network
// interfaces; only m5.xlarge can carry them.
TEST_F(InstanceTypeProviderTest, FourInterfacesExcludeM5LargeButNotM5Xlarge) {
  nodeClass_.spec.networkInterfaces = {iface(0), iface(0), iface(0), iface(0)};
  const cloud::InstanceTypes types = list();
  EXPECT_EQ(findType(types, "m5.large"), nullptr);
  EXPECT_EQ(exclusion(types, "m5.large"),
            "4 network interfaces on network card 0, m5.large allows 3");
  const cloud::InstanceType* xlarge = findType(types, "m5.xlarge");
  ASSERT_NE(xlarge, nullptr);
  EXPECT_EQ(xlarge->offerings.size(), 6u);  // 3 zones x {on-demand, spot}
  EXPECT_EQ(exclusion(types, "m5.xlarge"), std::nullopt);
}

// spec.cpuOptions.nestedVirtualization: enabled keeps only types whose ProcessorInfo lists
// nested-virtualization; the emulator's catalog (../shared/data) lists it for none, so none is
// left. Disabling it brings them back rather than reusing the cached answer.
TEST_F(InstanceTypeProviderTest, NestedVirtualizationKeepsOnlyTypesThatSupportIt) {
  const size_t all = list().compatible.size();
  nodeClass_.spec.cpuOptions = api::karpenter::CPUOptions{"enabled"};
  cloud::InstanceTypes types = list();
  EXPECT_TRUE(types.compatible.empty());
  EXPECT_EQ(exclusion(types, "m5.large"), "m5.large does not support nested virtualization");
  nodeClass_.spec.cpuOptions->nestedVirtualization = "disabled";
  EXPECT_EQ(list().compatible.size(), all);
}

// EC2 refuses a device index at or past the card's maximum: a primary plus one interface at
// device 3 fits m5.xlarge (4 per card) and not m5.large (3), though two interfaces fit both. The
// result cached for the same list with device 1 must not be reused for device 3.
TEST_F(InstanceTypeProviderTest, ADeviceIndexPastTheCardExcludesTheType) {
  NetworkInterface secondary = iface(0);
  secondary.deviceIndex = 1;
  nodeClass_.spec.networkInterfaces = {iface(0), secondary};
  EXPECT_NE(findType(list(), "m5.large"), nullptr);
  nodeClass_.spec.networkInterfaces[1].deviceIndex = 3;
  const cloud::InstanceTypes types = list();
  EXPECT_EQ(findType(types, "m5.large"), nullptr);
  EXPECT_EQ(exclusion(types, "m5.large"),
            "device index 3 on network card 0, m5.large allows device indexes 0-2");
  EXPECT_NE(findType(types, "m5.xlarge"), nullptr);
}

TEST_F(InstanceTypeProviderTest, EfaInterfaceKeepsOnlyEfaCapableTypes) {
  nodeClass_.spec.networkInterfaces = {iface(0, "efa")};
  const cloud::InstanceTypes types = list();
  ASSERT_FALSE(types.compatible.empty());
  for (const auto& t : types.compatible) {
    const sdk::InstanceTypeInfo* info = provider_.info(t.name);
    ASSERT_NE(info, nullptr) << t.name;
    EXPECT_TRUE(info->efaSupported) << t.name;
    EXPECT_TRUE(t.capacity.contains("vpc.amazonaws.com/efa")) << t.name;
  }
  EXPECT_NE(findType(types, "p4d.24xlarge"), nullptr);
  EXPECT_EQ(exclusion(types, "m5.xlarge"),
            "1 EFA interface requested, m5.xlarge does not support EFA");
}

TEST_F(InstanceTypeProviderTest, SecondCardKeepsOnlyMultiCardTypes) {
  nodeClass_.spec.networkInterfaces = {iface(0), iface(1)};
  const cloud::InstanceTypes types = list();
  ASSERT_FALSE(types.compatible.empty());
  for (const auto& t : types.compatible) {
    EXPECT_GE(provider_.info(t.name)->networkCards.size(), 2u) << t.name;
  }
  EXPECT_NE(findType(types, "p5.48xlarge"), nullptr);
  EXPECT_EQ(exclusion(types, "m5.xlarge"),
            "network card 1 requested, m5.xlarge has 1 network card");
}

TEST_F(InstanceTypeProviderTest, PodEfaRequestKeepsTypesWithEnoughEfaInterfaces) {
  const cloud::InstanceTypes types = list(kZones, 8);
  EXPECT_EQ(exclusion(types, "m5.large"),
            "pods request 8 vpc.amazonaws.com/efa, m5.large does not support EFA");
  EXPECT_EQ(exclusion(types, "p4d.24xlarge"),
            "pods request 8 vpc.amazonaws.com/efa, p4d.24xlarge allows 4");
  EXPECT_NE(findType(types, "p5.48xlarge"), nullptr);
}

TEST_F(InstanceTypeProviderTest, CapacityThroughEc2MatchesKarpenter) {
  const cloud::InstanceTypes types = list();
  for (const auto& [name, pods, memory] :
       std::vector<std::tuple<std::string, int, std::string>>{{"m5.large", 29, "6903Mi"},
                                                              {"m5.xlarge", 58, "14162Mi"},
                                                              {"c5.18xlarge", 737, "127934Mi"}}) {
    const cloud::InstanceType* t = findType(types, name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->capacity.at("pods"), core::Quantity::fromInt(pods)) << name;
    EXPECT_EQ(t->allocatable().at("memory").toString(), memory) << name;
  }
  const cloud::InstanceType* p4d = findType(types, "p4d.24xlarge");
  ASSERT_NE(p4d, nullptr);
  EXPECT_EQ(p4d->capacity.at("nvidia.com/gpu"), core::Quantity::fromInt(8));
  EXPECT_EQ(p4d->labels.at("karpenter.k8s.aws/instance-gpu-name"), "a100");
  EXPECT_EQ(p4d->labels.at("karpenter.k8s.aws/instance-gpu-manufacturer"), "nvidia");
  EXPECT_EQ(p4d->labels.at("topology.kubernetes.io/region"), "us-east-1");
}

// Every accelerator Karpenter v1.14 knows, with its resource and labels, as DescribeInstanceTypes
// gives them (gpuInfo, neuronInfo with coreInfo, inferenceAcceleratorInfo).
TEST_F(InstanceTypeProviderTest, AcceleratorsThroughEc2HaveKarpentersResourcesAndLabels) {
  const cloud::InstanceTypes types = list();
  struct Want {
    std::string type;
    std::map<std::string, int64_t> capacity;
    std::map<std::string, std::string> labels;
  };
  const std::string k = "karpenter.k8s.aws/instance-";
  for (const Want& want :
       std::vector<Want>{{"g4ad.xlarge",
                          {{"amd.com/gpu", 1}},
                          {{k + "gpu-name", "radeon-pro-v520"},
                           {k + "gpu-manufacturer", "amd"},
                           {k + "gpu-count", "1"},
                           {k + "gpu-memory", "8192"}}},
                         {"dl1.24xlarge",
                          {{"habana.ai/gaudi", 8}},
                          {{k + "gpu-name", "gaudi-hl-205"}, {k + "gpu-manufacturer", "habana"}}},
                         {"trn1.32xlarge",
                          {{"aws.amazon.com/neuron", 16}, {"aws.amazon.com/neuroncore", 32}},
                          {{k + "accelerator-name", "trainium"},
                           {k + "accelerator-manufacturer", "aws"},
                           {k + "accelerator-count", "16"}}},
                         {"inf1.6xlarge",
                          {{"aws.amazon.com/neuron", 4}, {"aws.amazon.com/neuroncore", 16}},
                          {{k + "accelerator-name", "inferentia"}, {k + "accelerator-count", "4"}}},
                         {"dl2q.24xlarge",
                          {{"aws.amazon.com/neuron", 0}},
                          {{k + "accelerator-name", "qualcomm-ai100"},
                           {k + "accelerator-manufacturer", "qualcomm"}}}}) {
    SCOPED_TRACE(want.type);
    const cloud::InstanceType* t = findType(types, want.type);
    ASSERT_NE(t, nullptr);
    for (const auto& [resource, count] : want.capacity) {
      auto it = t->capacity.find(resource);
      EXPECT_EQ(it == t->capacity.end() ? 0 : it->second.value(), count) << resource;
    }
    for (const auto& [label, value] : want.labels) {
      auto it = t->labels.find(label);
      ASSERT_NE(it, t->labels.end()) << label;
      EXPECT_EQ(it->second, value) << label;
    }
  }
}

TEST_F(InstanceTypeProviderTest, WindowsNodeClassesExcludeArm64Types) {
  api::karpenter::AMISelectorTerm windows;
  windows.alias = "windows2022@latest";
  nodeClass_.spec.amiSelectorTerms = {windows};
  const cloud::InstanceTypes types = list();
  EXPECT_EQ(findType(types, "m7g.large"), nullptr);
  EXPECT_EQ(exclusion(types, "m7g.large"),
            "m7g.large is arm64, and Windows2022 runs on amd64 only");
  const cloud::InstanceType* m5 = findType(types, "m5.large");
  ASSERT_NE(m5, nullptr);
  EXPECT_EQ(m5->labels.at("kubernetes.io/os"), "windows");
  EXPECT_EQ(m5->labels.at("node.kubernetes.io/windows-build"), "10.0.20348");
}

TEST_F(InstanceTypeProviderTest, OfferingsArePricedPerZoneAndCapacityType) {
  const cloud::InstanceTypes types = list({"us-east-1b"});
  const cloud::InstanceType* t = findType(types, "m5.large");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->offerings.size(), 2u);  // only the asked-for zone
  const cloud::Offering* od = findOffering(*t, "us-east-1b", "on-demand");
  const cloud::Offering* spot = findOffering(*t, "us-east-1b", "spot");
  ASSERT_NE(od, nullptr);
  ASSERT_NE(spot, nullptr);
  EXPECT_DOUBLE_EQ(od->pricePerHour, 0.096);
  auto want =
      emulators::ec2::spotPrice(*ec2_.catalog().find("m5.large"), "us-east-1b", clock_.now());
  ASSERT_TRUE(want);
  EXPECT_DOUBLE_EQ(spot->pricePerHour, *want);
  EXPECT_TRUE(od->available);
  EXPECT_TRUE(spot->available);
}

TEST_F(InstanceTypeProviderTest, TypesOfferedInNoneOfTheZonesAreExcluded) {
  const cloud::InstanceTypes none = list({});
  EXPECT_TRUE(none.compatible.empty());
  EXPECT_EQ(exclusion(none, "m5.large"),
            "m5.large is not offered in the node class's zones (none resolved)");
  const cloud::InstanceTypes elsewhere = list({"eu-west-1a"});
  EXPECT_EQ(exclusion(elsewhere, "m5.large"),
            "m5.large is not offered in the node class's zones (eu-west-1a)");
}

TEST_F(InstanceTypeProviderTest, UnavailablePoolComesBackAfterThreeMinutes) {
  list();
  unavailable_.markUnavailable("m5.large", "us-east-1a", "spot", "InsufficientInstanceCapacity");
  cloud::InstanceTypes types = list();
  const cloud::InstanceType* t = findType(types, "m5.large");
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(findOffering(*t, "us-east-1a", "spot")->available);
  EXPECT_TRUE(findOffering(*t, "us-east-1a", "on-demand")->available);
  EXPECT_TRUE(findOffering(*t, "us-east-1b", "spot")->available);

  clock_.advance(2min);  // still held, from the cached result
  types = list();
  EXPECT_FALSE(findOffering(*findType(types, "m5.large"), "us-east-1a", "spot")->available);

  clock_.advance(1min + 1s);  // expired; nothing new was marked, so the cache must notice
  types = list();
  EXPECT_TRUE(findOffering(*findType(types, "m5.large"), "us-east-1a", "spot")->available);
}

TEST_F(InstanceTypeProviderTest, CachesEc2AnswersForTheTtl) {
  list();
  const int64_t described = ec2_.requests("DescribeInstanceTypes");
  const int64_t offered = ec2_.requests("DescribeInstanceTypeOfferings");
  EXPECT_GT(described, 0);
  EXPECT_GT(offered, 0);

  // Another node class shape, info() and a repeat: all from the cached answers.
  list();
  nodeClass_.spec.networkInterfaces = {iface(0), iface(1)};
  list();
  EXPECT_NE(provider_.info("m5.large"), nullptr);
  clock_.advance(4min + 59s);
  list();
  EXPECT_EQ(ec2_.requests("DescribeInstanceTypes"), described);
  EXPECT_EQ(ec2_.requests("DescribeInstanceTypeOfferings"), offered);

  clock_.advance(1s);  // 5 minutes: asked again
  list();
  EXPECT_EQ(ec2_.requests("DescribeInstanceTypes"), 2 * described);
  EXPECT_EQ(ec2_.requests("DescribeInstanceTypeOfferings"), 2 * offered);
}

TEST_F(InstanceTypeProviderTest, RepeatedCallsGiveTheSameResult) {
  const cloud::InstanceTypes first = list();
  const cloud::InstanceTypes second = list();
  ASSERT_EQ(first.compatible.size(), second.compatible.size());
  for (size_t i = 0; i < first.compatible.size(); ++i) {
    EXPECT_EQ(first.compatible[i].name, second.compatible[i].name);
    EXPECT_EQ(first.compatible[i].labels, second.compatible[i].labels);
    EXPECT_EQ(first.compatible[i].allocatable(), second.compatible[i].allocatable());
  }
}

TEST_F(InstanceTypeProviderTest, SharedAnswersAreReusedAndNeverChangeOnceHandedOut) {
  auto first = provider_.listShared(nodeClass_, kubelet_, kZones);
  ASSERT_TRUE(first) << first.error().message();
  auto again = provider_.listShared(nodeClass_, kubelet_, kZones);
  ASSERT_TRUE(again);
  EXPECT_EQ(first->get(), again->get());  // a hit copies nothing

  unavailable_.markUnavailable("m5.large", "us-east-1a", "spot", "InsufficientInstanceCapacity");
  auto held = provider_.listShared(nodeClass_, kubelet_, kZones);
  ASSERT_TRUE(held);
  EXPECT_NE(held->get(), first->get());
  clock_.advance(3min + 1s);
  auto back = provider_.listShared(nodeClass_, kubelet_, kZones);
  ASSERT_TRUE(back);
  EXPECT_TRUE(findOffering(*findType(**back, "m5.large"), "us-east-1a", "spot")->available);
  // The answer handed out while the pool was held is as it was.
  EXPECT_FALSE(findOffering(*findType(**held, "m5.large"), "us-east-1a", "spot")->available);
}

TEST_F(InstanceTypeProviderTest, KeepsTheLastAnswersWhileARefreshFails) {
  list();
  ec2_.failAll("DescribeInstanceTypes", "InternalError");
  clock_.advance(6min);
  const cloud::InstanceTypes types = list();
  EXPECT_NE(findType(types, "m5.large"), nullptr);
}

TEST_F(InstanceTypeProviderTest, FailsWhenTypesWereNeverDescribed) {
  ec2_.failAll("DescribeInstanceTypes", "UnauthorizedOperation");
  auto types = provider_.list(nodeClass_, kubelet_, kZones);
  ASSERT_FALSE(types);
  EXPECT_TRUE(types.error().message().starts_with("describing instance types: "))
      << types.error().message();
  EXPECT_EQ(provider_.info("m5.large"), nullptr);
}

TEST_F(InstanceTypeProviderTest, KubeletSettingsShapeTheResultAndBadOnesAreInvalid) {
  kubelet_ = api::karpenter::KubeletConfiguration{};
  kubelet_->maxPods = 110;
  EXPECT_EQ(findType(list(), "m5.large")->capacity.at("pods"), core::Quantity::fromInt(110));
  kubelet_->maxPods.reset();
  EXPECT_EQ(findType(list(), "m5.large")->capacity.at("pods"), core::Quantity::fromInt(29));
  kubelet_->systemReserved = {{"cpu", "a lot"}};
  auto bad = provider_.list(nodeClass_, kubelet_, kZones);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), core::Code::Invalid);
  EXPECT_TRUE(bad.error().message().starts_with("spec.kubelet.systemReserved[cpu]"));
}

TEST_F(InstanceTypeProviderTest, InfoDescribesKnownTypesOnly) {
  const sdk::InstanceTypeInfo* info = provider_.info("m5.large");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->maximumNetworkInterfaces, 3);
  EXPECT_EQ(provider_.info("m5.gigantic"), nullptr);
}

}  // namespace
}  // namespace nodewright::cloud::aws
