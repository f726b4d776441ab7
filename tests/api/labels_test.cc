#include "api/labels.h"

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/codec.h"

namespace nodewright::api {
namespace {

// apimachinery's messages, spelled out here so a change in the implementation shows.
constexpr std::string_view kNamePartSyntax =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr std::string_view kPrefixSyntax =
    "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
    "'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
constexpr std::string_view kTooManySlashes =
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
    "subdomain prefix and '/' (e.g. 'example.com/MyName')";
constexpr std::string_view kLabelValueSyntax =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

using Strings = std::vector<std::string>;

Strings render(const FieldErrors& errors) {
  Strings out;
  for (const FieldError& e : errors) {
    out.push_back(e.toString());
  }
  return out;
}

// --- Label key syntax ---

struct KeyCase {
  std::string name;
  std::string key;
  Strings errors;
};

void PrintTo(const KeyCase& c, std::ostream* os) {
  *os << c.name;
}

class LabelKeyValidationTest : public ::testing::TestWithParam<KeyCase> {};

TEST_P(LabelKeyValidationTest, ReportsApimachineryMessages) {
  EXPECT_EQ(qualifiedNameErrors(GetParam().key), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Keys, LabelKeyValidationTest,
    ::testing::Values(
        KeyCase{"Simple", "app", {}}, KeyCase{"MixedCaseAndPunctuation", "My_app.v-1", {}},
        KeyCase{"Prefixed", "karpenter.sh/nodepool", {}},
        KeyCase{"WellKnownZone", "topology.kubernetes.io/zone", {}},
        KeyCase{"SingleCharacter", "a", {}},
        KeyCase{"NameOf63Characters", std::string(63, 'a'), {}},
        KeyCase{"NameOf64Characters",
                std::string(64, 'a'),
                {"name part must be no more than 63 characters"}},
        KeyCase{"PrefixOf253Characters", std::string(253, 'a') + "/x", {}},
        KeyCase{"PrefixOf254Characters",
                std::string(254, 'a') + "/x",
                {"prefix part must be no more than 253 characters"}},
        KeyCase{"Empty", "", {"name part must be non-empty", std::string(kNamePartSyntax)}},
        KeyCase{"EmptyPrefix", "/app", {"prefix part must be non-empty"}},
        KeyCase{"EmptyNameAfterPrefix",
                "example.com/",
                {"name part must be non-empty", std::string(kNamePartSyntax)}},
        KeyCase{"UppercasePrefix", "Example.com/app", {std::string(kPrefixSyntax)}},
        KeyCase{"TwoSlashes", "a/b/c", {std::string(kTooManySlashes)}},
        KeyCase{"LeadingDash", "-app", {std::string(kNamePartSyntax)}},
        KeyCase{"TrailingDot", "app.", {std::string(kNamePartSyntax)}},
        KeyCase{"Space", "my app", {std::string(kNamePartSyntax)}},
        KeyCase{"BadPrefixAndBadName",
                "ex_ample.com/-x",
                {std::string(kPrefixSyntax), std::string(kNamePartSyntax)}}),
    [](const auto& info) { return info.param.name; });

struct ValueCase {
  std::string name;
  std::string value;
  Strings errors;
};

void PrintTo(const ValueCase& c, std::ostream* os) {
  *os << c.name;
}

class LabelValueValidationTest : public ::testing::TestWithParam<ValueCase> {};

TEST_P(LabelValueValidationTest, ReportsApimachineryMessages) {
  EXPECT_EQ(labelValueErrors(GetParam().value), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Values, LabelValueValidationTest,
    ::testing::Values(
        ValueCase{"Empty", "", {}}, ValueCase{"Simple", "web", {}},
        ValueCase{"Dotted", "m5.large", {}}, ValueCase{"Digits", "12345", {}},
        ValueCase{"Of63Characters", std::string(63, 'v'), {}},
        ValueCase{"Of64Characters", std::string(64, 'v'), {"must be no more than 63 characters"}},
        ValueCase{"Slash", "a/b", {std::string(kLabelValueSyntax)}},
        ValueCase{"LeadingUnderscore", "_x", {std::string(kLabelValueSyntax)}},
        ValueCase{"TooLongAndBadEnd",
                  std::string(64, 'v') + "-",
                  {"must be no more than 63 characters", std::string(kLabelValueSyntax)}}),
    [](const auto& info) { return info.param.name; });

TEST(LabelMapValidationTest, ReportsKeysAndValuesAtTheMapPath) {
  FieldErrors errors;
  validateLabels({{"ok", "fine"}, {"bad key", "v"}, {"k", "-v"}},
                 FieldPath("spec.template.metadata.labels"), errors);
  EXPECT_EQ(render(errors), (Strings{"spec.template.metadata.labels: Invalid value: \"bad key\": " +
                                         std::string(kNamePartSyntax),
                                     "spec.template.metadata.labels: Invalid value: \"-v\": " +
                                         std::string(kLabelValueSyntax)}));
}

TEST(DnsValidationTest, LabelsAreLowercaseAndShort) {
  EXPECT_TRUE(dns1123LabelErrors("web-1").empty());
  EXPECT_EQ(dns1123LabelErrors("Web"),
            Strings{"a lowercase RFC 1123 label must consist of lower case alphanumeric "
                    "characters or '-', and must start and end with an alphanumeric character "
                    "(e.g. 'my-name',  or '123-abc', regex used for validation is "
                    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"});
  EXPECT_TRUE(dns1123SubdomainErrors("a.b-c.d").empty());
  EXPECT_EQ(dns1123SubdomainErrors("a..b").size(), 1u);
}

// --- Selector parsing ---

struct ParseCase {
  std::string name;
  std::string text;
  std::string selector;  // expected LabelSelector as JSON; empty when `error` is set
  std::string error;
};

void PrintTo(const ParseCase& c, std::ostream* os) {
  *os << c.name;
}

class SelectorParseTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(SelectorParseTest, ParsesLikeLabelsParse) {
  auto parsed = parseSelector(GetParam().text);
  if (!GetParam().error.empty()) {
    ASSERT_FALSE(parsed) << toJson(*parsed).dump();
    EXPECT_EQ(parsed.error().message(), GetParam().error);
    EXPECT_TRUE(parsed.error().is(core::Code::Invalid));
    return;
  }
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(nlohmann::json::parse(toJson(*parsed).dump()),
            nlohmann::json::parse(GetParam().selector));
}

class SelectorFormatTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(SelectorFormatTest, FormattedSelectorParsesBackToTheSame) {
  auto parsed = parseSelector(GetParam().text);
  ASSERT_TRUE(parsed) << parsed.error().message();
  std::string text = formatSelector(*parsed);
  auto again = parseSelector(text);
  ASSERT_TRUE(again) << text << ": " << again.error().message();
  EXPECT_EQ(formatSelector(*again), text);
  for (const Labels& labels :
       {Labels{}, Labels{{"a", "b"}}, Labels{{"a", "c"}, {"e", "x"}, {"g", "1"}},
        Labels{{"x", "7"}, {"a", ""}}, Labels{{"example.com/role", "web"}, {"in", "notin"}}}) {
    EXPECT_EQ(matches(*again, labels), matches(*parsed, labels)) << text;
  }
}

const std::vector<ParseCase> kValidSelectors = {
    ParseCase{"Empty", "", "{}", ""},
    ParseCase{"Blank", " \t ", "{}", ""},
    ParseCase{"Equals", "a=b", R"({"matchLabels":{"a":"b"}})", ""},
    ParseCase{"DoubleEquals", "a==b", R"({"matchLabels":{"a":"b"}})", ""},
    ParseCase{"NotEquals", "a!=b",
              R"({"matchExpressions":[{"key":"a","operator":"NotIn","values":["b"]}]})", ""},
    ParseCase{"In", "a in (x,y)",
              R"({"matchExpressions":[{"key":"a","operator":"In","values":["x","y"]}]})", ""},
    ParseCase{"NotInSortsValues", "a notin (y, x)",
              R"({"matchExpressions":[{"key":"a","operator":"NotIn","values":["x","y"]}]})", ""},
    ParseCase{"InDeduplicates", "a in (x,x)",
              R"({"matchExpressions":[{"key":"a","operator":"In","values":["x"]}]})", ""},
    ParseCase{"Exists", "a", R"({"matchExpressions":[{"key":"a","operator":"Exists"}]})", ""},
    ParseCase{"DoesNotExist", "!a",
              R"({"matchExpressions":[{"key":"a","operator":"DoesNotExist"}]})", ""},
    ParseCase{"AllForms", "a=b,c!=d,e in (x,y),!f,g",
              R"({"matchLabels":{"a":"b"},"matchExpressions":[
                      {"key":"c","operator":"NotIn","values":["d"]},
                      {"key":"e","operator":"In","values":["x","y"]},
                      {"key":"f","operator":"DoesNotExist"},
                      {"key":"g","operator":"Exists"}]})",
              ""},
    ParseCase{"RepeatedEqualityKeepsBoth", "a=b,a=c",
              R"({"matchLabels":{"a":"b"},
                      "matchExpressions":[{"key":"a","operator":"In","values":["c"]}]})",
              ""},
    ParseCase{"GreaterThan", "x>5",
              R"({"matchExpressions":[{"key":"x","operator":"Gt","values":["5"]}]})", ""},
    ParseCase{"LessThan", "x < 3",
              R"({"matchExpressions":[{"key":"x","operator":"Lt","values":["3"]}]})", ""},
    ParseCase{"EqualsNothing", "a=", R"({"matchLabels":{"a":""}})", ""},
    ParseCase{"EmptyParentheses", "a in ()",
              R"({"matchExpressions":[{"key":"a","operator":"In","values":[""]}]})", ""},
    ParseCase{"LeadingEmptyValue", "a in (,x)",
              R"({"matchExpressions":[{"key":"a","operator":"In","values":["","x"]}]})", ""},
    ParseCase{"TrailingEmptyValue", "a in (x,)",
              R"({"matchExpressions":[{"key":"a","operator":"In","values":["","x"]}]})", ""},
    ParseCase{"PrefixedKey", "example.com/role=web",
              R"({"matchLabels":{"example.com/role":"web"}})", ""},
    ParseCase{"KeywordsAsKeyAndValue", "in=notin", R"({"matchLabels":{"in":"notin"}})", ""},
    ParseCase{"Whitespace", " a = b , c ",
              R"({"matchLabels":{"a":"b"},"matchExpressions":[{"key":"c","operator":"Exists"}]})",
              ""}};

const std::vector<ParseCase> kInvalidSelectors = {
    ParseCase{"BangAlone", "!", "", "unable to parse requirement: found '', expected: identifier"},
    ParseCase{"TrailingComma", "a=b,", "", "found '', expected: identifier after ','"},
    ParseCase{"LeadingComma", ",a", "", "found ',', expected: !, identifier, or 'end of string'"},
    ParseCase{"MissingOperator", "a b", "",
              "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
    ParseCase{"InWithoutParentheses", "a in x", "",
              "unable to parse requirement: found 'x' expected: '('"},
    ParseCase{"UnclosedSet", "a in (x", "",
              "unable to parse requirement: found '', expected: ',' or ')'"},
    ParseCase{"SpaceSeparatedSet", "a in (x y)", "",
              "unable to parse requirement: found 'y', expected: ',' or ')'"},
    ParseCase{"ExtraClosingParenthesis", "a in (b))", "",
              "found ')', expected: ',' or 'end of string'"},
    ParseCase{"NegatedEquality", "!a=b", "", "found '=', expected: ',' or 'end of string'"},
    ParseCase{"ParenthesisAsValue", "a=(b)", "",
              "unable to parse requirement: found '(', expected: identifier"},
    ParseCase{"GreaterThanText", "a>b", "",
              "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' "
              "operators, the value must be an integer"},
    ParseCase{"BadKey", "a/b/c=d", "",
              "unable to parse requirement: key: Invalid value: \"a/b/c\": " +
                  std::string(kTooManySlashes)},
    ParseCase{"BadValue", "a=-b", "",
              "unable to parse requirement: values[0][a]: Invalid value: \"-b\": " +
                  std::string(kLabelValueSyntax)}};

INSTANTIATE_TEST_SUITE_P(Valid, SelectorParseTest, ::testing::ValuesIn(kValidSelectors),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Invalid, SelectorParseTest, ::testing::ValuesIn(kInvalidSelectors),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Valid, SelectorFormatTest, ::testing::ValuesIn(kValidSelectors),
                         [](const auto& info) { return info.param.name; });

// Inputs assembled from the grammar's pieces: parsing never crashes, and whatever parses
// formats to text that parses back to the same selector.
TEST(SelectorParseFuzzTest, AnyInputParsesOrFailsCleanly) {
  const std::vector<std::string> pieces = {
      "a", "b", "x.y/z", "in", "notin", "=", "==", "!=", "!", "(",
      ")", ",", ">",     "<",  " ",     "1", "-",  "\t", "",  std::string(1, '\0')};
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto next = [&](size_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<size_t>(state % n);
  };
  int parsed = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string text;
    for (size_t n = next(12); n > 0; --n) {
      text += pieces[next(pieces.size())];
    }
    auto selector = parseSelector(text);
    if (!selector) {
      EXPECT_FALSE(selector.error().message().empty()) << text;
      continue;
    }
    ++parsed;
    std::string formatted = formatSelector(*selector);
    auto again = parseSelector(formatted);
    ASSERT_TRUE(again) << "'" << text << "' formatted as '" << formatted
                       << "': " << again.error().message();
    EXPECT_EQ(formatSelector(*again), formatted) << text;
  }
  EXPECT_GT(parsed, 100);
}

// --- Selector matching ---

struct MatchCase {
  std::string name;
  std::string selector;
  Labels labels;
  bool matches;
};

void PrintTo(const MatchCase& c, std::ostream* os) {
  *os << c.name;
}

class SelectorMatchTest : public ::testing::TestWithParam<MatchCase> {};

TEST_P(SelectorMatchTest, EvaluatesAgainstLabels) {
  auto selector = parseSelector(GetParam().selector);
  ASSERT_TRUE(selector) << selector.error().message();
  EXPECT_EQ(matches(*selector, GetParam().labels), GetParam().matches);
}

const Labels kWeb = {{"app", "web"}, {"tier", "frontend"}, {"replicas", "3"}};

INSTANTIATE_TEST_SUITE_P(
    Selectors, SelectorMatchTest,
    ::testing::Values(
        MatchCase{"EmptyMatchesEverything", "", kWeb, true},
        MatchCase{"EmptyMatchesNoLabels", "", {}, true},
        MatchCase{"EqualityHolds", "app=web", kWeb, true},
        MatchCase{"EqualityOtherValue", "app=db", kWeb, false},
        MatchCase{"EqualityMissingKey", "zone=a", kWeb, false},
        MatchCase{"AllMustHold", "app=web,tier=backend", kWeb, false},
        MatchCase{"NotEqualsOtherValue", "app!=db", kWeb, true},
        MatchCase{"NotEqualsSameValue", "app!=web", kWeb, false},
        MatchCase{"NotEqualsMissingKey", "zone!=a", kWeb, true},
        MatchCase{"InListed", "tier in (frontend,backend)", kWeb, true},
        MatchCase{"InNotListed", "tier in (backend)", kWeb, false},
        MatchCase{"InMissingKey", "zone in (a)", kWeb, false},
        MatchCase{"NotInListed", "tier notin (frontend)", kWeb, false},
        MatchCase{"NotInMissingKey", "zone notin (a)", kWeb, true},
        MatchCase{"ExistsPresent", "app", kWeb, true},
        MatchCase{"ExistsAbsent", "zone", kWeb, false},
        MatchCase{"DoesNotExistAbsent", "!zone", kWeb, true},
        MatchCase{"DoesNotExistPresent", "!app", kWeb, false},
        MatchCase{"GreaterThanHolds", "replicas>2", kWeb, true},
        MatchCase{"GreaterThanEqualFails", "replicas>3", kWeb, false},
        MatchCase{"LessThanHolds", "replicas<4", kWeb, true},
        MatchCase{"GreaterThanOnText", "app>1", kWeb, false},
        MatchCase{"EmptyValueMatchesEmptyLabel", "app=", {{"app", ""}}, true},
        MatchCase{"EmptyValueNeedsTheKey", "app=", {}, false},
        MatchCase{"EmptySetMemberMatchesEmptyLabel", "app in (,web)", {{"app", ""}}, true},
        MatchCase{"Combined", "app=web,tier in (frontend),!zone,replicas>1", kWeb, true},
        MatchCase{"RepeatedKeyContradiction", "app=web,app=db", kWeb, false}),
    [](const auto& info) { return info.param.name; });

TEST(LabelSelectorMatchTest, MatchLabelsAndExpressionsAreAnded) {
  LabelSelector selector;
  selector.matchLabels = {{"app", "web"}};
  selector.matchExpressions = {{"tier", kOpNotIn, {"backend"}}};
  EXPECT_TRUE(matches(selector, kWeb));
  selector.matchExpressions.push_back({"zone", kOpExists, {}});
  EXPECT_FALSE(matches(selector, kWeb));
}

TEST(LabelSelectorMatchTest, UnknownOperatorMatchesNothing) {
  LabelSelector selector;
  selector.matchExpressions = {{"app", "Matches", {"web"}}};
  EXPECT_FALSE(matches(selector, kWeb));
}

// --- LabelSelector validation (metav1 ValidateLabelSelector) ---

struct SelectorValidationCase {
  std::string name;
  std::string selector;  // JSON
  Strings errors;
};

void PrintTo(const SelectorValidationCase& c, std::ostream* os) {
  *os << c.name;
}

class LabelSelectorValidationTest : public ::testing::TestWithParam<SelectorValidationCase> {};

TEST_P(LabelSelectorValidationTest, ReportsPathsAndMessages) {
  LabelSelector selector;
  FieldErrors decodeErrors = decodeJson(Json::parse(GetParam().selector), selector);
  ASSERT_TRUE(decodeErrors.empty()) << render(decodeErrors)[0];
  EXPECT_EQ(render(validateValue(selector, "spec.selector")), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Selectors, LabelSelectorValidationTest,
    ::testing::Values(
        SelectorValidationCase{"Valid",
                               R"({"matchLabels":{"app":"web"},"matchExpressions":[
                                   {"key":"tier","operator":"In","values":["a","b"]},
                                   {"key":"zone","operator":"DoesNotExist"}]})",
                               {}},
        SelectorValidationCase{
            "InWithoutValues",
            R"({"matchExpressions":[{"key":"tier","operator":"In"}]})",
            {"spec.selector.matchExpressions[0].values: Required value: must be specified when "
             "`operator` is 'In' or 'NotIn'"}},
        SelectorValidationCase{
            "ExistsWithValues",
            R"({"matchExpressions":[{"key":"tier","operator":"Exists","values":["a"]}]})",
            {"spec.selector.matchExpressions[0].values: Forbidden: may not be specified when "
             "`operator` is 'Exists' or 'DoesNotExist'"}},
        SelectorValidationCase{
            "GtIsNotALabelSelectorOperator",
            R"({"matchExpressions":[{"key":"n","operator":"Gt","values":["1"]}]})",
            {"spec.selector.matchExpressions[0].operator: Invalid value: \"Gt\": not a valid "
             "selector operator"}},
        SelectorValidationCase{
            "BadKeyAndValue",
            R"({"matchExpressions":[{"key":"-k","operator":"In","values":["ok","-v"]}]})",
            {"spec.selector.matchExpressions[0].key: Invalid value: \"-k\": " +
                 std::string(kNamePartSyntax),
             "spec.selector.matchExpressions[0].values[1]: Invalid value: \"-v\": " +
                 std::string(kLabelValueSyntax)}},
        SelectorValidationCase{"BadMatchLabel",
                               R"({"matchLabels":{"app":"a b"}})",
                               {"spec.selector.matchLabels: Invalid value: \"a b\": " +
                                std::string(kLabelValueSyntax)}}),
    [](const auto& info) { return info.param.name; });

TEST(LabelSelectorDecodeTest, UnknownFieldsAreRejected) {
  LabelSelector selector;
  FieldErrors errors = decodeJson(Json::parse(R"({"matchLabel":{"a":"b"}})"), selector);
  EXPECT_EQ(render(errors), Strings{"matchLabel: field not declared in schema"});
}

}  // namespace
}  // namespace nodewright::api
