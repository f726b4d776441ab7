// Instance types as Karpenter computes them: labels, capacity, overheads and allocatable, on
// the facts of real types from the shared catalog.
#include "cloud/aws/instancetype/types.h"

#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cloud/aws/instancetype/catalog_info.h"
#include "cloud/aws/nodeclass/resolved.h"

namespace nodewright::cloud::aws {
namespace {

using testing::catalogInfo;

core::Quantity q(const char* text) {
  return *core::Quantity::parse(text);
}

class InstanceTypeBuilderTest : public ::testing::Test {
 protected:
  cloud::InstanceType build(const std::string& name, InstanceTypeSettings settings = {}) {
    auto builder = InstanceTypeBuilder::create(std::move(settings));
    EXPECT_TRUE(builder) << builder.error().message();
    const sdk::InstanceTypeInfo info = catalogInfo(name);
    EXPECT_EQ(info.instanceType, name) << "not in the shared catalog";
    auto type = builder->build(info);
    EXPECT_TRUE(type) << type.error().message();
    return type ? *type : cloud::InstanceType{};
  }

  static InstanceTypeSettings withKubelet(api::karpenter::KubeletConfiguration kubelet,
                                          std::string family = "") {
    InstanceTypeSettings s;
    s.family = std::move(family);
    s.kubelet = std::move(kubelet);
    return s;
  }
};

TEST_F(InstanceTypeBuilderTest, MaxPodsAreEniLimited) {
  EXPECT_EQ(build("m5.large").capacity.at("pods"), q("29"));
  EXPECT_EQ(build("m5.xlarge").capacity.at("pods"), q("58"));
  // 15 ENIs of 50 addresses: Karpenter does not cap it at 110 or 250 (its docs list 737).
  EXPECT_EQ(build("c5.18xlarge").capacity.at("pods"), q("737"));
  // Only the default card's interfaces count: 2 of p5's 64.
  EXPECT_EQ(build("p5.48xlarge").capacity.at("pods"), q("100"));
}

// vpc-cni's misc/eni-max-pods.txt, as the catalog carries it (eniMaxPods).
TEST_F(InstanceTypeBuilderTest, EniLimitedPodsAgreeWithVpcCniForEveryCatalogType) {
  std::ifstream in(NW_SHARED_DIR "/data/aws-instance-types.json");
  ASSERT_TRUE(in) << "cannot read the shared catalog";
  const nlohmann::json records = nlohmann::json::parse(in);
  int compared = 0;
  for (const auto& record : records) {
    if (!record["eniMaxPods"].is_number()) {
      continue;
    }
    const std::string name = record["name"].get<std::string>();
    auto pods = eniLimitedPods(catalogInfo(name), 0);
    if (!pods) {
      continue;  // no IPv4 count in the data: the type is excluded, not guessed
    }
    ++compared;
    EXPECT_EQ(*pods, record["eniMaxPods"].get<int64_t>()) << name;
  }
  EXPECT_GT(compared, 1300);
}

TEST_F(InstanceTypeBuilderTest, ReservedEnisLowerThePodLimit) {
  EXPECT_EQ(eniLimitedPods(catalogInfo("m5.large"), 1), 2 * 9 + 2);
  EXPECT_EQ(eniLimitedPods(catalogInfo("m5.large"), 3), 0);
}

struct Published {
  std::string type;
  std::string cpu, memory, ephemeralStorage, pods;
};

class PublishedAllocatableTest : public InstanceTypeBuilderTest,
                                 public ::testing::WithParamInterface<Published> {};

// Karpenter's generated reference (website/content/en/preview/reference/instance-types.md:
// AL2023, no blockDeviceMappings): allocatable cpu, memory, ephemeral-storage and pods.
TEST_P(PublishedAllocatableTest, MatchesKarpenterReference) {
  const Published& p = GetParam();
  const cloud::ResourceList allocatable = build(p.type).allocatable();
  EXPECT_EQ(allocatable.at("cpu").toString(), p.cpu);
  EXPECT_EQ(allocatable.at("memory").toString(), p.memory);
  EXPECT_EQ(allocatable.at("ephemeral-storage").toString(), p.ephemeralStorage);
  EXPECT_EQ(allocatable.at("pods").toString(), p.pods);
}

INSTANTIATE_TEST_SUITE_P(
    Docs, PublishedAllocatableTest,
    ::testing::Values(Published{"a1.medium", "940m", "1392Mi", "17Gi", "8"},  // arm64: -64Mi
                      Published{"a1.4xlarge", "15890m", "27322Mi", "17Gi", "234"},
                      Published{"c4.8xlarge", "35840m", "53903Mi", "17Gi", "234"},  // xen
                      Published{"c5.large", "1930m", "3114Mi", "17Gi", "29"},
                      Published{"c5.18xlarge", "71750m", "127934Mi", "17Gi", "737"},
                      Published{"m6in.large", "1930m", "6903Mi", "17Gi", "29"},
                      Published{"m6in.xlarge", "3920m", "14162Mi", "17Gi", "58"},
                      Published{"m6in.32xlarge", "127610m", "480277Mi", "17Gi", "394"},
                      Published{"m7a.medium", "940m", "3345Mi", "17Gi", "8"},
                      // The seed's types: the same shapes as m6in.large and m6in.xlarge.
                      Published{"m5.large", "1930m", "6903Mi", "17Gi", "29"},
                      Published{"m5.xlarge", "3920m", "14162Mi", "17Gi", "58"}),
    [](const auto& info) {
      std::string name = info.param.type;
      for (char& c : name) {
        c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      }
      return name;
    });

TEST_F(InstanceTypeBuilderTest, CapacityAndOverheadOfM5Large) {
  const cloud::InstanceType t = build("m5.large");
  EXPECT_EQ(t.name, "m5.large");
  EXPECT_EQ(t.capacity.at("cpu"), q("2"));
  EXPECT_EQ(t.capacity.at("memory"), q("7577Mi"));  // 8192Mi less 7.5%, rounded up to a MiB
  EXPECT_EQ(t.capacity.at("ephemeral-storage"), q("20Gi"));
  EXPECT_EQ(t.kubeReserved.at("cpu"), q("70m"));
  EXPECT_EQ(t.kubeReserved.at("memory"), q("574Mi"));  // 11Mi * 29 + 255Mi
  EXPECT_EQ(t.kubeReserved.at("ephemeral-storage"), q("1Gi"));
  EXPECT_TRUE(t.systemReserved.empty());
  EXPECT_EQ(t.evictionThreshold.at("memory"), q("100Mi"));
  EXPECT_EQ(t.evictionThreshold.at("ephemeral-storage"), q("2Gi"));  // 10% of 20Gi
  EXPECT_EQ(t.capacity.count("nvidia.com/gpu"), 0u);
  EXPECT_EQ(t.capacity.count("vpc.amazonaws.com/efa"), 0u);
}

TEST_F(InstanceTypeBuilderTest, LabelsOfM5Large) {
  InstanceTypeSettings settings;
  settings.region = "us-east-1";
  const std::map<std::string, std::string> want = {
      {"kubernetes.io/arch", "amd64"},
      {"kubernetes.io/os", "linux"},
      {"node.kubernetes.io/instance-type", "m5.large"},
      {"topology.kubernetes.io/region", "us-east-1"},
      {"karpenter.k8s.aws/instance-category", "m"},
      {"karpenter.k8s.aws/instance-generation", "5"},
      {"karpenter.k8s.aws/instance-family", "m5"},
      {"karpenter.k8s.aws/instance-size", "large"},
      {"karpenter.k8s.aws/instance-cpu", "2"},
      {"karpenter.k8s.aws/instance-cpu-manufacturer", "intel"},
      {"karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz", "3100"},
      {"karpenter.k8s.aws/instance-memory", "8192"},
      {"karpenter.k8s.aws/instance-network-bandwidth", "750"},
      {"karpenter.k8s.aws/instance-ebs-bandwidth", "4750"},
      {"karpenter.k8s.aws/instance-hypervisor", "nitro"},
      {"karpenter.k8s.aws/instance-encryption-in-transit-supported", "false"},
      {"karpenter.k8s.aws/instance-capability-flex", "false"},
      {"karpenter.k8s.aws/instance-tenancy", "default"},
  };
  EXPECT_EQ(build("m5.large", settings).labels, want);
}

TEST_F(InstanceTypeBuilderTest, GpuTypeHasGpuLabelsAndResources) {
  const cloud::InstanceType t = build("p4d.24xlarge");
  EXPECT_EQ(t.labels.at("karpenter.k8s.aws/instance-gpu-name"), "a100");
  EXPECT_EQ(t.labels.at("karpenter.k8s.aws/instance-gpu-manufacturer"), "nvidia");
  EXPECT_EQ(t.labels.at("karpenter.k8s.aws/instance-gpu-count"), "8");
  EXPECT_EQ(t.labels.at("karpenter.k8s.aws/instance-gpu-memory"), "40960");  // per GPU
  EXPECT_EQ(t.labels.at("karpenter.k8s.aws/instance-local-nvme"), "8000");
  EXPECT_EQ(t.capacity.at("nvidia.com/gpu"), q("8"));
  EXPECT_EQ(t.capacity.at("vpc.amazonaws.com/efa"), q("4"));
  // An AMD GPU is not an NVIDIA one.
  const cloud::InstanceType amd = build("g4ad.xlarge");
  EXPECT_EQ(amd.labels.at("karpenter.k8s.aws/instance-gpu-name"), "radeon-pro-v520");
  EXPECT_EQ(amd.capacity.count("nvidia.com/gpu"), 0u);
  EXPECT_EQ(amd.capacity.at("amd.com/gpu"), q("1"));
}

TEST_F(InstanceTypeBuilderTest, NeuronTypesHaveAcceleratorLabelsAndResources) {
  const cloud::InstanceType trn = build("trn1.32xlarge");
  EXPECT_EQ(trn.labels.at("karpenter.k8s.aws/instance-accelerator-name"), "trainium");
  EXPECT_EQ(trn.labels.at("karpenter.k8s.aws/instance-accelerator-manufacturer"), "aws");
  EXPECT_EQ(trn.labels.at("karpenter.k8s.aws/instance-accelerator-count"), "16");
  EXPECT_EQ(trn.capacity.at("aws.amazon.com/neuron"), q("16"));
  EXPECT_EQ(trn.capacity.at("vpc.amazonaws.com/efa"), q("8"));
  EXPECT_EQ(build("inf2.xlarge").capacity.at("aws.amazon.com/neuron"), q("1"));
  // NeuronCores: the devices times the cores of each (2 on Trainium and Inferentia2).
  EXPECT_EQ(trn.capacity.at("aws.amazon.com/neuroncore"), q("32"));
  EXPECT_EQ(build("inf2.xlarge").capacity.at("aws.amazon.com/neuroncore"), q("2"));
  EXPECT_EQ(build("trn2.48xlarge").capacity.at("aws.amazon.com/neuroncore"), q("128"));
}

TEST_F(InstanceTypeBuilderTest, HabanaGaudiIsAGpuWithItsOwnResource) {
  const cloud::InstanceType dl1 = build("dl1.24xlarge");
  EXPECT_EQ(dl1.labels.at("karpenter.k8s.aws/instance-gpu-name"), "gaudi-hl-205");
  EXPECT_EQ(dl1.labels.at("karpenter.k8s.aws/instance-gpu-manufacturer"), "habana");
  EXPECT_EQ(dl1.labels.at("karpenter.k8s.aws/instance-gpu-count"), "8");
  EXPECT_EQ(dl1.labels.at("karpenter.k8s.aws/instance-gpu-memory"), "32768");
  EXPECT_EQ(dl1.capacity.at("habana.ai/gaudi"), q("8"));
  EXPECT_EQ(dl1.capacity.count("nvidia.com/gpu"), 0u);
  EXPECT_EQ(dl1.capacity.count("amd.com/gpu"), 0u);
}

// Karpenter labels an inference accelerator that is not a Neuron device, but gives it no
// aws.amazon.com/neuron: only NeuronInfo counts.
TEST_F(InstanceTypeBuilderTest, QualcommAcceleratorsAreLabelledButAreNoNeuronDevices) {
  const cloud::InstanceType dl2q = build("dl2q.24xlarge");
  EXPECT_EQ(dl2q.labels.at("karpenter.k8s.aws/instance-accelerator-name"), "qualcomm-ai100");
  EXPECT_EQ(dl2q.labels.at("karpenter.k8s.aws/instance-accelerator-manufacturer"), "qualcomm");
  EXPECT_EQ(dl2q.labels.at("karpenter.k8s.aws/instance-accelerator-count"), "8");
  EXPECT_EQ(dl2q.capacity.count("aws.amazon.com/neuron"), 0u);
  EXPECT_EQ(dl2q.capacity.count("aws.amazon.com/neuroncore"), 0u);
}

// Karpenter's Windows families: the os and build labels, 110 pods whatever the ENIs,
// kube-reserved memory on those pods, a 50Gi /dev/sda1 and the VPC resource controller's
// PrivateIPv4Address.
TEST_F(InstanceTypeBuilderTest, WindowsFamiliesLabelTheOsAndBuildAndKeep110Pods) {
  for (const auto& [family, build] :
       std::vector<std::pair<std::string, std::string>>{{"Windows2019", "10.0.17763"},
                                                        {"Windows2022", "10.0.20348"},
                                                        {"Windows2025", "10.0.26100"}}) {
    SCOPED_TRACE(family);
    InstanceTypeSettings settings;
    settings.family = family;
    const cloud::InstanceType t = this->build("m5.large", settings);
    EXPECT_EQ(t.labels.at("kubernetes.io/os"), "windows");
    EXPECT_EQ(t.labels.at("node.kubernetes.io/windows-build"), build);
    EXPECT_EQ(t.capacity.at("pods"), q("110"));
    EXPECT_EQ(t.capacity.at("vpc.amazonaws.com/PrivateIPv4Address"), q("9"));
    EXPECT_EQ(t.capacity.at("ephemeral-storage"), q("50Gi"));
    EXPECT_EQ(t.kubeReserved.at("memory"), q("1465Mi"));  // 11 * 110 + 255
  }
  const cloud::InstanceType linux = build("m5.large");
  EXPECT_EQ(linux.labels.at("kubernetes.io/os"), "linux");
  EXPECT_EQ(linux.labels.count("node.kubernetes.io/windows-build"), 0u);
  EXPECT_EQ(linux.capacity.count("vpc.amazonaws.com/PrivateIPv4Address"), 0u);
}

TEST_F(InstanceTypeBuilderTest, WindowsRunsOnAmd64Only) {
  InstanceTypeSettings settings;
  settings.family = "Windows2022";
  auto builder = InstanceTypeBuilder::create(settings);
  ASSERT_TRUE(builder);
  auto arm = builder->build(catalogInfo("m7g.large"));
  ASSERT_FALSE(arm);
  EXPECT_EQ(arm.error().message(), "m7g.large is arm64, and Windows2022 runs on amd64 only");
}

TEST_F(InstanceTypeBuilderTest, GravitonAndBareMetalLabels) {
  const cloud::InstanceType arm = build("m7g.large");
  EXPECT_EQ(arm.labels.at("kubernetes.io/arch"), "arm64");
  EXPECT_EQ(arm.labels.at("karpenter.k8s.aws/instance-cpu-manufacturer"), "aws");
  // Bare metal has no hypervisor, and says so with an empty value.
  EXPECT_EQ(build("m5.metal").labels.at("karpenter.k8s.aws/instance-hypervisor"), "");
}

TEST_F(InstanceTypeBuilderTest, TypesWithoutArchitectureOrAddressLimitsAreRefused) {
  auto builder = InstanceTypeBuilder::create({});
  ASSERT_TRUE(builder);
  auto noArch = builder->build(catalogInfo("u-6tb1.metal"));
  ASSERT_FALSE(noArch);
  EXPECT_EQ(noArch.error().message(), "u-6tb1.metal has no known architecture");
  sdk::InstanceTypeInfo mac = catalogInfo("m5.large");
  mac.architectures = {"x86_64_mac"};
  auto macBuilt = builder->build(mac);
  ASSERT_FALSE(macBuilt);
  EXPECT_EQ(macBuilt.error().message(), "m5.large has no amd64 or arm64 architecture (x86_64_mac)");
  auto noIpv4 = builder->build(catalogInfo("p2.xlarge"));
  ASSERT_FALSE(noIpv4);
  EXPECT_EQ(noIpv4.error().message(),
            "p2.xlarge has no known IPv4 addresses per network interface, so its pod limit is "
            "unknown");
}

TEST_F(InstanceTypeBuilderTest, MaxPodsOverridesPodsButNotTheEniSizedKubeReservedMemory) {
  api::karpenter::KubeletConfiguration kubelet;
  kubelet.maxPods = 110;
  const cloud::InstanceType al2023 = build("m5.large", withKubelet(kubelet));
  EXPECT_EQ(al2023.capacity.at("pods"), q("110"));
  EXPECT_EQ(al2023.kubeReserved.at("memory"), q("574Mi"));  // still 29 ENI-limited pods
  // Bottlerocket sizes it on the pods the node runs.
  const cloud::InstanceType br = build("m5.large", withKubelet(kubelet, kFamilyBottlerocket));
  EXPECT_EQ(br.kubeReserved.at("memory"), q("1465Mi"));  // 11Mi * 110 + 255Mi
}

TEST_F(InstanceTypeBuilderTest, PodsPerCoreCapsPodsExceptOnBottlerocket) {
  api::karpenter::KubeletConfiguration kubelet;
  kubelet.podsPerCore = 4;
  EXPECT_EQ(build("m5.xlarge", withKubelet(kubelet)).capacity.at("pods"), q("16"));
  kubelet.podsPerCore = 100;  // above the ENI limit: the ENI limit stands
  EXPECT_EQ(build("m5.xlarge", withKubelet(kubelet)).capacity.at("pods"), q("58"));
  kubelet.podsPerCore = 4;
  EXPECT_EQ(build("m5.xlarge", withKubelet(kubelet, kFamilyBottlerocket)).capacity.at("pods"),
            q("58"));
}

TEST_F(InstanceTypeBuilderTest, KubeletReservationsReplaceTheComputedOnes) {
  api::karpenter::KubeletConfiguration kubelet;
  kubelet.kubeReserved = {{"cpu", "200m"}, {"memory", "1Gi"}};
  kubelet.systemReserved = {{"cpu", "100m"}, {"memory", "512Mi"}};
  const cloud::InstanceType t = build("m5.large", withKubelet(kubelet));
  EXPECT_EQ(t.kubeReserved.at("cpu"), q("200m"));
  EXPECT_EQ(t.kubeReserved.at("memory"), q("1Gi"));
  EXPECT_EQ(t.kubeReserved.at("ephemeral-storage"), q("1Gi"));  // not overridden: computed
  EXPECT_EQ(t.systemReserved.at("cpu"), q("100m"));
  const cloud::ResourceList allocatable = t.allocatable();
  EXPECT_EQ(allocatable.at("cpu"), q("1700m"));
  EXPECT_EQ(allocatable.at("memory"), q("5941Mi"));  // 7577 - 1024 - 512 - 100
}

TEST_F(InstanceTypeBuilderTest, EvictionThresholdTakesTheLargerOfHardAndSoft) {
  api::karpenter::KubeletConfiguration kubelet;
  kubelet.evictionHard = {{"memory.available", "5%"}, {"nodefs.available", "15%"}};
  kubelet.evictionSoft = {{"memory.available", "1Gi"}, {"nodefs.available", "1Gi"}};
  const cloud::InstanceType t = build("m5.large", withKubelet(kubelet));
  EXPECT_EQ(t.evictionThreshold.at("memory"), q("1Gi"));  // > 5% of 7577Mi
  // 15% of 20Gi = 3221225472 bytes > 1Gi.
  EXPECT_EQ(t.evictionThreshold.at("ephemeral-storage"), q("3221225472"));
  // 5% of 7577Mi, rounded up to a byte, once the soft threshold is gone.
  kubelet.evictionSoft.clear();
  EXPECT_EQ(build("m5.large", withKubelet(kubelet)).evictionThreshold.at("memory"), q("397253018"));
  // Bottlerocket has no soft eviction.
  kubelet.evictionSoft = {{"memory.available", "1Gi"}};
  EXPECT_EQ(
      build("m5.large", withKubelet(kubelet, kFamilyBottlerocket)).evictionThreshold.at("memory"),
      q("397253018"));
  // 100% turns a threshold off.
  kubelet.evictionHard = {{"memory.available", "100%"}};
  kubelet.evictionSoft.clear();
  EXPECT_EQ(build("m5.large", withKubelet(kubelet)).evictionThreshold.at("memory"), q("0"));
}

TEST_F(InstanceTypeBuilderTest, BadKubeletValuesNameTheField) {
  api::karpenter::KubeletConfiguration kubelet;
  kubelet.kubeReserved = {{"memory", "lots"}};
  auto bad = InstanceTypeBuilder::create(withKubelet(kubelet));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), core::Code::Invalid);
  EXPECT_TRUE(bad.error().message().starts_with("spec.kubelet.kubeReserved[memory]: "))
      << bad.error().message();
  kubelet.kubeReserved.clear();
  kubelet.evictionHard = {{"nodefs.available", "10%%"}};
  bad = InstanceTypeBuilder::create(withKubelet(kubelet));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "spec.kubelet.evictionHard[nodefs.available]: \"10%%\" is neither a quantity nor a "
            "percentage");
}

TEST_F(InstanceTypeBuilderTest, EphemeralStorageFollowsTheRootVolume) {
  InstanceTypeSettings settings;
  api::karpenter::BlockDeviceMapping root;
  root.deviceName = "/dev/xvda";
  root.rootVolume = true;
  root.ebs = api::karpenter::BlockDevice{};
  root.ebs->volumeSize = q("100Gi");
  settings.blockDeviceMappings = {root};
  const cloud::InstanceType t = build("m5.large", settings);
  EXPECT_EQ(t.capacity.at("ephemeral-storage"), q("100Gi"));
  EXPECT_EQ(t.allocatable().at("ephemeral-storage"), q("89Gi"));  // less 1Gi and 10%

  // Without rootVolume, the family's root device: /dev/xvda on AL2023, /dev/xvdb on
  // Bottlerocket.
  settings.blockDeviceMappings[0].rootVolume = false;
  EXPECT_EQ(build("m5.large", settings).capacity.at("ephemeral-storage"), q("100Gi"));
  settings.family = kFamilyBottlerocket;
  EXPECT_EQ(build("m5.large", settings).capacity.at("ephemeral-storage"), q("20Gi"));
}

TEST_F(InstanceTypeBuilderTest, Raid0InstanceStoreIsTheEphemeralStorage) {
  InstanceTypeSettings settings;
  settings.instanceStorePolicy = "RAID0";
  EXPECT_EQ(build("c5ad.large", settings).capacity.at("ephemeral-storage"), q("75G"));
  // A type without instance storage keeps its EBS root volume.
  EXPECT_EQ(build("m5.large", settings).capacity.at("ephemeral-storage"), q("20Gi"));
}

// aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/types.go: a "-flex" family is
// capability-flex "true", every other type "false".
TEST(InstanceTypeLabelsTest, CapabilityFlexFollowsTheFamilyName) {
  sdk::InstanceTypeInfo info = catalogInfo("c7g-flex.large");
  EXPECT_EQ(instanceTypeLabels(info, "").at("karpenter.k8s.aws/instance-capability-flex"), "true");
  for (const char* name : {"c7g.large", "m5.flex", "u-6tb1.metal"}) {
    info.instanceType = name;
    EXPECT_EQ(instanceTypeLabels(info, "").at("karpenter.k8s.aws/instance-capability-flex"),
              "false")
        << name;
  }
}

TEST(InstanceTypeLabelsTest, EveryTypeOffersDefaultTenancy) {
  for (const char* name : {"m5.large", "c7g-flex.large", "p4d.24xlarge", "m5.metal"}) {
    EXPECT_EQ(instanceTypeLabels(catalogInfo(name), "").at("karpenter.k8s.aws/instance-tenancy"),
              "default")
        << name;
  }
}

TEST(InstanceTypeLabelsTest, CategoryAndGenerationFollowKarpentersPattern) {
  sdk::InstanceTypeInfo info = catalogInfo("m5.large");
  for (const auto& [name, category, generation] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"u-6tb1.metal", "u", "1"}, {"g4dn.xlarge", "g", "4"}, {"x2iedn.xlarge", "x", "2"}}) {
    info.instanceType = name;
    const auto labels = instanceTypeLabels(info, "");
    EXPECT_EQ(labels.at("karpenter.k8s.aws/instance-category"), category) << name;
    EXPECT_EQ(labels.at("karpenter.k8s.aws/instance-generation"), generation) << name;
  }
}

}  // namespace
}  // namespace nodewright::cloud::aws
