#include "api/conversion/nodeclaim_conversion.h"

#include <gtest/gtest.h>

#include <functional>

#include "api/conversion/annotations.h"
#include "api/conversion/convert.h"
#include "fixtures.h"

namespace nodewright::api::conversion {
namespace {

using testing::decode;
using testing::errorsOf;

seedera::Machine fullMachine() {
  return decode<seedera::Machine>(testing::kFullMachine);
}

struct MappingCase {
  std::string name;
  std::string pointer;  // JSON pointer into the encoded NodeClaim
  Json expected;
};

void PrintTo(const MappingCase& c, std::ostream* os) {
  *os << c.name;
}

class MachineToNodeClaimTest : public ::testing::TestWithParam<MappingCase> {};

TEST_P(MachineToNodeClaimTest, MapsTheField) {
  Converted<karpenter::NodeClaim> claim = toNodeClaim(fullMachine());
  ASSERT_TRUE(claim) << errorsOf(claim).front();
  Json encoded = toJson(*claim);
  ASSERT_TRUE(encoded.contains(Json::json_pointer(GetParam().pointer))) << encoded.dump(2);
  EXPECT_EQ(encoded.at(Json::json_pointer(GetParam().pointer)), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, MachineToNodeClaimTest,
    ::testing::Values(
        MappingCase{"ApiVersion", "/apiVersion", "karpenter.sh/v1"},
        MappingCase{"Kind", "/kind", "NodeClaim"},
        MappingCase{"LabelsAreKept", "/metadata/labels",
                    Json{{"karpenter.sh/provisioner-name", "default"}}},
        MappingCase{"Taints", "/spec/taints",
                    Json::parse(R"([{"key":"example.com/special-taint","value":"true",
                                     "effect":"NoSchedule"}])")},
        MappingCase{"StartupTaints", "/spec/startupTaints",
                    Json::parse(R"([{"key":"example.com/init","effect":"NoSchedule"}])")},
        MappingCase{"Requirements", "/spec/requirements",
                    Json::parse(R"([{"key":"node.kubernetes.io/instance-type","operator":"In",
                                     "values":["m5.large","m5.xlarge"]}])")},
        MappingCase{"ResourceRequests", "/spec/resources/requests",
                    Json{{"cpu", "1500m"}, {"memory", "2Gi"}, {"pods", "5"}}},
        MappingCase{"Kubelet", "/spec/kubelet",
                    Json{{"maxPods", 30}, {"systemReserved", {{"memory", "200Mi"}}}}},
        MappingCase{
            "MachineTemplateRefBecomesNodeClassRef", "/spec/nodeClassRef",
            Json{{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}},
        MappingCase{"NodeName", "/status/nodeName", "ip-10-0-0-1.ec2.internal"},
        MappingCase{"ProviderID", "/status/providerID", "aws:///us-west-2a/i-0123456789abcdef0"},
        MappingCase{"Capacity", "/status/capacity",
                    Json{{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "29"}}},
        MappingCase{"Allocatable", "/status/allocatable",
                    Json{{"cpu", "1930m"}, {"memory", "7Gi"}, {"pods", "29"}}},
        MappingCase{"LaunchedCondition", "/status/conditions/0",
                    Json{{"type", "Launched"},
                         {"status", "True"},
                         {"lastTransitionTime", "2024-01-02T03:04:05Z"}}},
        MappingCase{"RegisteredConditionLosesOnlyItsSeverity", "/status/conditions/1",
                    Json{{"type", "Registered"}, {"status", "True"}, {"reason", "Registered"}}},
        MappingCase{"InitializedCondition", "/status/conditions/2/type", "Initialized"},
        MappingCase{"DriftedCondition", "/status/conditions/3/type", "Drifted"},
        MappingCase{"OtherConditionsKeepTheirType", "/status/conditions/4/type", "Ready"},
        MappingCase{"SeveritiesAnnotation",
                    "/metadata/annotations/compatibility.karpenter.sh~1v1alpha5-condition-"
                    "severities",
                    R"({"Registered":"Info","Drifted":"Warning"})"},
        MappingCase{"MachineTemplateRefAnnotation",
                    "/metadata/annotations/compatibility.karpenter.sh~1v1alpha5-machine-"
                    "template-ref",
                    R"({"apiVersion":"karpenter.k8s.aws/v1alpha1","kind":"AWSNodeTemplate"})"}),
    [](const auto& info) { return info.param.name; });

struct ErrorCase {
  std::string name;
  std::function<void(seedera::Machine&)> edit;
  std::vector<std::string> errors;
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class MachineConversionErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(MachineConversionErrorTest, NamesTheField) {
  seedera::Machine m = fullMachine();
  GetParam().edit(m);
  EXPECT_EQ(errorsOf(toNodeClaim(m)), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, MachineConversionErrorTest,
    ::testing::Values(
        ErrorCase{"ContainerRuntime",
                  [](auto& m) { m.spec.kubelet->containerRuntime = "containerd"; },
                  {"spec.kubelet.containerRuntime: Forbidden: has no karpenter.sh/v1 equivalent; "
                   "Karpenter v1 nodes always run containerd"}},
        ErrorCase{"TemplateOfAnotherKind",
                  [](auto& m) { m.spec.machineTemplateRef->kind = "AzureNodeTemplate"; },
                  {"spec.machineTemplateRef.kind: Unsupported value: \"AzureNodeTemplate\": "
                   "supported values: \"AWSNodeTemplate\""}},
        ErrorCase{"ConditionTypesThatCollideAfterRenaming",
                  [](auto& m) {
                    seedera::Condition launched;
                    launched.type = "Launched";
                    launched.status = "True";
                    m.status.conditions.push_back(launched);
                  },
                  {"status.conditions[5].type: Invalid value: \"Launched\": would not survive "
                   "conversion to karpenter.sh/v1 NodeClaim"}}),
    [](const auto& info) { return info.param.name; });

TEST(MachineRoundTripTest, RestoresAFullyPopulatedMachineExactly) {
  seedera::Machine original = fullMachine();
  Converted<karpenter::NodeClaim> claim = toNodeClaim(original);
  ASSERT_TRUE(claim) << errorsOf(claim).front();
  Converted<seedera::Machine> back = toMachine(*claim);
  ASSERT_TRUE(back) << errorsOf(back).front();
  EXPECT_EQ(toJson(*back).dump(2), toJson(original).dump(2));
}

TEST(MachineRoundTripTest, RestoresABareMachineExactly) {
  seedera::Machine original = decode<seedera::Machine>(
      "apiVersion: karpenter.sh/v1alpha5\nkind: Machine\nmetadata: {name: m}\n");
  auto v1 = convertToV1(toJson(original));
  ASSERT_TRUE(v1) << v1.error().message();
  EXPECT_EQ(*v1, Json::parse(R"({"apiVersion":"karpenter.sh/v1","kind":"NodeClaim",
      "metadata":{"name":"m"}})"));
  auto back = convertFromV1(*v1, "karpenter.sh/v1alpha5");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*back, toJson(original));
}

struct ReverseCase {
  std::string name;
  std::function<void(karpenter::NodeClaim&)> edit;
  std::vector<std::string> errors;
};

void PrintTo(const ReverseCase& c, std::ostream* os) {
  *os << c.name;
}

class NodeClaimToMachineTest : public ::testing::TestWithParam<ReverseCase> {};

TEST_P(NodeClaimToMachineTest, NamesEveryV1OnlySetting) {
  karpenter::NodeClaim claim = *toNodeClaim(fullMachine());
  GetParam().edit(claim);
  EXPECT_EQ(errorsOf(toMachine(claim)), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, NodeClaimToMachineTest,
    ::testing::Values(
        ReverseCase{"TheDefaultExpiryIsAccepted",
                    [](auto& c) { c.spec.expireAfter = core::Duration(std::chrono::hours(720)); },
                    {"converted"}},
        ReverseCase{"AnotherExpiry",
                    [](auto& c) { c.spec.expireAfter = core::Duration(std::chrono::hours(1)); },
                    {"spec.expireAfter: Forbidden: has no karpenter.sh/v1alpha5 equivalent; set "
                     "ttlSecondsUntilExpired on the Provisioner instead"}},
        ReverseCase{"TerminationGracePeriod",
                    [](auto& c) {
                      c.spec.terminationGracePeriod = core::Duration(std::chrono::minutes(10));
                    },
                    {"spec.terminationGracePeriod: Forbidden: has no karpenter.sh/v1alpha5 "
                     "equivalent"}},
        ReverseCase{"MinValues",
                    [](auto& c) { c.spec.requirements[0].minValues = 2; },
                    {"spec.requirements[0].minValues: Forbidden: has no karpenter.sh/v1alpha5 "
                     "equivalent"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::api::conversion
