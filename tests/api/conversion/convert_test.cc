#include "api/conversion/convert.h"

#include <gtest/gtest.h>

#include "api/yaml.h"
#include "fixtures.h"

namespace nodewright::api::conversion {
namespace {

Json parse(std::string_view yaml) {
  auto docs = parseDocuments(yaml);
  EXPECT_TRUE(docs && docs->size() == 1);
  return docs ? docs->front().value : Json();
}

TEST(ConvertToV1Test, ConvertsEachSeedEraKindToItsV1Kind) {
  for (auto [yaml, kind] : std::vector<std::pair<std::string_view, std::string>>{
           {testing::kFullProvisioner, "NodePool"},
           {testing::kFullMachine, "NodeClaim"},
           {testing::kFullNodeTemplate, "EC2NodeClass"}}) {
    auto v1 = convertToV1(parse(yaml));
    ASSERT_TRUE(v1) << v1.error().message();
    EXPECT_EQ((*v1)["kind"], kind);
  }
}

TEST(ConvertToV1Test, ReportsDecodingErrorsOfTheSeedEraObject) {
  auto v1 = convertToV1Fields(parse(R"(
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: p}
spec:
  providerRef: {name: default}
  weight: 0
  ttlSecondsAfterEmpty: -1
  unknownField: 1
)"));
  ASSERT_FALSE(v1);
  EXPECT_EQ(testing::errorsOf(v1),
            (std::vector<std::string>{
                "spec.unknownField: field not declared in schema",
                "spec.ttlSecondsAfterEmpty: Invalid value: -1: must be greater than or equal to 0",
                "spec.weight: Invalid value: 0: must be greater than or equal to 1"}));
}

TEST(ConvertToV1Test, RendersEveryErrorIntoOneInvalidError) {
  auto v1 = convertToV1(parse(R"(
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: p}
spec:
  provider: {amiFamily: AL2}
  kubeletConfiguration: {containerRuntime: dockerd}
)"));
  ASSERT_FALSE(v1);
  EXPECT_TRUE(v1.error().is(core::Code::Invalid));
  EXPECT_EQ(v1.error().message(),
            "spec.provider: Forbidden: an inline provider cannot be expressed in karpenter.sh/v1; "
            "move it to an AWSNodeTemplate (converted to an EC2NodeClass) and reference that with "
            "providerRef; spec.kubeletConfiguration.containerRuntime: Forbidden: has no "
            "karpenter.sh/v1 equivalent; Karpenter v1 nodes always run containerd");
}

TEST(ConvertToV1Test, RefusesAKindThatIsNotSeedEra) {
  auto v1 = convertToV1Fields(parse(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: p}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)"));
  EXPECT_EQ(testing::errorsOf(v1),
            (std::vector<std::string>{
                "kind: Invalid value: \"NodePool\": not a seed-era kind; nothing to convert"}));
}

TEST(ConvertFromV1Test, RefusesATargetVersionWithoutThatKind) {
  auto v1 = convertToV1(parse(testing::kFullMachine));
  ASSERT_TRUE(v1) << v1.error().message();
  auto back = convertFromV1Fields(*v1, "karpenter.k8s.aws/v1alpha1");
  EXPECT_EQ(testing::errorsOf(back),
            (std::vector<std::string>{
                "apiVersion: Invalid value: \"karpenter.k8s.aws/v1alpha1\": no seed-era kind of "
                "this version converts from karpenter.sh/v1 NodeClaim"}));
}

TEST(ConvertFromV1Test, NeitherDefaultsNorValidatesTheV1Object) {
  // An EC2NodeClass without role or instanceProfile is invalid v1, and v1 would default its
  // metadataOptions; neither may leak into the structural conversion.
  auto back = convertFromV1(parse(R"(
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: nc}
spec:
  subnetSelectorTerms: [{tags: {a: b}}]
  securityGroupSelectorTerms: [{id: sg-1}]
  amiSelectorTerms: [{id: ami-1}]
)"),
                            "karpenter.k8s.aws/v1alpha1");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(*back, Json::parse(R"({"apiVersion":"karpenter.k8s.aws/v1alpha1",
      "kind":"AWSNodeTemplate","metadata":{"name":"nc"},"spec":{
      "subnetSelector":{"a":"b"},"securityGroupSelector":{"aws::ids":"sg-1"},
      "amiSelector":{"aws::ids":"ami-1"}}})"));
}

}  // namespace
}  // namespace nodewright::api::conversion
