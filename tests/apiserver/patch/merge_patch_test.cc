#include "apiserver/patch/merge_patch.h"

#include <gtest/gtest.h>

#include <string>

namespace nodewright::apiserver::patch {
namespace {

using api::Json;

struct MergeCase {
  std::string name;
  std::string original;
  std::string patch;
  std::string expected;
};

void PrintTo(const MergeCase& c, std::ostream* os) {
  *os << c.name;
}

class MergePatchRfcTest : public testing::TestWithParam<MergeCase> {};

TEST_P(MergePatchRfcTest, AppliesAppendixExample) {
  const MergeCase& c = GetParam();
  auto result = applyMergePatch(Json::parse(c.original), Json::parse(c.patch));
  ASSERT_TRUE(result.has_value()) << result.error().message();
  EXPECT_EQ(*result, Json::parse(c.expected));
}

// RFC 7386 appendix A, in order.
INSTANTIATE_TEST_SUITE_P(
    Rfc7386, MergePatchRfcTest,
    testing::Values(
        MergeCase{"ReplaceMember", R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
        MergeCase{"AddMember", R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
        MergeCase{"NullDeletes", R"({"a":"b"})", R"({"a":null})", R"({})"},
        MergeCase{"NullDeletesOneOfTwo", R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
        MergeCase{"ListReplacesString", R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
        MergeCase{"StringReplacesList", R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
        MergeCase{"NestedMergeAndDelete", R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})",
                  R"({"a":{"b":"d"}})"},
        MergeCase{"ListsReplaceWhole", R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
        MergeCase{"ArrayReplacesArray", R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
        MergeCase{"ArrayPatchReplacesObject", R"({"a":"b"})", R"(["c"])", R"(["c"])"},
        MergeCase{"NullPatchReplaces", R"({"a":"foo"})", "null", "null"},
        MergeCase{"StringPatchReplaces", R"({"a":"foo"})", R"("bar")", R"("bar")"},
        MergeCase{"KeepsExistingNull", R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
        MergeCase{"ObjectPatchReplacesArray", R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
        MergeCase{"NullsDroppedFromNewObjects", R"({})", R"({"a":{"bb":{"ccc":null}}})",
                  R"({"a":{"bb":{}}})"}),
    [](const testing::TestParamInfo<MergeCase>& info) { return info.param.name; });

TEST(MergePatchTest, KeepsKeyOrderAndAppendsNewKeys) {
  auto result =
      applyMergePatch(Json::parse(R"({"kind":"Pod","metadata":{"name":"p","labels":{}}})"),
                      Json::parse(R"({"metadata":{"labels":{"a":"1"},"annotations":{}}})"));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->dump(),
            R"({"kind":"Pod","metadata":{"name":"p","labels":{"a":"1"},"annotations":{}}})");
}

TEST(MergePatchTest, RemovesLabelAndReplacesFinalizers) {
  auto result = applyMergePatch(
      Json::parse(R"({"metadata":{"labels":{"a":"1","b":"2"},"finalizers":["x","y"]}})"),
      Json::parse(R"({"metadata":{"labels":{"a":null},"finalizers":["y"]}})"));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, Json::parse(R"({"metadata":{"labels":{"b":"2"},"finalizers":["y"]}})"));
}

TEST(MergePatchTest, NullsInsideListsAreKept) {
  auto result = applyMergePatch(Json::parse(R"({})"), Json::parse(R"({"a":[null,{"b":null}]})"));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, Json::parse(R"({"a":[null,{"b":null}]})"));
}

}  // namespace
}  // namespace nodewright::apiserver::patch
