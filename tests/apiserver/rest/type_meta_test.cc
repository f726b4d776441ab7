#include <gtest/gtest.h>

#include "apiserver/rest/object_meta.h"

// How a write body's apiVersion and kind are read, case by case, with kube-apiserver's answer.
namespace nodewright::apiserver::rest {
namespace {

using api::Json;

Resource builtin(std::string group, std::string version, std::string kind) {
  Resource r;
  r.group = std::move(group);
  r.version = std::move(version);
  r.kind = std::move(kind);
  return r;
}

Resource nodePools() {
  Resource r = builtin("karpenter.sh", "v1", "NodePool");
  r.custom = true;
  return r;
}

struct TypeCase {
  std::string name;
  Resource resource;
  Json body;
  int code;             // 0: accepted
  std::string message;  // kube's message when refused
};

class DecodeTypeMetaTest : public ::testing::TestWithParam<TypeCase> {};

TEST_P(DecodeTypeMetaTest, AnswersAsKubeApiserver) {
  const TypeCase& c = GetParam();
  Json body = c.body;
  auto problem = meta::decodeTypeMeta(c.resource, body);
  if (c.code == 0) {
    ASSERT_FALSE(problem) << problem->message;
    EXPECT_EQ(body["apiVersion"], c.resource.apiVersion());
    EXPECT_EQ(body["kind"], c.resource.kind);
    return;
  }
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->code, c.code);
  EXPECT_EQ(problem->message, c.message);
}

const Json kName = {{"name", "x"}};

INSTANTIATE_TEST_SUITE_P(
    Bodies, DecodeTypeMetaTest,
    ::testing::Values(
        // json.go gvkWithDefaults: the endpoint fills what the body leaves out.
        TypeCase{"BuiltinWithoutKindOrVersion", builtin("", "v1", "Namespace"),
                 {{"metadata", kName}}, 0, ""},
        TypeCase{"BuiltinWithoutKind", builtin("apps", "v1", "Deployment"),
                 {{"apiVersion", "apps/v1"}, {"metadata", kName}}, 0, ""},
        TypeCase{"BuiltinWithoutVersion", builtin("apps", "v1", "Deployment"),
                 {{"kind", "Deployment"}, {"metadata", kName}}, 0, ""},
        // create.go/update.go: the decoded group/version must be the endpoint's.
        TypeCase{"BuiltinOtherVersion", builtin("apps", "v1", "Deployment"),
                 {{"apiVersion", "apps/v1beta2"}, {"kind", "Deployment"}}, 400,
                 "the API version in the data (apps/v1beta2) does not match the expected API "
                 "version (apps/v1)"},
        // versioning.go Decode converts to the endpoint's internal type: no conversion from
        // another kind; transformDecodeError (handlers/rest.go) words it.
        TypeCase{"BuiltinOtherKind", builtin("", "v1", "Namespace"),
                 {{"apiVersion", "v1"}, {"kind", "Pod"}}, 400,
                 "Pod in version \"v1\" cannot be handled as a Namespace: converting (v1.Pod) to "
                 "(core.Namespace): unknown conversion"},
        TypeCase{"CustomWithKind", nodePools(),
                 {{"apiVersion", "karpenter.sh/v1"}, {"kind", "NodePool"}}, 0, ""},
        // unstructured helpers.go Decode: an unstructured object must name its kind.
        TypeCase{"CustomWithoutKind", nodePools(),
                 {{"apiVersion", "karpenter.sh/v1"}, {"metadata", kName}}, 400,
                 "NodePool in version \"v1\" cannot be handled as a NodePool: Object 'Kind' is "
                 "missing in '{\"apiVersion\":\"karpenter.sh/v1\",\"metadata\":{\"name\":\"x\"}}'"},
        TypeCase{"CustomWithoutVersion", nodePools(), {{"kind", "NodePool"}}, 400,
                 "the API version in the data () does not match the expected API version "
                 "(karpenter.sh/v1)"},
        // apiextensions validator.go ValidateTypeMeta.
        TypeCase{"CustomOtherKind", nodePools(),
                 {{"apiVersion", "karpenter.sh/v1"}, {"kind", "NodeClaim"}, {"metadata", kName}},
                 422,
                 "NodePool.karpenter.sh \"x\" is invalid: kind: Invalid value: \"NodeClaim\": "
                 "must be NodePool"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::apiserver::rest
