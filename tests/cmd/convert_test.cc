#include <gtest/gtest.h>

#include "api/conversion/convert.h"
#include "api/yaml.h"
#include "cmd_test_util.h"

namespace nodewright::cmd {
namespace {

using testing::lines;
using testing::Ran;
using testing::ScratchDir;
using Lines = std::vector<std::string>;

constexpr const char* kProvisioner = R"(apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: default
spec:
  requirements:
    - key: karpenter.sh/capacity-type
      operator: In
      values: ["spot"]
  providerRef:
    name: default
)";

constexpr const char* kUnconvertibleProvisioner = R"(apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata:
  name: docker
spec:
  kubeletConfiguration:
    containerRuntime: dockerd
  providerRef:
    name: default
)";

constexpr const char* kNodePool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: already-v1
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
)";

constexpr const char* kForeign = R"(apiVersion: example.com/v1
kind: Gizmo
metadata:
  name: g
spec:
  anything: [1, 2]
)";

std::vector<api::Json> values(const std::string& yaml) {
  auto docs = api::parseDocuments(yaml);
  std::vector<api::Json> out;
  if (docs) {
    for (const api::Document& d : *docs) {
      out.push_back(d.value);
    }
  }
  return out;
}

TEST(ConvertCommandTest, SeedEraKindBecomesItsV1Kind) {
  Ran r = testing::runCmd({"convert", "-f", "-"}, kProvisioner);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto expected = api::conversion::convertToV1Fields(values(kProvisioner).at(0));
  ASSERT_TRUE(expected);
  EXPECT_EQ(r.out, api::toYaml(*expected));
  EXPECT_EQ(lines(r.out).at(0), "apiVersion: karpenter.sh/v1");
  EXPECT_EQ(lines(r.out).at(1), "kind: NodePool");
}

TEST(ConvertCommandTest, OtherDocumentsPassThroughUnchanged) {
  const std::string input = std::string(kNodePool) + "---\n" + kForeign;
  Ran r = testing::runCmd({"convert", "-f", "-"}, input);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(values(r.out), values(input));
  EXPECT_EQ(r.out, api::toYaml(values(input)[0]) + "---\n" + api::toYaml(values(input)[1]));
}

TEST(ConvertCommandTest, MixedStreamConvertsOnlyTheSeedEraDocuments) {
  const std::string input = std::string(kForeign) + "---\n" + kProvisioner;
  Ran r = testing::runCmd({"convert", "-f", "-"}, input);
  EXPECT_EQ(r.code, 0) << r.err;
  std::vector<api::Json> out = values(r.out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], values(kForeign)[0]);
  EXPECT_EQ(out[1]["kind"], "NodePool");
}

TEST(ConvertCommandTest, FieldsWithoutV1EquivalentAreErrorsLikeValidate) {
  Ran r = testing::runCmd({"convert", "-f", "-"}, kUnconvertibleProvisioner);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  auto expected = api::conversion::convertToV1Fields(values(kUnconvertibleProvisioner).at(0));
  ASSERT_FALSE(expected);
  Lines want;
  for (const api::FieldError& e : expected.error()) {
    want.push_back("<stdin>:0: Provisioner/docker: " + e.toString());
  }
  EXPECT_EQ(lines(r.err), want);
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(want[0].rfind("<stdin>:0: Provisioner/docker: "
                          "spec.kubeletConfiguration.containerRuntime: Forbidden: ",
                          0),
            0u)
      << want[0];
}

TEST(ConvertCommandTest, InvalidV1DocumentIsReportedAndNothingIsWritten) {
  const std::string input =
      std::string(kProvisioner) + "---\n" +
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: bad\nspec:\n  weight: "
      "\"heavy\"\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: "
      "EC2NodeClass, name: default}\n      requirements: []\n";
  Ran r = testing::runCmd({"convert", "-f", "-"}, input);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err).at(0),
            "<stdin>:1: NodePool/bad: spec.weight: Invalid value: \"heavy\": must be of type "
            "integer");
}

TEST(ConvertCommandTest, JsonOutputIsAnObjectOrAList) {
  Ran one = testing::runCmd({"convert", "-f", "-", "-o", "json"}, kForeign);
  EXPECT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(api::Json::parse(one.out), values(kForeign)[0]);
  Ran two = testing::runCmd({"convert", "-f", "-", "-o", "json"},
                            std::string(kForeign) + "---\n" + kForeign);
  EXPECT_EQ(two.code, 0) << two.err;
  api::Json list = api::Json::parse(two.out);
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_EQ(list["kind"], "List");
  EXPECT_EQ(list["items"].size(), 2u);
}

TEST(ConvertCommandTest, UnknownOutputFormatIsAUsageError) {
  Ran r = testing::runCmd({"convert", "-f", "-", "-o", "xml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
}

TEST(ConvertCommandTest, ReadsFilesAndReportsUnreadableOnes) {
  ScratchDir dir;
  std::string file = dir.write("p.yaml", kProvisioner);
  Ran ok = testing::runCmd({"convert", "-f", file});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(lines(ok.out).at(1), "kind: NodePool");
  std::string missing = (dir.path() / "nope.yaml").string();
  Ran bad = testing::runCmd({"convert", "-f", missing});
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(bad.err, missing + ": cannot read: No such file or directory\n");
}

}  // namespace
}  // namespace nodewright::cmd
