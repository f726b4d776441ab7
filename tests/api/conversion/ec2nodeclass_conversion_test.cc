#include "api/conversion/ec2nodeclass_conversion.h"

#include <gtest/gtest.h>

#include <functional>

#include "api/conversion/annotations.h"
#include "api/conversion/convert.h"
#include "fixtures.h"

namespace nodewright::api::conversion {
namespace {

using testing::decode;
using testing::errorsOf;

seedera::AWSNodeTemplate minimalTemplate() {
  return decode<seedera::AWSNodeTemplate>(R"(
apiVersion: karpenter.k8s.aws/v1alpha1
kind: AWSNodeTemplate
metadata: {name: t}
spec:
  subnetSelector: {karpenter.sh/discovery: demo}
  securityGroupSelector: {karpenter.sh/discovery: demo}
)");
}

struct MappingCase {
  std::string name;
  std::function<void(seedera::AWSNodeTemplate&)> edit;
  std::string pointer;  // JSON pointer into the encoded EC2NodeClass
  Json expected;
};

void PrintTo(const MappingCase& c, std::ostream* os) {
  *os << c.name;
}

class AWSNodeTemplateToEC2NodeClassTest : public ::testing::TestWithParam<MappingCase> {};

TEST_P(AWSNodeTemplateToEC2NodeClassTest, MapsTheField) {
  seedera::AWSNodeTemplate t = minimalTemplate();
  GetParam().edit(t);
  Converted<karpenter::EC2NodeClass> nodeClass = toEC2NodeClass(t);
  ASSERT_TRUE(nodeClass) << errorsOf(nodeClass).front();
  Json encoded = toJson(*nodeClass);
  ASSERT_TRUE(encoded.contains(Json::json_pointer(GetParam().pointer))) << encoded.dump(2);
  EXPECT_EQ(encoded.at(Json::json_pointer(GetParam().pointer)), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, AWSNodeTemplateToEC2NodeClassTest,
    ::testing::Values(
        MappingCase{"ApiVersion", [](auto&) {}, "/apiVersion", "karpenter.k8s.aws/v1"},
        MappingCase{"Kind", [](auto&) {}, "/kind", "EC2NodeClass"},
        MappingCase{"SubnetTags", [](auto&) {}, "/spec/subnetSelectorTerms",
                    Json::parse(R"([{"tags":{"karpenter.sh/discovery":"demo"}}])")},
        MappingCase{"SubnetIds",
                    [](auto& t) {
                      t.spec.subnetSelector = {{"aws-ids", "subnet-1,subnet-2"}};
                    },
                    "/spec/subnetSelectorTerms",
                    Json::parse(R"([{"id":"subnet-1"},{"id":"subnet-2"}])")},
        MappingCase{"SecurityGroupIds",
                    [](auto& t) {
                      t.spec.securityGroupSelector = {{"aws::ids", "sg-1, sg-2"}};
                    },
                    "/spec/securityGroupSelectorTerms",
                    Json::parse(R"([{"id":"sg-1"},{"id":"sg-2"}])")},
        MappingCase{"SecurityGroupName",
                    [](auto& t) {
                      t.spec.securityGroupSelector = {{"aws::name", "nodes"}};
                    },
                    "/spec/securityGroupSelectorTerms", Json::parse(R"([{"name":"nodes"}])")},
        MappingCase{"AmiSelectorOwners",
                    [](auto& t) {
                      t.spec.amiSelector = {{"aws::name", "my-ami"}, {"aws::owners", "self"}};
                    },
                    "/spec/amiSelectorTerms", Json::parse(R"([{"name":"my-ami","owner":"self"}])")},
        MappingCase{"InstanceProfile",
                    [](auto& t) { t.spec.instanceProfile = "KarpenterNodeInstanceProfile"; },
                    "/spec/instanceProfile", "KarpenterNodeInstanceProfile"},
        MappingCase{"AmiFamily", [](auto& t) { t.spec.amiFamily = "AL2023"; }, "/spec/amiFamily",
                    "AL2023"},
        MappingCase{"UserData", [](auto& t) { t.spec.userData = "#!/bin/bash\n"; },
                    "/spec/userData", "#!/bin/bash\n"},
        MappingCase{"Tags",
                    [](auto& t) {
                      t.spec.tags = {{"team", "a"}};
                    },
                    "/spec/tags", Json{{"team", "a"}}},
        MappingCase{"MetadataOptions",
                    [](auto& t) {
                      auto& m = t.spec.metadataOptions.emplace();
                      m.httpTokens = "optional";
                      m.httpPutResponseHopLimit = 2;
                    },
                    "/spec/metadataOptions",
                    Json{{"httpPutResponseHopLimit", 2}, {"httpTokens", "optional"}}},
        MappingCase{"BlockDeviceMappings",
                    [](auto& t) {
                      seedera::BlockDeviceMapping m;
                      m.deviceName = "/dev/xvda";
                      m.ebs.emplace().volumeSize = *core::Quantity::parse("100Gi");
                      m.ebs->volumeType = "gp3";
                      t.spec.blockDeviceMappings = {m};
                    },
                    "/spec/blockDeviceMappings", Json::parse(R"([{"deviceName":"/dev/xvda",
                                     "ebs":{"volumeSize":"100Gi","volumeType":"gp3"}}])")},
        MappingCase{"DetailedMonitoring", [](auto& t) { t.spec.detailedMonitoring = true; },
                    "/spec/detailedMonitoring", true},
        MappingCase{"AssociatePublicIpAddressIsRespelled",
                    [](auto& t) { t.spec.associatePublicIpAddress = false; },
                    "/spec/associatePublicIPAddress", false},
        MappingCase{"Context", [](auto& t) { t.spec.context = "ctx"; }, "/spec/context", "ctx"},
        MappingCase{"NetworkInterfaces",
                    [](auto& t) {
                      seedera::NetworkInterface ni;
                      ni.associateCarrierIPAddress = false;
                      ni.associatePublicIPAddress = true;
                      ni.deleteOnTermination = true;
                      ni.description = "eth0";
                      ni.deviceIndex = 0;
                      ni.interfaceType = "efa";
                      ni.networkCardIndex = 0;
                      ni.ipv4PrefixCount = 1;
                      ni.ipv6PrefixCount = 2;
                      ni.subnetSelector = {{"aws-ids", "subnet-9"}};
                      ni.securityGroupSelector = {{"role", "efa"}};
                      t.spec.networkInterfaces = {ni};
                    },
                    "/spec/networkInterfaces", Json::parse(R"([{"associateCarrierIPAddress":false,
                                     "associatePublicIPAddress":true,
                                     "deleteOnTermination":true,"description":"eth0",
                                     "deviceIndex":0,"interfaceType":"efa",
                                     "networkCardIndex":0,"ipv4PrefixCount":1,
                                     "ipv6PrefixCount":2,
                                     "subnetSelectorTerms":[{"id":"subnet-9"}],
                                     "securityGroupSelectorTerms":[{"tags":{"role":"efa"}}]}])")},
        MappingCase{"SelectorSpellingIsRecorded",
                    [](auto& t) {
                      t.spec.securityGroupSelector = {{"aws-ids", "sg-1, sg-2"}};
                    },
                    "/metadata/annotations/compatibility.karpenter.k8s.aws~1v1alpha1-selectors",
                    R"({"spec.securityGroupSelector":{"aws-ids":"sg-1, sg-2"}})"},
        MappingCase{"StatusSubnets",
                    [](auto& t) {
                      t.status.subnets = {{"subnet-1", "us-west-2a"}};
                    },
                    "/status/subnets", Json::parse(R"([{"id":"subnet-1","zone":"us-west-2a"}])")}),
    [](const auto& info) { return info.param.name; });

struct AliasCase {
  std::string name;
  std::optional<std::string> amiFamily;
  std::string alias;
};

void PrintTo(const AliasCase& c, std::ostream* os) {
  *os << c.name;
}

class AmiAliasTest : public ::testing::TestWithParam<AliasCase> {};

TEST_P(AmiAliasTest, IsDerivedFromTheFamilyWhenThereIsNoAmiSelector) {
  seedera::AWSNodeTemplate t = minimalTemplate();
  t.spec.amiFamily = GetParam().amiFamily;
  Converted<karpenter::EC2NodeClass> nodeClass = toEC2NodeClass(t);
  ASSERT_TRUE(nodeClass) << errorsOf(nodeClass).front();
  ASSERT_EQ(nodeClass->spec.amiSelectorTerms.size(), 1u);
  EXPECT_EQ(nodeClass->spec.amiSelectorTerms[0].alias, GetParam().alias);
  EXPECT_EQ(nodeClass->metadata.annotations.at(kAmiAliasAnnotation), GetParam().alias);
  Converted<seedera::AWSNodeTemplate> back = toAWSNodeTemplate(*nodeClass);
  ASSERT_TRUE(back) << errorsOf(back).front();
  EXPECT_EQ(toJson(*back), toJson(t));
}

INSTANTIATE_TEST_SUITE_P(
    Families, AmiAliasTest,
    ::testing::Values(AliasCase{"Unset", std::nullopt, "al2@latest"},
                      AliasCase{"AL2", "AL2", "al2@latest"},
                      AliasCase{"AL2023", "AL2023", "al2023@latest"},
                      AliasCase{"Bottlerocket", "Bottlerocket", "bottlerocket@latest"},
                      AliasCase{"Windows2019", "Windows2019", "windows2019@latest"},
                      AliasCase{"Windows2022", "Windows2022", "windows2022@latest"}),
    [](const auto& info) { return info.param.name; });

struct ErrorCase {
  std::string name;
  std::function<void(seedera::AWSNodeTemplate&)> edit;
  std::vector<std::string> errors;
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class AWSNodeTemplateConversionErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(AWSNodeTemplateConversionErrorTest, NamesEveryFieldWithoutAV1Home) {
  seedera::AWSNodeTemplate t = minimalTemplate();
  GetParam().edit(t);
  EXPECT_EQ(errorsOf(toEC2NodeClass(t)), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, AWSNodeTemplateConversionErrorTest,
    ::testing::Values(
        ErrorCase{"LaunchTemplate",
                  [](auto& t) {
                    t.spec.securityGroupSelector.clear();
                    t.spec.launchTemplate = "my-launch-template";
                  },
                  {"spec.launchTemplate: Forbidden: spec.launchTemplateName (an unmanaged launch "
                   "template) has no karpenter.k8s.aws/v1 equivalent; Karpenter generates the "
                   "launch template from the EC2NodeClass"}},
        ErrorCase{"InstanceStoreVirtualName",
                  [](auto& t) {
                    seedera::BlockDeviceMapping m;
                    m.deviceName = "/dev/sdb";
                    m.virtualName = "ephemeral0";
                    t.spec.blockDeviceMappings = {m};
                  },
                  {"spec.blockDeviceMappings[0].virtualName: Forbidden: has no "
                   "karpenter.k8s.aws/v1 equivalent; instance store volumes are configured by "
                   "instanceStorePolicy"}},
        ErrorCase{"UbuntuFamily",
                  [](auto& t) { t.spec.amiFamily = "Ubuntu"; },
                  {"spec.amiFamily: Forbidden: has no karpenter.k8s.aws/v1 equivalent; use Custom "
                   "with an amiSelector for Ubuntu AMIs"}},
        ErrorCase{"CustomFamilyWithoutSelector",
                  [](auto& t) { t.spec.amiFamily = "Custom"; },
                  {"spec.amiSelector: Required value: amiFamily Custom has no default AMI to "
                   "select in karpenter.k8s.aws/v1"}},
        ErrorCase{"IdsAndTagsInOneSelector",
                  [](auto& t) { t.spec.subnetSelector["aws-ids"] = "subnet-1"; },
                  {"spec.subnetSelector[aws-ids]: Forbidden: IDs cannot be combined with other "
                   "keys: a karpenter.k8s.aws/v1 id term stands alone"}},
        ErrorCase{"InterfaceSubnetName",
                  [](auto& t) {
                    seedera::NetworkInterface ni;
                    ni.subnetSelector = {{"aws::name", "private"}};
                    t.spec.networkInterfaces = {ni};
                  },
                  {"spec.networkInterfaces[0].subnetSelector[aws::name]: Forbidden: has no "
                   "karpenter.k8s.aws/v1 equivalent; subnets are selected by id or tags; use the "
                   "Name tag"}}),
    [](const auto& info) { return info.param.name; });

TEST(AWSNodeTemplateRoundTripTest, RestoresAFullyPopulatedTemplateExactly) {
  seedera::AWSNodeTemplate original = decode<seedera::AWSNodeTemplate>(testing::kFullNodeTemplate);
  Converted<karpenter::EC2NodeClass> nodeClass = toEC2NodeClass(original);
  ASSERT_TRUE(nodeClass) << errorsOf(nodeClass).front();
  Converted<seedera::AWSNodeTemplate> back = toAWSNodeTemplate(*nodeClass);
  ASSERT_TRUE(back) << errorsOf(back).front();
  EXPECT_EQ(toJson(*back).dump(2), toJson(original).dump(2));
}

TEST(AWSNodeTemplateRoundTripTest, RestoresAFullyPopulatedTemplateThroughEncodedJson) {
  seedera::AWSNodeTemplate original = decode<seedera::AWSNodeTemplate>(testing::kFullNodeTemplate);
  auto v1 = convertToV1(toJson(original));
  ASSERT_TRUE(v1) << v1.error().message();
  auto back = convertFromV1(*v1, "karpenter.k8s.aws/v1alpha1");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->dump(2), toJson(original).dump(2));
}

TEST(AWSNodeTemplateRoundTripTest, KeepsAnEmptyWildcardTagValue) {
  seedera::AWSNodeTemplate original = minimalTemplate();
  original.spec.subnetSelector = {{"tier", ""}};
  Converted<karpenter::EC2NodeClass> nodeClass = toEC2NodeClass(original);
  ASSERT_TRUE(nodeClass) << errorsOf(nodeClass).front();
  EXPECT_EQ(nodeClass->spec.subnetSelectorTerms[0].tags.at("tier"), "*");
  Converted<seedera::AWSNodeTemplate> back = toAWSNodeTemplate(*nodeClass);
  ASSERT_TRUE(back) << errorsOf(back).front();
  EXPECT_EQ(toJson(*back), toJson(original));
}

TEST(AWSNodeTemplateRoundTripTest, IgnoresARecordedSpellingOnceTheTermsChanged) {
  seedera::AWSNodeTemplate original = minimalTemplate();
  original.spec.securityGroupSelector = {{"aws-ids", "sg-1, sg-2"}};
  karpenter::EC2NodeClass nodeClass = *toEC2NodeClass(original);
  nodeClass.spec.securityGroupSelectorTerms.pop_back();  // edited as a v1 object
  Converted<seedera::AWSNodeTemplate> back = toAWSNodeTemplate(nodeClass);
  ASSERT_TRUE(back) << errorsOf(back).front();
  EXPECT_EQ(back->spec.securityGroupSelector,
            (std::map<std::string, std::string>{{"aws::ids", "sg-1"}}));
  EXPECT_TRUE(back->metadata.annotations.empty());
}

TEST(AWSNodeTemplateRoundTripTest, WritesAnAmiSelectorOnceTheAliasWasReplaced) {
  seedera::AWSNodeTemplate original = minimalTemplate();
  karpenter::EC2NodeClass nodeClass = *toEC2NodeClass(original);
  nodeClass.spec.amiSelectorTerms = {karpenter::AMISelectorTerm{}};
  nodeClass.spec.amiSelectorTerms[0].id = "ami-1";
  Converted<seedera::AWSNodeTemplate> back = toAWSNodeTemplate(nodeClass);
  ASSERT_TRUE(back) << errorsOf(back).front();
  EXPECT_EQ(back->spec.amiSelector, (std::map<std::string, std::string>{{"aws::ids", "ami-1"}}));
}

struct ReverseCase {
  std::string name;
  std::function<void(karpenter::EC2NodeClass&)> edit;
  std::vector<std::string> errors;
};

void PrintTo(const ReverseCase& c, std::ostream* os) {
  *os << c.name;
}

class EC2NodeClassToAWSNodeTemplateTest : public ::testing::TestWithParam<ReverseCase> {};

TEST_P(EC2NodeClassToAWSNodeTemplateTest, NamesEveryV1OnlySetting) {
  karpenter::EC2NodeClass nodeClass = *toEC2NodeClass(minimalTemplate());
  GetParam().edit(nodeClass);
  EXPECT_EQ(errorsOf(toAWSNodeTemplate(nodeClass)), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Fields, EC2NodeClassToAWSNodeTemplateTest,
    ::testing::Values(
        ReverseCase{"Role",
                    [](auto& n) { n.spec.role = "KarpenterNodeRole"; },
                    {"spec.role: Forbidden: has no karpenter.k8s.aws/v1alpha1 equivalent; use "
                     "instanceProfile"}},
        ReverseCase{"AliasOtherThanTheDerivedOne",
                    [](auto& n) { n.spec.amiSelectorTerms[0].alias = "al2023@latest"; },
                    {"spec.amiSelectorTerms[0].alias: Forbidden: has no karpenter.k8s.aws/v1alpha1 "
                     "equivalent; select the AMI by id, name or tags"}},
        ReverseCase{"Kubelet",
                    [](auto& n) { n.spec.kubelet.emplace().maxPods = 10; },
                    {"spec.kubelet: Forbidden: has no karpenter.k8s.aws/v1alpha1 equivalent; set "
                     "kubeletConfiguration on the Provisioner"}},
        ReverseCase{"InstanceStorePolicy",
                    [](auto& n) { n.spec.instanceStorePolicy = "RAID0"; },
                    {"spec.instanceStorePolicy: Forbidden: has no karpenter.k8s.aws/v1alpha1 "
                     "equivalent"}},
        ReverseCase{"CapacityReservations",
                    [](auto& n) {
                      n.spec.capacityReservationSelectorTerms = {{{}, "cr-1", "", ""}};
                    },
                    {"spec.capacityReservationSelectorTerms: Forbidden: has no "
                     "karpenter.k8s.aws/v1alpha1 equivalent"}},
        ReverseCase{"RootVolume",
                    [](auto& n) {
                      karpenter::BlockDeviceMapping m;
                      m.deviceName = "/dev/xvda";
                      m.rootVolume = true;
                      n.spec.blockDeviceMappings = {m};
                    },
                    {"spec.blockDeviceMappings[0].rootVolume: Forbidden: has no "
                     "karpenter.k8s.aws/v1alpha1 equivalent"}},
        ReverseCase{"SubnetTermsThatAreNotOneSelector",
                    [](auto& n) {
                      n.spec.subnetSelectorTerms.push_back({{{"other", "x"}}, ""});
                    },
                    {"spec.subnetSelectorTerms: Forbidden: these terms are not one tag set "
                     "crossed with names and owners, so no single karpenter.k8s.aws/v1alpha1 "
                     "selector expresses them"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::api::conversion
