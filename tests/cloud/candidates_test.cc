#include "cloud/candidates.h"

#include <gtest/gtest.h>

#include "cloud/well_known_labels.h"

namespace nodewright::cloud {
namespace {

using api::karpenter::NodeClaim;
using api::karpenter::NodeSelectorRequirementWithMinValues;

core::Quantity q(const char* text) {
  return *core::Quantity::parse(text);
}

InstanceType type(const std::string& name, const char* cpu, const char* memory, double onDemand,
                  double spot) {
  InstanceType t;
  t.name = name;
  t.labels = {{labels::kInstanceType, name}, {labels::kArch, "amd64"}};
  t.capacity = {{"cpu", q(cpu)}, {"memory", q(memory)}, {"pods", q("29")}};
  t.kubeReserved = {{"cpu", q("100m")}, {"memory", q("500Mi")}};
  for (const char* zone : {"us-east-1a", "us-east-1b"}) {
    t.offerings.push_back({zone, kCapacityTypeOnDemand, onDemand, true});
    t.offerings.push_back({zone, kCapacityTypeSpot, spot, true});
  }
  return t;
}

NodeClaim claim(std::vector<NodeSelectorRequirementWithMinValues> requirements,
                std::map<std::string, core::Quantity> requests = {}) {
  NodeClaim c;
  c.spec.requirements = std::move(requirements);
  c.spec.resources.requests = std::move(requests);
  return c;
}

std::vector<std::string> names(const CandidateTypes& set) {
  std::vector<std::string> out;
  for (const InstanceType* t : set.types) {
    out.push_back(t->name);
  }
  return out;
}

std::vector<InstanceType> catalog() {
  return {type("m5.xlarge", "4", "16Gi", 0.192, 0.08), type("m5.large", "2", "8Gi", 0.096, 0.04),
          type("m5.2xlarge", "8", "32Gi", 0.384, 0.5)};
}

TEST(LaunchableTypes, CheapestAllowedOfferingFirst) {
  auto types = catalog();
  auto set = launchableTypes(types, claim({}));
  EXPECT_EQ(names(set), (std::vector<std::string>{"m5.large", "m5.xlarge", "m5.2xlarge"}));
  // Ordered by on-demand prices when spot is not allowed; m5.2xlarge's spot would be dearer.
  types[0].offerings[0].pricePerHour = 0.01;  // m5.xlarge on-demand in us-east-1a
  set = launchableTypes(types, claim({{labels::kCapacityType, "In", {"on-demand"}, std::nullopt}}));
  EXPECT_EQ(names(set), (std::vector<std::string>{"m5.xlarge", "m5.large", "m5.2xlarge"}));
}

TEST(LaunchableTypes, RequestsMustFitAllocatableAndRequirementsFilterTypes) {
  auto types = catalog();
  // 2 cpu does not fit m5.large's 1900m allocatable; the custom label restricts nothing.
  auto set =
      launchableTypes(types, claim({{labels::kInstanceType, "NotIn", {"m5.2xlarge"}, std::nullopt},
                                    {"team.example.com/owner", "In", {"blue"}, std::nullopt}},
                                   {{"cpu", q("2")}}));
  EXPECT_EQ(names(set), (std::vector<std::string>{"m5.xlarge"}));
}

TEST(LaunchableTypes, AnInstanceLabelATypeLacksMeansTheTypeHasNone) {
  auto types = catalog();
  types[2].labels["karpenter.k8s.aws/instance-gpu-manufacturer"] = "nvidia";
  auto set = launchableTypes(
      types,
      claim({{"karpenter.k8s.aws/instance-gpu-manufacturer", "In", {"nvidia"}, std::nullopt}}));
  EXPECT_EQ(names(set), (std::vector<std::string>{"m5.2xlarge"}));
  set = launchableTypes(
      types,
      claim({{"karpenter.k8s.aws/instance-gpu-manufacturer", "DoesNotExist", {}, std::nullopt},
             {labels::kNodePool, "In", {"default"}, std::nullopt}}));
  EXPECT_EQ(names(set), (std::vector<std::string>{"m5.large", "m5.xlarge"}));
}

// Karpenter v1.14 offers placement-group-id and -partition only for a node class with a
// placement group; with none, no type has them: In finds nothing, DoesNotExist keeps all.
TEST(LaunchableTypes, PlacementGroupLabelsNoTypeHasRestrictAsAbsent) {
  auto types = catalog();
  for (const char* key :
       {"karpenter.k8s.aws/placement-group-id", "karpenter.k8s.aws/placement-group-partition"}) {
    EXPECT_TRUE(labels::definedByInstanceType(key)) << key;
    auto set = launchableTypes(types, claim({{key, "In", {"1"}, std::nullopt}}));
    EXPECT_TRUE(set.types.empty()) << key;
    set = launchableTypes(types, claim({{key, "DoesNotExist", {}, std::nullopt}}));
    EXPECT_EQ(set.types.size(), 3u) << key;
  }
}

// Karpenter v1.14 gives node.kubernetes.io/windows-build DoesNotExist on every type but a Windows
// node class's: a pod asking for a Windows build never lands on a Linux type.
TEST(LaunchableTypes, AWindowsBuildRequirementFindsOnlyTypesOfThatBuild) {
  auto types = catalog();
  types[0].labels[labels::kWindowsBuild] = "10.0.20348";
  auto set = launchableTypes(types, claim({{labels::kWindowsBuild, "In", {"10.0.20348"}, {}}}));
  EXPECT_EQ(names(set), (std::vector<std::string>{"m5.xlarge"}));
  set = launchableTypes(types, claim({{labels::kWindowsBuild, "In", {"10.0.17763"}, {}}}));
  EXPECT_TRUE(set.types.empty());
  set = launchableTypes(types, claim({{labels::kWindowsBuild, "DoesNotExist", {}, {}}}));
  EXPECT_EQ(names(set), (std::vector<std::string>{"m5.large", "m5.2xlarge"}));
}

// Every type is offered in both tenancies (Karpenter v1.14 instance-tenancy In [default,
// dedicated]): dedicated finds them all; a requirement that admits neither finds none.
TEST(LaunchableTypes, EveryTypeIsOfferedInBothTenancies) {
  auto types = catalog();
  for (const char* tenancy : {"dedicated", "default"}) {
    auto set = launchableTypes(types, claim({{labels::kInstanceTenancy, "In", {tenancy}, {}}}));
    EXPECT_EQ(set.types.size(), 3u) << tenancy;
  }
  auto set = launchableTypes(types, claim({{labels::kInstanceTenancy, "NotIn", {"default"}, {}}}));
  EXPECT_EQ(set.types.size(), 3u);
  set = launchableTypes(types, claim({{labels::kInstanceTenancy, "DoesNotExist", {}, {}}}));
  EXPECT_TRUE(set.types.empty());
  set = launchableTypes(types,
                        claim({{labels::kInstanceTenancy, "NotIn", {"default", "dedicated"}, {}}}));
  EXPECT_TRUE(set.types.empty());
}

TEST(LaunchableTypes, NeedsAnAvailableOfferingTheClaimAllows) {
  auto types = catalog();
  for (Offering& o : types[1].offerings) {
    o.available = o.zone != "us-east-1b";
  }
  auto set = launchableTypes(types, claim({{labels::kZone, "In", {"us-east-1b"}, std::nullopt}}));
  EXPECT_EQ(names(set), (std::vector<std::string>{"m5.xlarge", "m5.2xlarge"}));
}

TEST(LaunchableTypes, SaysWhyNothingIsLeft) {
  auto types = catalog();
  auto set = launchableTypes(types, claim({}, {{"nvidia.com/gpu", q("1")}}));
  EXPECT_TRUE(set.types.empty());
  EXPECT_EQ(set.emptyReason, "none of the 3 allowed instance types fits nvidia.com/gpu=1");
  set = launchableTypes(types, claim({{labels::kZone, "In", {"us-east-1c"}, std::nullopt}}));
  EXPECT_EQ(set.emptyReason,
            "none of the 3 fitting instance types has an available offering in the allowed "
            "zones and capacity types");
  set = launchableTypes(types, claim({{labels::kArch, "In", {"arm64"}, std::nullopt}}));
  EXPECT_EQ(set.emptyReason, "none of 3 instance types meets the requirements");
}

TEST(InstanceTypeTest, AllocatableSubtractsEveryReservationAndStopsAtZero) {
  InstanceType t = type("m5.large", "2", "8Gi", 0.096, 0.04);
  t.systemReserved = {{"memory", q("100Mi")}};
  t.evictionThreshold = {{"memory", q("100Mi")}, {"pods", q("100")}};
  auto allocatable = t.allocatable();
  EXPECT_EQ(allocatable["cpu"], q("1900m"));
  EXPECT_EQ(allocatable["memory"], q("7492Mi"));
  EXPECT_EQ(allocatable["pods"], q("0"));
  EXPECT_EQ(t.allocatable("memory"), q("7492Mi"));
  EXPECT_EQ(t.allocatable("pods"), q("0"));
  EXPECT_EQ(t.allocatable("nvidia.com/gpu"), q("0"));
  EXPECT_DOUBLE_EQ(t.cheapestAvailablePrice(), 0.04);
}

}  // namespace
}  // namespace nodewright::cloud
