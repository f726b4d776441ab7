#include "apiserver/patch/json_patch.h"

#include <gtest/gtest.h>

#include <string>

namespace nodewright::apiserver::patch {
namespace {

using api::Json;

struct PatchCase {
  std::string name;
  std::string original;
  std::string patch;
  std::string expected;  // the patched document, or the error message
};

void PrintTo(const PatchCase& c, std::ostream* os) {
  *os << c.name;
}

std::string caseName(const testing::TestParamInfo<PatchCase>& info) {
  return info.param.name;
}

class JsonPatchRfcTest : public testing::TestWithParam<PatchCase> {};

TEST_P(JsonPatchRfcTest, AppliesAppendixExample) {
  const PatchCase& c = GetParam();
  auto result = applyJsonPatch(Json::parse(c.original), Json::parse(c.patch));
  ASSERT_TRUE(result.has_value()) << result.error().message();
  EXPECT_EQ(*result, Json::parse(c.expected));
}

// RFC 6902 appendix A, the examples that succeed.
INSTANTIATE_TEST_SUITE_P(
    Rfc6902, JsonPatchRfcTest,
    testing::Values(
        PatchCase{"A1AddObjectMember", R"({"foo":"bar"})",
                  R"([{"op":"add","path":"/baz","value":"qux"}])", R"({"foo":"bar","baz":"qux"})"},
        PatchCase{"A2AddArrayElement", R"({"foo":["bar","baz"]})",
                  R"([{"op":"add","path":"/foo/1","value":"qux"}])",
                  R"({"foo":["bar","qux","baz"]})"},
        PatchCase{"A3RemoveObjectMember", R"({"baz":"qux","foo":"bar"})",
                  R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
        PatchCase{"A4RemoveArrayElement", R"({"foo":["bar","qux","baz"]})",
                  R"([{"op":"remove","path":"/foo/1"}])", R"({"foo":["bar","baz"]})"},
        PatchCase{"A5ReplaceValue", R"({"baz":"qux","foo":"bar"})",
                  R"([{"op":"replace","path":"/baz","value":"boo"}])",
                  R"({"baz":"boo","foo":"bar"})"},
        PatchCase{"A6MoveValue", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
                  R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
                  R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
        PatchCase{"A7MoveArrayElement", R"({"foo":["all","grass","cows","eat"]})",
                  R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
                  R"({"foo":["all","cows","eat","grass"]})"},
        PatchCase{"A8TestSucceeds", R"({"baz":"qux","foo":["a",2,"c"]})",
                  R"([{"op":"test","path":"/baz","value":"qux"},
                      {"op":"test","path":"/foo/1","value":2}])",
                  R"({"baz":"qux","foo":["a",2,"c"]})"},
        PatchCase{"A10AddNestedMember", R"({"foo":"bar"})",
                  R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
                  R"({"foo":"bar","child":{"grandchild":{}}})"},
        PatchCase{"A11IgnoresUnknownMembers", R"({"foo":"bar"})",
                  R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
                  R"({"foo":"bar","baz":"qux"})"},
        PatchCase{"A14EscapedPointer", R"({"/":9,"~1":10})",
                  R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})"},
        PatchCase{"A16AddArrayValue", R"({"foo":["bar"]})",
                  R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
                  R"({"foo":["bar",["abc","def"]]})"},
        PatchCase{"CopyValue", R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])",
                  R"({"a":{"b":1},"c":{"b":1}})"},
        PatchCase{"ReplaceWholeDocument", R"({"a":1})",
                  R"([{"op":"replace","path":"","value":{"b":2}}])", R"({"b":2})"},
        PatchCase{"NegativeIndexCountsFromEnd", R"({"a":[1,2,3]})",
                  R"([{"op":"remove","path":"/a/-1"}])", R"({"a":[1,2]})"},
        PatchCase{"TestComparesObjectsIgnoringMemberOrder", R"({"a":{"x":1,"y":[{"p":1,"q":2}]}})",
                  R"([{"op":"test","path":"/a","value":{"y":[{"q":2,"p":1}],"x":1.0}}])",
                  R"({"a":{"x":1,"y":[{"p":1,"q":2}]}})"},
        PatchCase{"KubectlAddsEscapedLabel", R"({"metadata":{"labels":{"a":"1"}}})",
                  R"([{"op":"add","path":"/metadata/labels/app.kubernetes.io~1name","value":"x"}])",
                  R"({"metadata":{"labels":{"a":"1","app.kubernetes.io/name":"x"}}})"},
        PatchCase{"KubectlRemovesFinalizerByIndex",
                  R"({"metadata":{"finalizers":["a","b"],"name":"n"}})",
                  R"([{"op":"test","path":"/metadata/finalizers/1","value":"b"},
                      {"op":"remove","path":"/metadata/finalizers/1"}])",
                  R"({"metadata":{"finalizers":["a"],"name":"n"}})"}),
    caseName);

class JsonPatchErrorTest : public testing::TestWithParam<PatchCase> {};

TEST_P(JsonPatchErrorTest, RejectsWithUpstreamMessage) {
  const PatchCase& c = GetParam();
  auto result = applyJsonPatch(Json::parse(c.original), Json::parse(c.patch));
  ASSERT_FALSE(result.has_value()) << result->dump();
  EXPECT_TRUE(result.error().is(core::Code::Invalid));
  EXPECT_EQ(result.error().message(), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Errors, JsonPatchErrorTest,
    testing::Values(
        PatchCase{"A9TestFails", R"({"baz":"qux"})",
                  R"([{"op":"test","path":"/baz","value":"bar"}])",
                  "testing value /baz failed: test failed"},
        PatchCase{"A12AddToMissingParent", R"({"foo":"bar"})",
                  R"([{"op":"add","path":"/baz/bat","value":"qux"}])",
                  "add operation does not apply: doc is missing path: \"/baz/bat\": missing value"},
        PatchCase{"A15StringIsNotNumber", R"({"/":9,"~1":10})",
                  R"([{"op":"test","path":"/~01","value":"10"}])",
                  "testing value /~01 failed: test failed"},
        PatchCase{"NotAnArray", R"({})", R"({"op":"add"})",
                  "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
        PatchCase{"OperationNotAnObject", R"({})", R"(["add"])",
                  "json: cannot unmarshal string into Go value of type jsonpatch.Operation"},
        PatchCase{"UnknownOp", R"({})", R"([{"op":"frobnicate","path":"/a"}])",
                  "Unexpected kind: frobnicate"},
        PatchCase{"MissingOp", R"({})", R"([{"path":"/a"}])", "Unexpected kind: unknown"},
        PatchCase{"MissingPath", R"({})", R"([{"op":"add","value":1}])",
                  "add operation failed to decode path: missing value"},
        PatchCase{"MissingValue", R"({})", R"([{"op":"add","path":"/a"}])",
                  "add operation, missing value field: missing value"},
        PatchCase{"AddIndexOutOfRange", R"({"a":[1]})", R"([{"op":"add","path":"/a/5","value":2}])",
                  "error in add for path: '/a/5': Unable to access invalid index: 5: invalid "
                  "index referenced"},
        PatchCase{"RemoveIndexOutOfRange", R"({"a":[1]})", R"([{"op":"remove","path":"/a/1"}])",
                  "error in remove for path: '/a/1': Unable to access invalid index: 1: invalid "
                  "index referenced"},
        PatchCase{"RemoveMissingKey", R"({"a":{}})", R"([{"op":"remove","path":"/a/b"}])",
                  "error in remove for path: '/a/b': Unable to remove nonexistent key: b: "
                  "missing value"},
        PatchCase{"ReplaceMissingKey", R"({"a":{}})",
                  R"([{"op":"replace","path":"/a/b","value":1}])",
                  "replace operation does not apply: doc is missing key: /a/b: missing value"},
        PatchCase{"MoveFromMissing", R"({})", R"([{"op":"move","from":"/x","path":"/y"}])",
                  "move operation does not apply: doc is missing from path: /x: missing value"},
        PatchCase{"MoveIntoOwnChild", R"({"a":{"b":{}}})",
                  R"([{"op":"move","from":"/a","path":"/a/b/c"}])",
                  "move operation does not apply: cannot move /a into its own child /a/b/c"},
        PatchCase{"CopyFromMissing", R"({})", R"([{"op":"copy","from":"/x","path":"/y"}])",
                  "copy operation does not apply: doc is missing from path: /x: missing value"},
        PatchCase{"TestMissingPath", R"({})", R"([{"op":"test","path":"/x","value":1}])",
                  "test operation does not apply: is missing path: /x: missing value"},
        PatchCase{"PointerWithoutSlash", R"({})", R"([{"op":"add","path":"a","value":1}])",
                  "invalid JSON pointer \"a\": must start with \"/\""},
        PatchCase{"BadEscape", R"({})", R"([{"op":"add","path":"/a~2","value":1}])",
                  "invalid JSON pointer \"/a~2\": bad escape"},
        PatchCase{"IndexIntoScalar", R"({"a":1})", R"([{"op":"add","path":"/a/b","value":1}])",
                  "add operation does not apply: doc is missing path: \"/a/b\": missing value"}),
    caseName);

TEST(JsonPatchTest, FailsAtomicallyWhenALaterOperationFails) {
  Json original = Json::parse(R"({"a":1})");
  auto result = applyJsonPatch(original, Json::parse(R"([{"op":"replace","path":"/a","value":2},
                                                        {"op":"test","path":"/a","value":3}])"));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(original, Json::parse(R"({"a":1})"));
}

TEST(JsonPatchTest, KeepsKeyOrderAndAppendsNewKeys) {
  auto result = applyJsonPatch(Json::parse(R"({"z":1,"a":2,"m":3})"),
                               Json::parse(R"([{"op":"replace","path":"/a","value":9},
                                               {"op":"add","path":"/b","value":4}])"));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->dump(), R"({"z":1,"a":9,"m":3,"b":4})");
}

TEST(JsonPatchTest, MoveToSamePathIsANoOp) {
  auto result = applyJsonPatch(Json::parse(R"({"a":[1,2]})"),
                               Json::parse(R"([{"op":"move","from":"/a/0","path":"/a/0"}])"));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, Json::parse(R"({"a":[1,2]})"));
}

TEST(JsonPatchTest, EmptyPatchReturnsOriginal) {
  auto result = applyJsonPatch(Json::parse(R"({"a":1})"), Json::array());
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, Json::parse(R"({"a":1})"));
}

}  // namespace
}  // namespace nodewright::apiserver::patch
