#include "api/json_parse.h"
#include "core/stack_thread.h"

#include <chrono>

#include <gtest/gtest.h>

#include "support/build_flavor.h"

namespace nodewright::api {
namespace {

std::string nested(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(ParseJsonTest, RefusesNestingPastKubesLimitBeforeBuildingIt) {
  // Values nested to the limit are copied and walked recursively: on a request thread's
  // stack, as the server decodes them (the 8 MiB main stack overflows under ASan).
  core::runWithDeepStack([&] {
    EXPECT_TRUE(parseJson(nested(kMaxNestingDepth)));
    EXPECT_EQ(parseJson(nested(kMaxNestingDepth + 1)).error().message(),
              "exceeded max depth of 10000");
    std::string objects;
    for (int i = 0; i < 1000000; ++i) {
      objects += "{\"a\":";
    }
    EXPECT_EQ(parseJson(objects).error().message(), "exceeded max depth of 10000");
    EXPECT_EQ(findExcessiveNesting(R"({"a":"[[[[","b":[[]]})", 3), std::nullopt);
    EXPECT_EQ(findExcessiveNesting(R"({"a":"\"[","b":[[[]]]})", 3), 17u);
  });
}

TEST(ParseJsonTest, BuildsWhatJsonParseBuilds) {
  std::string text = R"({"a":[1,{"b":null,"c":"x","a":2.5}],"z":true,"a":{"q":[-3,18446744073709551615]}})";
  EXPECT_EQ(*parseJson(text), Json::parse(text));
  EXPECT_EQ(parseJson(text)->begin().key(), "a");  // a repeated key keeps its place
  EXPECT_EQ(parseJson("{\"a\":1} x").error().message(), "invalid JSON");
  EXPECT_FALSE(parseJson("[1e999]"));
  EXPECT_FALSE(parseJson(""));
}

TEST(ParseJsonTest, ManyKeysTakeLinearTime) {
  std::string text = "{";
  for (int i = 0; i < 300000; ++i) {
    text += "\"k" + std::to_string(i) + "\":1,";
  }
  text += "\"k5\":7}";
  auto started = std::chrono::steady_clock::now();
  auto value = parseJson(text);
  auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(value);
  EXPECT_EQ(value->size(), 300000u);
  EXPECT_EQ((*value)["k5"], 7);
  // Json::parse takes minutes here (ordered_map's linear search per key); linear is well under
  // a second optimised. The sanitizer build is many times slower, and under CI's load took 6 s.
  EXPECT_LT(took, std::chrono::seconds(test_support::kOptimisedBuild ? 5 : 60));
}

}  // namespace
}  // namespace nodewright::api
