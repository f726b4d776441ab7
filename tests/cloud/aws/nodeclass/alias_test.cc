// AMI aliases of the three families resolve through the SSM parameters EKS and Bottlerocket
// publish (as the emulator's world seeds them, with real AWS's names), each image with the
// requirements of its variant.
#include "cloud/aws/nodeclass/resolver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "cloud/aws/nodeclass/emulated_peer.h"
#include "cloud/aws/nodeclass/expect.h"
#include "cloud/aws/nodeclass/status.h"

namespace nodewright::cloud::aws {
namespace {

using namespace testing;

// "arm64/standard": what an image's requirements say.
std::string summary(const ResolvedImage& image) {
  std::string variant = "?";
  for (const auto& r : image.requirements) {
    if (r.key == "karpenter.k8s.aws/instance-gpu-count" && r.operator_ == "Exists") {
      variant = "nvidia";
    } else if (r.key == "karpenter.k8s.aws/instance-accelerator-count") {
      variant = r.operator_ == "Exists" ? "neuron" : "standard";
    }
  }
  return image.architecture + "/" + variant;
}

struct AliasCase {
  std::string name;
  std::string alias;
  std::string family;
  // SSM parameter -> the summaries of the requirement sets its image serves.
  std::vector<std::pair<std::string, std::vector<std::string>>> expected;
};

class AliasTest : public ::testing::TestWithParam<AliasCase> {
 protected:
  core::FakeClock clock_;
};

TEST_P(AliasTest, ResolvesEveryVariantThroughSsm) {
  EmulatedPeer peer(clock_, emulators::testing::fastOptions());
  ASSERT_TRUE(peer.ok());
  NodeClassResolver resolver(clock_, peer.ec2(), peer.ssm(), ResolverOptions{"1.32"});
  auto nc = discoveryNodeClass();
  nc.spec.amiSelectorTerms[0].alias = GetParam().alias;
  auto r = resolver.resolve(nc);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->family, GetParam().family);

  std::set<std::pair<std::string, std::string>> want;
  for (const auto& [parameter, summaries] : GetParam().expected) {
    const std::string id = peer.parameter(parameter);
    ASSERT_NE(id, "") << "the world has no parameter " << parameter;
    for (const std::string& s : summaries) {
      want.emplace(id, s);
    }
  }
  std::set<std::pair<std::string, std::string>> got;
  for (const ResolvedImage& image : r->images) {
    got.emplace(image.id, summary(image));
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(r->status.amis.size(), want.size());
  EXPECT_EQ(condition(*r, nodeclass::kAMIsReady).status, "True");
  EXPECT_EQ(peer.requests("ssm:GetParameter"), static_cast<int64_t>(GetParam().expected.size()));
}

const std::string kEks = "/aws/service/eks/optimized-ami/1.32/";
const std::string kAl2023 = kEks + "amazon-linux-2023/";
const std::string kBottlerocket = "/aws/service/bottlerocket/aws-k8s-1.32";

INSTANTIATE_TEST_SUITE_P(
    Families, AliasTest,
    ::testing::Values(
        AliasCase{"Al2023Latest",
                  "al2023@latest",
                  kFamilyAL2023,
                  {{kAl2023 + "x86_64/standard/recommended/image_id", {"amd64/standard"}},
                   {kAl2023 + "x86_64/nvidia/recommended/image_id", {"amd64/nvidia"}},
                   {kAl2023 + "x86_64/neuron/recommended/image_id", {"amd64/neuron"}},
                   {kAl2023 + "arm64/standard/recommended/image_id", {"arm64/standard"}},
                   {kAl2023 + "arm64/nvidia/recommended/image_id", {"arm64/nvidia"}}}},
        AliasCase{"Al2023Pinned",
                  "al2023@v20241115",
                  kFamilyAL2023,
                  {{kAl2023 + "x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.32-"
                              "v20241115/image_id",
                    {"amd64/standard"}},
                   {kAl2023 + "x86_64/nvidia/amazon-eks-node-al2023-x86_64-nvidia-1.32-"
                              "v20241115/image_id",
                    {"amd64/nvidia"}},
                   {kAl2023 + "x86_64/neuron/amazon-eks-node-al2023-x86_64-neuron-1.32-"
                              "v20241115/image_id",
                    {"amd64/neuron"}},
                   {kAl2023 + "arm64/standard/amazon-eks-node-al2023-arm64-standard-1.32-"
                              "v20241115/image_id",
                    {"arm64/standard"}},
                   {kAl2023 + "arm64/nvidia/amazon-eks-node-al2023-arm64-nvidia-1.32-"
                              "v20241115/image_id",
                    {"arm64/nvidia"}}}},
        AliasCase{
            "Al2Latest",
            "al2@latest",
            kFamilyAL2,
            {{kEks + "amazon-linux-2/recommended/image_id", {"amd64/standard"}},
             {kEks + "amazon-linux-2-arm64/recommended/image_id", {"arm64/standard"}},
             {kEks + "amazon-linux-2-gpu/recommended/image_id", {"amd64/nvidia", "amd64/neuron"}}}},
        AliasCase{
            "Al2Pinned",
            "al2@v20241115",
            kFamilyAL2,
            {{kEks + "amazon-linux-2/amazon-eks-node-1.32-v20241115/image_id", {"amd64/standard"}},
             {kEks + "amazon-linux-2-arm64/amazon-eks-arm64-node-1.32-v20241115/image_id",
              {"arm64/standard"}},
             {kEks + "amazon-linux-2-gpu/amazon-eks-gpu-node-1.32-v20241115/image_id",
              {"amd64/nvidia", "amd64/neuron"}}}},
        AliasCase{"BottlerocketLatest",
                  "bottlerocket@latest",
                  kFamilyBottlerocket,
                  {{kBottlerocket + "/x86_64/latest/image_id", {"amd64/standard", "amd64/neuron"}},
                   {kBottlerocket + "/arm64/latest/image_id", {"arm64/standard"}},
                   {kBottlerocket + "-nvidia/x86_64/latest/image_id", {"amd64/nvidia"}},
                   {kBottlerocket + "-nvidia/arm64/latest/image_id", {"arm64/nvidia"}}}},
        // Bottlerocket's releases are v-prefixed on GitHub and bare in SSM: both work.
        AliasCase{"BottlerocketPinnedWithV",
                  "bottlerocket@v1.26.2",
                  kFamilyBottlerocket,
                  {{kBottlerocket + "/x86_64/1.26.2/image_id", {"amd64/standard", "amd64/neuron"}},
                   {kBottlerocket + "/arm64/1.26.2/image_id", {"arm64/standard"}},
                   {kBottlerocket + "-nvidia/x86_64/1.26.2/image_id", {"amd64/nvidia"}},
                   {kBottlerocket + "-nvidia/arm64/1.26.2/image_id", {"arm64/nvidia"}}}},
        AliasCase{"BottlerocketPinned",
                  "bottlerocket@1.26.2",
                  kFamilyBottlerocket,
                  {{kBottlerocket + "/x86_64/1.26.2/image_id", {"amd64/standard", "amd64/neuron"}},
                   {kBottlerocket + "/arm64/1.26.2/image_id", {"arm64/standard"}},
                   {kBottlerocket + "-nvidia/x86_64/1.26.2/image_id", {"amd64/nvidia"}},
                   {kBottlerocket + "-nvidia/arm64/1.26.2/image_id", {"arm64/nvidia"}}}}),
    [](const auto& info) { return info.param.name; });

class AliasMissTest : public ::testing::Test {
 protected:
  core::FakeClock clock_;
};

TEST_F(AliasMissTest, AVersionWithoutParametersIsAFalseConditionNamingTheAlias) {
  EmulatedPeer peer(clock_, emulators::testing::fastOptions());
  ASSERT_TRUE(peer.ok());
  NodeClassResolver resolver(clock_, peer.ec2(), peer.ssm(), ResolverOptions{"1.32"});
  auto nc = discoveryNodeClass();
  nc.spec.amiSelectorTerms[0].alias = "al2023@v20990101";
  auto r = resolver.resolve(nc);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->images.empty());
  api::Condition amis = condition(*r, nodeclass::kAMIsReady);
  EXPECT_EQ(amis.status, "False");
  EXPECT_EQ(amis.reason, "AMINotFound");
  EXPECT_EQ(amis.message,
            "no AMIs match spec.amiSelectorTerms: no SSM parameter of alias al2023@v20990101 "
            "exists for Kubernetes 1.32");
  EXPECT_EQ(peer.requests("DescribeImages"), 0);
}

TEST_F(AliasMissTest, Al2HasNoImagesAfterKubernetes132) {
  EmulatedPeer peer(clock_, emulators::testing::fastOptions());
  ASSERT_TRUE(peer.ok());
  NodeClassResolver resolver(clock_, peer.ec2(), peer.ssm(), ResolverOptions{"1.33"});
  auto nc = discoveryNodeClass();
  nc.spec.amiSelectorTerms[0].alias = "al2@latest";
  auto r = resolver.resolve(nc);
  ASSERT_TRUE(r) << r.error().message();
  api::Condition amis = condition(*r, nodeclass::kAMIsReady);
  EXPECT_EQ(amis.status, "False");
  // Karpenter refuses the alias before asking SSM.
  EXPECT_EQ(amis.reason, "UnsupportedAlias");
  EXPECT_EQ(amis.message,
            "AL2 aliases are no longer supported on EKS 1.33+ (see "
            "https://docs.aws.amazon.com/eks/latest/userguide/"
            "kubernetes-versions-standard.html#kubernetes-1-33)");
  EXPECT_EQ(peer.requests("ssm:GetParameter"), 0);
}

// The Windows aliases read AWS's ami-windows-latest parameter of their Server release; the
// image asks for Windows nodes of that build (Karpenter's KnownRequirements) and nothing of
// their accelerators.
struct WindowsCase {
  std::string name;
  std::string alias;
  std::string kubernetesVersion;
  std::string family;
  std::string parameter;
  std::string build;
};

class WindowsAliasTest : public ::testing::TestWithParam<WindowsCase> {
 protected:
  core::FakeClock clock_;
};

TEST_P(WindowsAliasTest, ResolvesToOneWindowsImageOfItsBuild) {
  const WindowsCase& c = GetParam();
  EmulatedPeer peer(clock_, emulators::testing::fastOptions());
  ASSERT_TRUE(peer.ok());
  NodeClassResolver resolver(clock_, peer.ec2(), peer.ssm(), ResolverOptions{c.kubernetesVersion});
  auto nc = discoveryNodeClass();
  nc.spec.amiSelectorTerms[0].alias = c.alias;
  auto r = resolver.resolve(nc);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->family, c.family);
  ASSERT_EQ(r->images.size(), 1u);
  const ResolvedImage& image = r->images[0];
  EXPECT_EQ(image.id, peer.parameter(c.parameter));
  EXPECT_THAT(image.name, ::testing::StartsWith("Windows_Server-"));
  std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> got;
  for (const auto& req : image.requirements) {
    got.emplace_back(req.key, req.operator_, req.values);
  }
  EXPECT_EQ(got, (std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>{
                     {"kubernetes.io/arch", "In", {"amd64"}},
                     {"kubernetes.io/os", "In", {"windows"}},
                     {"node.kubernetes.io/windows-build", "In", {c.build}}}));
  EXPECT_EQ(condition(*r, nodeclass::kAMIsReady).status, "True");
  ASSERT_EQ(r->status.amis.size(), 1u);
  EXPECT_EQ(r->status.amis[0].requirements.size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(
    Releases, WindowsAliasTest,
    ::testing::Values(WindowsCase{"Windows2019", "windows2019@latest", "1.32", "Windows2019",
                                  "/aws/service/ami-windows-latest/"
                                  "Windows_Server-2019-English-Core-EKS_Optimized-1.32/image_id",
                                  "10.0.17763"},
                      WindowsCase{"Windows2022", "windows2022@latest", "1.32", "Windows2022",
                                  "/aws/service/ami-windows-latest/"
                                  "Windows_Server-2022-English-Core-EKS_Optimized-1.32/image_id",
                                  "10.0.20348"},
                      WindowsCase{"Windows2025", "windows2025@latest", "1.35", "Windows2025",
                                  "/aws/service/ami-windows-latest/"
                                  "Windows_Server-2025-English-Core-EKS_Optimized-1.35/image_id",
                                  "10.0.26100"}),
    [](const auto& info) { return info.param.name; });

TEST_F(AliasMissTest, Windows2025NeedsKubernetes135) {
  EmulatedPeer peer(clock_, emulators::testing::fastOptions());
  ASSERT_TRUE(peer.ok());
  NodeClassResolver resolver(clock_, peer.ec2(), peer.ssm(), ResolverOptions{"1.34"});
  auto nc = discoveryNodeClass();
  nc.spec.amiSelectorTerms[0].alias = "windows2025@latest";
  auto r = resolver.resolve(nc);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->family, "Windows2025");
  EXPECT_TRUE(r->images.empty());
  api::Condition amis = condition(*r, nodeclass::kAMIsReady);
  EXPECT_EQ(amis.status, "False");
  EXPECT_EQ(amis.reason, "UnsupportedAlias");
  EXPECT_EQ(amis.message,
            "Windows Server 2025 requires EKS version 1.35 or higher, current version: 1.34");
  EXPECT_EQ(peer.requests("ssm:GetParameter"), 0);
}

TEST_F(AliasMissTest, CustomFamilyWithAnAliasKeepsCustom) {
  EmulatedPeer peer(clock_, emulators::testing::fastOptions());
  ASSERT_TRUE(peer.ok());
  NodeClassResolver resolver(clock_, peer.ec2(), peer.ssm(), ResolverOptions{"1.32"});
  auto nc = discoveryNodeClass();
  nc.spec.amiFamily = kFamilyCustom;
  auto r = resolver.resolve(nc);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->family, kFamilyCustom);
  EXPECT_EQ(r->images.size(), 5u);
}

}  // namespace
}  // namespace nodewright::cloud::aws
