// Invalid seed-era manifests, each with the exact errors (path and message) it must produce.
#include <gtest/gtest.h>

#include "api/object.h"
#include "api/yaml.h"

namespace nodewright::api::seedera {
namespace {

struct InvalidCase {
  std::string name;
  std::string yaml;
  std::vector<std::string> errors;
};

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

std::vector<std::string> errorsOf(const std::string& yaml) {
  auto docs = parseDocuments(yaml);
  EXPECT_TRUE(docs && docs->size() == 1);
  if (!docs || docs->empty()) {
    return {"unparsable"};
  }
  std::vector<std::string> out;
  for (const FieldError& e : decodeObject(docs->front().value, builtinRegistry()).errors) {
    out.push_back(e.toString());
  }
  return out;
}

constexpr const char* kProvisioner =
    "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: p}\n";
constexpr const char* kMachine =
    "apiVersion: karpenter.sh/v1alpha5\nkind: Machine\nmetadata: "
    "{name: m}\n";
constexpr const char* kNodeTemplate =
    "apiVersion: karpenter.k8s.aws/v1alpha1\nkind: AWSNodeTemplate\nmetadata: {name: t}\n";

class SeedEraValidationTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(SeedEraValidationTest, ReportsExactlyTheseErrors) {
  EXPECT_EQ(errorsOf(GetParam().yaml), GetParam().errors);
}

TEST(SeedEraValidationTest, AcceptsValidObjects) {
  EXPECT_EQ(errorsOf(std::string(kProvisioner) + "spec: {providerRef: {name: d}}"),
            std::vector<std::string>{});
  EXPECT_EQ(errorsOf(std::string(kMachine) + "spec: {}"), std::vector<std::string>{});
  EXPECT_EQ(errorsOf(std::string(kNodeTemplate) +
                     "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b}}"),
            std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(
    Manifests, SeedEraValidationTest,
    ::testing::Values(
        InvalidCase{"ProvisionerFieldInBothForms",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, taints: [{key: a, effect: NoSchedule}],\n"
                        "  template: {taints: [{key: b, effect: NoSchedule}]}}",
                    {"spec.template.taints: Forbidden: spec.taints and spec.template.taints are "
                     "both set; set only one of them"}},
        InvalidCase{"ProvisionerProviderRefInBothForms",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, template: {providerRef: {name: e}}}",
                    {"spec.template.providerRef: Forbidden: spec.providerRef and "
                     "spec.template.providerRef are both set; set only one of them"}},
        InvalidCase{"ProvisionerProviderAndProviderRef",
                    std::string(kProvisioner) +
                        "spec: {provider: {amiFamily: AL2}, providerRef: {name: d}}",
                    {"spec.providerRef: Forbidden: spec.provider and spec.providerRef are "
                     "mutually exclusive"}},
        InvalidCase{"ProvisionerWithoutProvider",
                    std::string(kProvisioner) + "spec: {}",
                    {"spec.providerRef: Required value: one of spec.provider or spec.providerRef "
                     "is needed"}},
        InvalidCase{"TemplateFormWithoutProviderRef",
                    std::string(kProvisioner) + "spec: {template: {labels: {a: b}}}",
                    {"spec.template.providerRef: Required value: one of spec.provider or "
                     "spec.template.providerRef is needed"}},
        InvalidCase{"TtlAfterEmptyWithConsolidation",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, ttlSecondsAfterEmpty: 30,\n"
                        "  consolidation: {enabled: true}}",
                    {"spec.ttlSecondsAfterEmpty: Forbidden: may not be set together with "
                     "spec.consolidation.enabled"}},
        InvalidCase{"NegativeTtl",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, ttlSecondsUntilExpired: -5}",
                    {"spec.ttlSecondsUntilExpired: Invalid value: -5: must be greater than or "
                     "equal to 0"}},
        InvalidCase{"WeightAboveHundred",
                    std::string(kProvisioner) + "spec: {providerRef: {name: d}, weight: 101}",
                    {"spec.weight: Invalid value: 101: must be less than or equal to 100"}},
        InvalidCase{"RequirementInWithoutValues",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, requirements: [{key: a, operator: In}]}",
                    {"spec.requirements[0].values: Required value: operator In needs at least "
                     "one value"}},
        InvalidCase{"RequirementGtNotAnInteger",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d},\n"
                        "  template: {requirements: [{key: a, operator: Gt, values: [x]}]}}",
                    {"spec.template.requirements[0].values: Invalid value: [\"x\"]: operator Gt "
                     "needs a single non-negative integer value"}},
        InvalidCase{"RequirementGteIsNotV1alpha5",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, requirements: [{key: a, operator: Gte, "
                        "values: [\"1\"]}]}",
                    {"spec.requirements[0].operator: Unsupported value: \"Gte\": supported "
                     "values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""}},
        InvalidCase{"DuplicateTaintAcrossStartupTaints",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, taints: [{key: a, effect: NoSchedule}],\n"
                        "  startupTaints: [{key: a, effect: NoSchedule}]}",
                    {"spec.startupTaints[0]: Duplicate value: \"a:NoSchedule\""}},
        InvalidCase{"TaintEffect",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, taints: [{key: a, effect: Sometimes}]}",
                    {"spec.taints[0].effect: Unsupported value: \"Sometimes\": supported values: "
                     "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""}},
        InvalidCase{"RestrictedLabel",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, labels: {karpenter.sh/provisioner-name: "
                        "x}}",
                    {"spec.labels[karpenter.sh/provisioner-name]: Forbidden: label is "
                     "restricted; Karpenter sets it"}},
        InvalidCase{"KubeletEvictionSignal",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d},\n"
                        "  kubeletConfiguration: {evictionHard: {memory.free: 5%}}}",
                    {"spec.kubeletConfiguration.evictionHard[memory.free]: Unsupported value: "
                     "\"memory.free\": supported values: \"memory.available\", "
                     "\"nodefs.available\", \"nodefs.inodesFree\", \"imagefs.available\", "
                     "\"imagefs.inodesFree\", \"pid.available\""}},
        InvalidCase{"KubeletSoftEvictionWithoutGracePeriod",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d},\n"
                        "  kubeletConfiguration: {evictionSoft: {memory.available: 5%}}}",
                    {"spec.kubeletConfiguration.evictionSoft[memory.available]: Invalid value: "
                     "\"5%\": has no matching evictionSoftGracePeriod"}},
        InvalidCase{"KubeletImageGCThresholds",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d},\n"
                        "  kubeletConfiguration: {imageGCHighThresholdPercent: 50,\n"
                        "    imageGCLowThresholdPercent: 60}}",
                    {"spec.kubeletConfiguration.imageGCHighThresholdPercent: Invalid value: 50: "
                     "must be greater than imageGCLowThresholdPercent"}},
        InvalidCase{"KubeletContainerRuntime",
                    std::string(kProvisioner) +
                        "spec: {providerRef: {name: d}, kubeletConfiguration: {containerRuntime: "
                        "crio}}",
                    {"spec.kubeletConfiguration.containerRuntime: Unsupported value: \"crio\": "
                     "supported values: \"dockerd\", \"containerd\""}},
        InvalidCase{"ProviderRefWithoutName",
                    std::string(kProvisioner) + "spec: {providerRef: {kind: AWSNodeTemplate}}",
                    {"spec.providerRef.name: Required value"}},
        InvalidCase{"MachineDuplicateConditionType",
                    std::string(kMachine) +
                        "status: {conditions: [{type: Ready, status: \"True\"},\n"
                        "  {type: Ready, status: \"False\"}]}",
                    {"status.conditions[1]: Duplicate value: {\"type\":\"Ready\"}"}},
        InvalidCase{"MachineConditionStatus",
                    std::string(kMachine) + "status: {conditions: [{type: Ready, status: Maybe}]}",
                    {"status.conditions[0].status: Unsupported value: \"Maybe\": supported values: "
                     "\"True\", \"False\", \"Unknown\""}},
        InvalidCase{"MachineMalformedQuantity",
                    std::string(kMachine) + "spec: {resources: {requests: {cpu: 1KK}}}",
                    {"spec.resources.requests[cpu]: Invalid value: \"1KK\": unable to parse "
                     "quantity's suffix"}},
        InvalidCase{
            "NodeTemplateWithoutSelectors",
            std::string(kNodeTemplate) + "spec: {}",
            {"spec.subnetSelector: Required value", "spec.securityGroupSelector: Required value"}},
        InvalidCase{"NodeTemplateLaunchTemplateWithUserData",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, launchTemplate: lt, userData: x}",
                    {"spec.userData: Forbidden: may not be set together with "
                     "spec.launchTemplate"}},
        InvalidCase{"NodeTemplateCustomWithoutAmiSelector",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b}, "
                        "amiFamily: Custom}",
                    {"spec.amiSelector: Required value: amiFamily Custom needs an amiSelector"}},
        InvalidCase{"NodeTemplateAmiFamily",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b}, "
                        "amiFamily: Debian}",
                    {"spec.amiFamily: Unsupported value: \"Debian\": supported values: \"AL2\", "
                     "\"AL2023\", \"Bottlerocket\", \"Ubuntu\", \"Custom\", \"Windows2019\", "
                     "\"Windows2022\""}},
        InvalidCase{"NodeTemplateHopLimit",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b},\n"
                        "  metadataOptions: {httpPutResponseHopLimit: 65}}",
                    {"spec.metadataOptions.httpPutResponseHopLimit: Invalid value: 65: must be "
                     "less than or equal to 64"}},
        InvalidCase{"NodeTemplateBlockDeviceWithoutEbs",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b},\n"
                        "  blockDeviceMappings: [{deviceName: /dev/xvda}]}",
                    {"spec.blockDeviceMappings[0].ebs: Required value"}},
        InvalidCase{"NodeTemplateDuplicateDeviceIndex",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b},\n"
                        "  networkInterfaces: [{deviceIndex: 1}, {deviceIndex: 1}]}",
                    {"spec.networkInterfaces[1]: Duplicate value: "
                     "{\"networkCardIndex\":0,\"deviceIndex\":1}"}},
        InvalidCase{"NodeTemplateNegativePrefixCount",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b},\n"
                        "  networkInterfaces: [{ipv4PrefixCount: -1}]}",
                    {"spec.networkInterfaces[0].ipv4PrefixCount: Invalid value: -1: must be "
                     "greater than or equal to 0"}},
        InvalidCase{"NodeTemplateInterfaceType",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b},\n"
                        "  networkInterfaces: [{interfaceType: trunk}]}",
                    {"spec.networkInterfaces[0].interfaceType: Unsupported value: \"trunk\": "
                     "supported values: \"interface\", \"efa\", \"efa-only\""}},
        InvalidCase{"NodeTemplateFixedAddress",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b},\n"
                        "  networkInterfaces: [{privateIpAddress: 10.0.0.1}]}",
                    {"spec.networkInterfaces[0].privateIpAddress: Forbidden: a fixed address "
                     "cannot be shared by every node launched from one template (seed 001)"}},
        InvalidCase{"NodeTemplateUnknownField",
                    std::string(kNodeTemplate) +
                        "spec: {subnetSelector: {a: b}, securityGroupSelector: {a: b}, role: r}",
                    {"spec.role: field not declared in schema"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::api::seedera
