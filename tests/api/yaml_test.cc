#include "api/yaml.h"
#include "core/stack_thread.h"
#include "support/text.h"

#include <gtest/gtest.h>

namespace nodewright::api {
namespace {

Json only(std::string_view text, YamlOptions options = {}) {
  auto docs = parseDocuments(text, options);
  EXPECT_TRUE(docs.has_value()) << docs.error().message();
  EXPECT_EQ(docs->size(), 1u);
  return docs->front().value;
}

struct ScalarCase {
  std::string name;
  std::string yaml;
  Json expected;
};

class YamlScalarTest : public ::testing::TestWithParam<ScalarCase> {};

TEST_P(YamlScalarTest, ResolvesPlainScalarsAsKubectlDoes) {
  EXPECT_EQ(only("v: " + GetParam().yaml)["v"], GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Scalars, YamlScalarTest,
    ::testing::Values(ScalarCase{"Int", "42", Json(42)}, ScalarCase{"Negative", "-7", Json(-7)},
                      ScalarCase{"Float", "1.5", Json(1.5)},
                      ScalarCase{"Exponent", "2e3", Json(2000.0)},
                      ScalarCase{"True", "true", Json(true)}, ScalarCase{"Yes", "yes", Json(true)},
                      ScalarCase{"Off", "off", Json(false)}, ScalarCase{"Null", "~", Json()},
                      ScalarCase{"QuotedInt", "\"42\"", Json("42")},
                      ScalarCase{"QuotedBool", "'true'", Json("true")},
                      ScalarCase{"Quantity", "100m", Json("100m")},
                      ScalarCase{"Duration", "1h30m", Json("1h30m")},
                      ScalarCase{"Hex", "0x1F", Json(31)},
                      ScalarCase{"HugeFloat", "1e999", Json("1e999")},
                      ScalarCase{"ExplicitString", "!!str 12", Json("12")}),
    [](const auto& info) { return info.param.name; });

TEST(YamlDocumentsTest, SplitsStreamsSkipsEmptyDocumentsAndCountsLines) {
  auto docs = parseDocuments("a: 1\n---\n---\nb: 2\n");
  ASSERT_TRUE(docs);
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0].value, Json::parse(R"({"a":1})"));
  EXPECT_EQ((*docs)[1].index, 1u);
  EXPECT_EQ((*docs)[1].line, 4);
}

TEST(YamlDocumentsTest, ExpandsListKinds) {
  auto docs = parseDocuments(R"({"kind":"List","items":[{"kind":"A"},{"kind":"B"}]})");
  ASSERT_TRUE(docs);
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[1].value["kind"], "B");
}

TEST(YamlDocumentsTest, ReportsSyntaxErrorsWithPosition) {
  auto docs = parseDocuments("a: [1, 2\nb: 3\n");
  ASSERT_FALSE(docs);
  EXPECT_EQ(docs.error().message().rfind("line ", 0), 0u) << docs.error().message();
}

TEST(YamlDocumentsTest, ReportsDuplicateKeys) {
  auto docs = parseDocuments("spec:\n  a: 1\n  a: 2\n");
  ASSERT_TRUE(docs);
  ASSERT_EQ(docs->front().errors.size(), 1u);
  EXPECT_EQ(docs->front().errors[0].toString(), "spec.a: duplicate field \"a\"");
}

TEST(YamlElisionTest, LeavesOutDocumentationEllipsesAndRecordsWhere) {
  YamlOptions options;
  options.allowElisions = true;
  auto docs = parseDocuments(R"(spec:
  subnetSelector: { ... }
  blockDeviceMappings: [ ... ]
  detailedMonitoring: "..."
  userData: ...
  networkInterfaces:
    - deviceIndex: 0
    - { ... }
)",
                             options);
  ASSERT_TRUE(docs);
  EXPECT_EQ(docs->front().value,
            Json::parse(R"({"spec":{"networkInterfaces":[{"deviceIndex":0}]}})"));
  EXPECT_EQ(docs->front().elided,
            (std::vector<std::string>{"spec.subnetSelector", "spec.blockDeviceMappings",
                                      "spec.detailedMonitoring", "spec.userData",
                                      "spec.networkInterfaces[1]"}));
}

TEST(YamlElisionTest, KeepsEllipsesAsTextWhenNotAllowed) {
  EXPECT_EQ(only("a: ...\n")["a"], "...");
}

TEST(YamlEmitTest, QuotesStringsThatWouldReadBackAsOtherTypes) {
  Json value = Json::parse(R"({"a":"true","b":"10","c":"plain","d":5,"e":[true,null],"f":""})");
  EXPECT_EQ(only(toYaml(value)), value);
}

}  // namespace
}  // namespace nodewright::api

namespace nodewright::api {
namespace {

class YamlStrayFlowEntryTest : public ::testing::TestWithParam<std::string> {};

// yaml-cpp 0.7 never returned on these (found by the fuzzer); they are malformed, so the answer
// is an error naming the line.
TEST_P(YamlStrayFlowEntryTest, IsRefusedInsteadOfHanging) {
  auto docs = parseDocuments(GetParam());
  ASSERT_FALSE(docs) << GetParam();
  EXPECT_EQ(docs.error().message().rfind("line ", 0), 0u) << docs.error().message();
}

INSTANTIATE_TEST_SUITE_P(Inputs, YamlStrayFlowEntryTest,
                         ::testing::Values(",", ",a", " ,", "---\n,", "a: 1\n---\n,x", "# c\n,",
                                           "!tag ,", "&a ,", "--- ,", "\"x\", y", "'x', y",
                                           "[1], 2", "[1]\n, 2", "{a: [1, {b: 2}]} , c",
                                           "--- {a: 1}\n, b", "{a: '}', b: \"]\"}, c",
                                           "{a: {b: x\"y}}, c", "\"\" \"\"", "[1]\n- x",
                                           "&anchor, x"));

TEST(YamlControlCharacterTest, IsRefusedWithItsPosition) {
  auto docs = parseDocuments(std::string("a: 1\nb: \"x\0y\"\n", 13));
  ASSERT_FALSE(docs);
  EXPECT_EQ(docs.error().message(), "line 2, column 6: control characters are not allowed in YAML");
}

TEST(YamlStrayFlowEntryTest, LeavesCommasInsideValuesAlone) {
  auto docs = parseDocuments("a: x,y\nb: [1, 2]\n---\n\"q\"\n---\n\"k\": v\nw: 1\n...\n");
  ASSERT_TRUE(docs);
  EXPECT_EQ(docs->front().value["a"], "x,y");
}

}  // namespace
}  // namespace nodewright::api

namespace nodewright::api {
namespace {

using test_support::repeat;

// Nine levels of nine aliases each: a billion leaves from a few hundred bytes.
std::string billionLaughs() {
  std::string text = "a0: &a0 [\"lol\"]\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 9; ++j) {
      text += ", " + prev;
    }
    text += "]\n";
  }
  return text;
}

std::string errorOf(std::string_view text) {
  auto docs = parseDocuments(text);
  return docs ? std::string("(parsed)") : docs.error().message();
}

TEST(YamlLimitsTest, RefusesExcessiveAliasingAsGoYamlDoes) {
  std::string text = billionLaughs();
  EXPECT_LT(text.size(), 1000u);
  EXPECT_EQ(errorOf(text), "yaml: document contains excessive aliasing");
}

TEST(YamlLimitsTest, ExpandsModestAliases) {
  auto docs = parseDocuments("base: &b {cpu: 1}\nx: *b\ny: [*b, *b]\n");
  ASSERT_TRUE(docs) << docs.error().message();
  EXPECT_EQ(docs->front().value["y"][1], Json::parse(R"({"cpu":1})"));
}

TEST(YamlLimitsTest, RefusesSelfReferencingAndUnknownAnchors) {
  EXPECT_EQ(errorOf("a: &x {b: *x}\n"),
            "line 1, column 11: yaml: anchor 'x' value contains itself");
  EXPECT_EQ(errorOf("a: &x [*x]\n"), "line 1, column 8: yaml: anchor 'x' value contains itself");
  EXPECT_EQ(errorOf("a: 1\nb: *nope\n"),
            "line 2, column 4: yaml: unknown anchor 'nope' referenced");
}

TEST(YamlLimitsTest, RefusesNestingDeeperThanTenThousand) {
  // Values nested to the limit are copied and walked recursively: on a request thread's
  // stack, as the server decodes them (the 8 MiB main stack overflows under ASan).
  core::runWithDeepStack([&] {
    EXPECT_EQ(errorOf("a: " + repeat("[", 1000000)),
              "line 1, column 10003: yaml: exceeded max depth of 10000");
    EXPECT_NE(errorOf(repeat("- ", 1000000)).find("yaml: exceeded max depth of 10000"),
              std::string::npos);
    EXPECT_NE(errorOf("x: " + repeat("{a: ", 20000)).find("exceeded max depth of 10000"),
              std::string::npos);
    EXPECT_EQ(errorOf(repeat("[", 1000000) + repeat("]", 1000000)), "exceeded max depth of 10000");
    auto atLimit = parseDocuments(repeat("[", 10000) + repeat("]", 10000));
    EXPECT_TRUE(atLimit) << atLimit.error().message();
  });
}

TEST(YamlLimitsTest, RefusesAliasesThatNestPastTheLimit) {
  // Values nested to the limit are copied and walked recursively: on a request thread's
  // stack, as the server decodes them (the 8 MiB main stack overflows under ASan).
  core::runWithDeepStack([&] {
    std::string deep = repeat("[", 6000) + repeat("]", 6000);
    EXPECT_EQ(errorOf("a: &d " + deep + "\nb: [*d]\nc: " + repeat("[", 5000) + "*d" +
                      repeat("]", 5000) + "\n"),
              "yaml: exceeded max depth of 10000");
  });
}

TEST(YamlLimitsTest, KeepsHugeNumbersAsTextWithoutRecursing) {
  std::string digits(100000, '7');
  auto docs = parseDocuments("n: " + digits + "\nf: 1." + digits + "\nq: " + digits + "Mi\n");
  ASSERT_TRUE(docs) << docs.error().message();
  EXPECT_EQ(docs->front().value["n"], Json(digits));
  EXPECT_TRUE(docs->front().value["f"].is_number());
  EXPECT_EQ(docs->front().value["q"], Json(digits + "Mi"));
}

TEST(YamlLimitsTest, ManyKeysStayLinear) {
  std::string text;
  for (int i = 0; i < 200000; ++i) {
    text += "k" + std::to_string(i) + ": 1\n";
  }
  text += "k7: 2\n";
  auto docs = parseDocuments(text);
  ASSERT_TRUE(docs);
  EXPECT_EQ(docs->front().value.size(), 200000u);
  ASSERT_EQ(docs->front().errors.size(), 1u);
  EXPECT_EQ(docs->front().errors[0].toString(), "k7: duplicate field \"k7\"");
}

TEST(YamlDocumentsTest, AcceptsFlowCollectionsAtTheRoot) {
  auto docs = parseDocuments("[a, {b: c}]\n--- {x: v, z: [1, 2]}\n");
  ASSERT_TRUE(docs) << docs.error().message();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0].value, Json::parse(R"(["a",{"b":"c"}])"));
  EXPECT_EQ((*docs)[1].value, Json::parse(R"({"x":"v","z":[1,2]})"));
}

}  // namespace
}  // namespace nodewright::api
