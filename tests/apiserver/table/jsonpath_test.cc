#include "apiserver/table/jsonpath.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace nodewright::apiserver {
namespace {

using api::Json;

const Json kNode = Json::parse(R"({
  "metadata": {
    "name": "node-a",
    "labels": {"kubernetes.io/hostname": "node-a", "topology.kubernetes.io/zone": "z1"},
    "annotations": {"a.b/c": "dotted"}
  },
  "spec": {"taints": [{"key": "t1", "effect": "NoSchedule"}, {"key": "t2", "effect": "NoExecute"}]},
  "status": {
    "capacity": {"cpu": "4", "pods": 110},
    "conditions": [
      {"type": "MemoryPressure", "status": "False", "priority": 1},
      {"type": "Ready", "status": "True", "priority": 5, "ok": true}
    ],
    "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
    "nothing": null
  }
})");

std::vector<Json> eval(std::string_view path) {
  auto result = evalJsonPath(kNode, path);
  EXPECT_TRUE(result.has_value()) << path << ": " << result.error().message();
  return result.value_or(std::vector<Json>{});
}

TEST(JsonPathTest, ReadsNestedFieldsWithOrWithoutBraces) {
  EXPECT_EQ(eval(".metadata.name"), std::vector<Json>{"node-a"});
  EXPECT_EQ(eval("{.metadata.name}"), std::vector<Json>{"node-a"});
  EXPECT_EQ(eval("  { .metadata.name }  "), std::vector<Json>{"node-a"});
  EXPECT_EQ(eval("$.metadata.name"), std::vector<Json>{"node-a"});
  EXPECT_EQ(eval("metadata.name"), std::vector<Json>{"node-a"});
}

TEST(JsonPathTest, RootPathSelectsTheWholeObject) {
  EXPECT_EQ(eval("."), std::vector<Json>{kNode});
  EXPECT_EQ(eval("{$}"), std::vector<Json>{kNode});
}

TEST(JsonPathTest, MissingFieldsSelectNothing) {
  EXPECT_TRUE(eval(".metadata.missing").empty());
  EXPECT_TRUE(eval(".metadata.name.deeper").empty());
  EXPECT_TRUE(eval(".status.nothing.below").empty());
  EXPECT_TRUE(eval(".metadata[0]").empty());
  EXPECT_TRUE(eval(".metadata.name[?(@.x==1)]").empty());
}

TEST(JsonPathTest, NullValuesAreSelected) {
  EXPECT_EQ(eval(".status.nothing"), std::vector<Json>{Json()});
}

TEST(JsonPathTest, IndexesCountFromEitherEnd) {
  EXPECT_EQ(eval(".spec.taints[0].key"), std::vector<Json>{"t1"});
  EXPECT_EQ(eval(".spec.taints[1].key"), std::vector<Json>{"t2"});
  EXPECT_EQ(eval(".spec.taints[-1].key"), std::vector<Json>{"t2"});
  EXPECT_EQ(eval(".spec.taints[-2].key"), std::vector<Json>{"t1"});
  EXPECT_TRUE(eval(".spec.taints[2].key").empty());
  EXPECT_TRUE(eval(".spec.taints[-3].key").empty());
}

TEST(JsonPathTest, SlicesAreClampedToTheArray) {
  EXPECT_EQ(eval(".spec.taints[0:1].key"), std::vector<Json>{"t1"});
  EXPECT_EQ(eval(".spec.taints[1:].key"), std::vector<Json>{"t2"});
  EXPECT_EQ(eval(".spec.taints[:5].key"), (std::vector<Json>{"t1", "t2"}));
  EXPECT_EQ(eval(".spec.taints[-1:].key"), std::vector<Json>{"t2"});
}

TEST(JsonPathTest, WildcardsSelectEveryElementOrMember) {
  EXPECT_EQ(eval(".spec.taints[*].effect"), (std::vector<Json>{"NoSchedule", "NoExecute"}));
  EXPECT_EQ(eval(".spec.taints.*.key"), (std::vector<Json>{"t1", "t2"}));
  EXPECT_EQ(eval(".status.capacity.*"), (std::vector<Json>{"4", 110}));
}

TEST(JsonPathTest, FiltersCompareStringsNumbersAndBooleans) {
  EXPECT_EQ(eval(R"(.status.conditions[?(@.type=="Ready")].status)"), std::vector<Json>{"True"});
  EXPECT_EQ(eval(".status.conditions[?(@.type=='Ready')].status"), std::vector<Json>{"True"});
  EXPECT_EQ(eval(R"(.status.conditions[?(@.type != "Ready")].type)"),
            std::vector<Json>{"MemoryPressure"});
  EXPECT_EQ(eval(".status.conditions[?(@.priority==5)].type"), std::vector<Json>{"Ready"});
  EXPECT_EQ(eval(".status.conditions[?(@.priority>1)].type"), std::vector<Json>{"Ready"});
  EXPECT_EQ(eval(".status.conditions[?(@.priority<=5)].type"),
            (std::vector<Json>{"MemoryPressure", "Ready"}));
  EXPECT_EQ(eval(".status.conditions[?(@.priority<4.5)].type"),
            std::vector<Json>{"MemoryPressure"});
  EXPECT_EQ(eval(".status.conditions[?(@.ok==true)].type"), std::vector<Json>{"Ready"});
  EXPECT_TRUE(eval(R"(.status.conditions[?(@.type=="Nope")].status)").empty());
}

TEST(JsonPathTest, FilterWithoutAComparisonTestsExistence) {
  EXPECT_EQ(eval(".status.conditions[?(@.ok)].type"), std::vector<Json>{"Ready"});
}

TEST(JsonPathTest, ComparingDifferentTypesOnlySatisfiesNotEqual) {
  EXPECT_TRUE(eval(R"(.status.conditions[?(@.priority=="5")].type)").empty());
  EXPECT_EQ(eval(R"(.status.conditions[?(@.priority!="5")].type)").size(), 2U);
  EXPECT_TRUE(eval(R"(.status.conditions[?(@.type>1)].type)").empty());
}

TEST(JsonPathTest, BracketKeysMayContainDots) {
  EXPECT_EQ(eval(".metadata.labels['kubernetes.io/hostname']"), std::vector<Json>{"node-a"});
  EXPECT_EQ(eval(R"(.metadata.labels["topology.kubernetes.io/zone"])"), std::vector<Json>{"z1"});
  EXPECT_EQ(eval(".metadata['annotations']['a.b/c']"), std::vector<Json>{"dotted"});
  EXPECT_EQ(eval(R"({.metadata.labels.kubernetes\.io/hostname})"), std::vector<Json>{"node-a"});
}

TEST(JsonPathTest, ParsedPathsAreReusable) {
  auto path = JsonPath::parse(R"({.status.conditions[?(@.type=="Ready")].status})");
  ASSERT_TRUE(path.has_value()) << path.error().message();
  EXPECT_EQ(path->evaluate(kNode), std::vector<Json>{"True"});
  EXPECT_TRUE(path->evaluate(Json::object()).empty());
  EXPECT_TRUE(path->evaluate(Json("scalar")).empty());
}

struct SyntaxErrorCase {
  const char* name;
  const char* path;
  const char* message;
};

class JsonPathSyntaxTest : public testing::TestWithParam<SyntaxErrorCase> {};

TEST_P(JsonPathSyntaxTest, IsAnInvalidError) {
  auto result = evalJsonPath(kNode, GetParam().path);
  ASSERT_FALSE(result.has_value());
  EXPECT_TRUE(result.error().is(core::Code::Invalid));
  EXPECT_NE(result.error().message().find(GetParam().message), std::string::npos)
      << result.error().message();
  EXPECT_NE(result.error().message().find("invalid JSONPath"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Errors, JsonPathSyntaxTest,
    testing::Values(
        SyntaxErrorCase{"UnterminatedArray", ".spec.taints[0", "unterminated array"},
        SyntaxErrorCase{"OpenBrace", "{.metadata.name", "unbalanced braces"},
        SyntaxErrorCase{"CloseBrace", ".metadata.name}", "unbalanced braces"},
        SyntaxErrorCase{"Recursive", "..name", "recursive descent"},
        SyntaxErrorCase{"Union", ".spec.taints[0,1]", "unions"},
        SyntaxErrorCase{"BadIndex", ".spec.taints[x]", "invalid array index x"},
        SyntaxErrorCase{"EmptyIndex", ".spec.taints[]", "invalid array index"},
        SyntaxErrorCase{"SliceStep", ".spec.taints[0:2:1]", "slice steps"},
        SyntaxErrorCase{"UnterminatedFilter", ".a[?(@.x==1]", "unterminated filter"},
        SyntaxErrorCase{"BadOperator", ".a[?(@.x=<1)]", "unrecognized filter operator =<"},
        SyntaxErrorCase{"BadLiteral", ".a[?(@.x==Ready)]", "filter value must be"},
        SyntaxErrorCase{"FilterWithoutPath", ".a[?(==1)]", "filter without a path"},
        SyntaxErrorCase{"UnterminatedQuote", ".a['b]", "unterminated array"},
        SyntaxErrorCase{"TextAfterQuote", ".a['b'c]", "unexpected text after quoted string"},
        SyntaxErrorCase{"StrayCharacter", ".a,b", "unexpected character ','"},
        SyntaxErrorCase{"TwoTemplates", "{.a}{.b}", "unexpected character '}'"}),
    [](const testing::TestParamInfo<SyntaxErrorCase>& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::apiserver
