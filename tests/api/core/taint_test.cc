#include "api/core/taint.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "api/codec.h"

namespace nodewright::api::corev1 {
namespace {

using Strings = std::vector<std::string>;

Strings render(const FieldErrors& errors) {
  Strings out;
  for (const FieldError& e : errors) {
    out.push_back(e.toString());
  }
  return out;
}

struct TolerationCase {
  std::string name;
  Toleration toleration;
  Taint taint;
  bool tolerated;
};

void PrintTo(const TolerationCase& c, std::ostream* os) {
  *os << c.name;
}

class TolerationMatchTest : public ::testing::TestWithParam<TolerationCase> {};

TEST_P(TolerationMatchTest, MatchesLikeToleratesTaint) {
  EXPECT_EQ(toleratesTaint(GetParam().toleration, GetParam().taint), GetParam().tolerated);
  EXPECT_EQ(tolerates({GetParam().toleration}, GetParam().taint), GetParam().tolerated);
}

const Taint kDedicated{"dedicated", "gpu", "NoSchedule", {}};
const Taint kUnreachable{"node.kubernetes.io/unreachable", "", "NoExecute", {}};

INSTANTIATE_TEST_SUITE_P(
    Tolerations, TolerationMatchTest,
    ::testing::Values(
        TolerationCase{
            "EqualSameValue", {"dedicated", "Equal", "gpu", "NoSchedule", {}}, kDedicated, true},
        TolerationCase{"EmptyOperatorMeansEqual",
                       {"dedicated", "", "gpu", "NoSchedule", {}},
                       kDedicated,
                       true},
        TolerationCase{
            "EqualOtherValue", {"dedicated", "Equal", "web", "NoSchedule", {}}, kDedicated, false},
        TolerationCase{"EqualEmptyValueAgainstValue",
                       {"dedicated", "Equal", "", "NoSchedule", {}},
                       kDedicated,
                       false},
        TolerationCase{
            "ExistsIgnoresValue", {"dedicated", "Exists", "", "NoSchedule", {}}, kDedicated, true},
        TolerationCase{"OtherKey", {"team", "Exists", "", "NoSchedule", {}}, kDedicated, false},
        TolerationCase{
            "EmptyEffectMatchesAll", {"dedicated", "Exists", "", "", {}}, kDedicated, true},
        TolerationCase{
            "OtherEffect", {"dedicated", "Exists", "", "NoExecute", {}}, kDedicated, false},
        TolerationCase{
            "EmptyKeyExistsMatchesEverything", {"", "Exists", "", "", {}}, kUnreachable, true},
        TolerationCase{
            "EmptyKeyExistsWithEffect", {"", "Exists", "", "NoSchedule", {}}, kUnreachable, false},
        TolerationCase{"NoExecuteWithSeconds",
                       {"node.kubernetes.io/unreachable", "Exists", "", "NoExecute", 300},
                       kUnreachable,
                       true},
        TolerationCase{"EqualEmptyValues",
                       {"node.kubernetes.io/unreachable", "Equal", "", "NoExecute", {}},
                       kUnreachable,
                       true},
        TolerationCase{
            "UnknownOperator", {"dedicated", "In", "gpu", "NoSchedule", {}}, kDedicated, false}),
    [](const auto& info) { return info.param.name; });

TEST(TolerationsTest, AnyTolerationSuffices) {
  std::vector<Toleration> list = {{"team", "Equal", "a", "NoSchedule", {}},
                                  {"dedicated", "Exists", "", "", {}}};
  EXPECT_TRUE(tolerates(list, kDedicated));
  EXPECT_FALSE(tolerates(list, kUnreachable));
  EXPECT_FALSE(tolerates({}, kDedicated));
}

struct TolerationValidationCase {
  std::string name;
  Toleration toleration;
  Strings errors;
};

void PrintTo(const TolerationValidationCase& c, std::ostream* os) {
  *os << c.name;
}

class TolerationValidationTest : public ::testing::TestWithParam<TolerationValidationCase> {};

TEST_P(TolerationValidationTest, ReportsLikeKubeApiserver) {
  EXPECT_EQ(render(validateValue(GetParam().toleration, "spec.tolerations[0]")), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Tolerations, TolerationValidationTest,
    ::testing::Values(
        TolerationValidationCase{"Valid", {"dedicated", "Equal", "gpu", "NoSchedule", {}}, {}},
        TolerationValidationCase{"TolerateEverything", {"", "Exists", "", "", {}}, {}},
        TolerationValidationCase{
            "ExistsWithValue",
            {"dedicated", "Exists", "gpu", "NoSchedule", {}},
            {"spec.tolerations[0].operator: Invalid value: \"Exists\": value must be empty when "
             "`operator` is 'Exists'"}},
        TolerationValidationCase{
            "UnsupportedOperator",
            {"dedicated", "In", "gpu", "NoSchedule", {}},
            {"spec.tolerations[0].operator: Unsupported value: \"In\": supported values: "
             "\"Equal\", \"Exists\""}},
        TolerationValidationCase{
            "EmptyKeyNeedsExists",
            {"", "Equal", "gpu", "", {}},
            {"spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists "
             "when `key` is empty, which means \"match all values and all keys\""}},
        TolerationValidationCase{
            "SecondsNeedNoExecute",
            {"dedicated", "Exists", "", "NoSchedule", 60},
            {"spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be "
             "'NoExecute' when `tolerationSeconds` is set"}},
        TolerationValidationCase{
            "UnsupportedEffect",
            {"dedicated", "Exists", "", "NoRun", {}},
            {"spec.tolerations[0].effect: Unsupported value: \"NoRun\": supported values: "
             "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""}},
        TolerationValidationCase{
            "BadKey",
            {"dedicated/", "Exists", "", "", {}},
            {"spec.tolerations[0].key: Invalid value: \"dedicated/\": name part must be "
             "non-empty",
             "spec.tolerations[0].key: Invalid value: \"dedicated/\": name part must consist of "
             "alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used "
             "for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
        TolerationValidationCase{
            "BadValueReportedUnderOperator",
            {"dedicated", "Equal", "a b", "", {}},
            {"spec.tolerations[0].operator: Invalid value: \"a b\": a valid label must be an "
             "empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
             "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
             "'12345', regex used for validation is "
             "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"}}),
    [](const auto& info) { return info.param.name; });

struct TaintValidationCase {
  std::string name;
  std::string taint;  // JSON
  Strings errors;
};

void PrintTo(const TaintValidationCase& c, std::ostream* os) {
  *os << c.name;
}

class TaintValidationTest : public ::testing::TestWithParam<TaintValidationCase> {};

TEST_P(TaintValidationTest, ReportsLikeKubeApiserver) {
  Taint taint;
  FieldErrors errors = decodeJson(Json::parse(GetParam().taint), taint);
  if (errors.empty()) {
    errors = validateValue(taint, "spec.taints[0]");
  }
  EXPECT_EQ(render(errors), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Taints, TaintValidationTest,
    ::testing::Values(
        TaintValidationCase{
            "Valid", R"({"key":"karpenter.sh/disrupted","effect":"NoSchedule"})", {}},
        TaintValidationCase{"ValidWithTime",
                            R"({"key":"node.kubernetes.io/unreachable","effect":"NoExecute",
                "timeAdded":"2024-05-01T11:00:00Z"})",
                            {}},
        TaintValidationCase{"MissingEffect",
                            R"({"key":"dedicated","value":"gpu"})",
                            {"spec.taints[0].effect: Required value"}},
        TaintValidationCase{
            "MissingKey", R"({"effect":"NoSchedule"})", {"spec.taints[0].key: Required value"}},
        TaintValidationCase{"UnsupportedEffect",
                            R"({"key":"dedicated","effect":"NoRun"})",
                            {"spec.taints[0].effect: Unsupported value: \"NoRun\": supported "
                             "values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""}},
        TaintValidationCase{
            "BadValue",
            R"({"key":"dedicated","value":"gpu!","effect":"NoSchedule"})",
            {"spec.taints[0].value: Invalid value: \"gpu!\": a valid label must be an empty "
             "string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
             "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
             "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"}},
        TaintValidationCase{"UnknownField",
                            R"({"key":"dedicated","effect":"NoSchedule","operator":"Equal"})",
                            {"operator: field not declared in schema"}}),
    [](const auto& info) { return info.param.name; });

TEST(TaintUniquenessTest, SameKeyAndEffectIsDuplicate) {
  std::vector<Taint> taints = {
      {"a", "1", "NoSchedule", {}}, {"a", "2", "NoExecute", {}}, {"a", "3", "NoSchedule", {}}};
  FieldErrors errors;
  validateTaintsUnique(taints, FieldPath("spec.taints"), errors);
  EXPECT_EQ(render(errors),
            Strings{"spec.taints[2]: Duplicate value: {\"key\":\"a\",\"effect\":\"NoSchedule\"}: "
                    "taints must be unique by key and effect pair"});
}

}  // namespace
}  // namespace nodewright::api::corev1
