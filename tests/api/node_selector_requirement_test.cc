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

using Strings = std::vector<std::string>;

Strings render(const FieldErrors& errors) {
  Strings out;
  for (const FieldError& e : errors) {
    out.push_back(e.toString());
  }
  return out;
}

// --- Node selector requirements ---

struct RequirementCase {
  std::string name;
  NodeSelectorRequirement requirement;
  Labels labels;
  bool matches;
};

void PrintTo(const RequirementCase& c, std::ostream* os) {
  *os << c.name;
}

class NodeSelectorRequirementMatchTest : public ::testing::TestWithParam<RequirementCase> {};

TEST_P(NodeSelectorRequirementMatchTest, EvaluatesAgainstNodeLabels) {
  const RequirementCase& c = GetParam();
  EXPECT_EQ(matches(c.requirement, c.labels), c.matches);
  EXPECT_EQ(matches(c.requirement.key, c.requirement.operator_, c.requirement.values, c.labels),
            c.matches);
}

const Labels kNode = {{"karpenter.k8s.aws/instance-cpu", "8"},
                      {"karpenter.sh/capacity-type", "spot"},
                      {"topology.kubernetes.io/zone", "us-east-1a"},
                      {"karpenter.k8s.aws/instance-generation", "+6"},
                      {"karpenter.k8s.aws/instance-family", "m5"}};

INSTANTIATE_TEST_SUITE_P(
    Requirements, NodeSelectorRequirementMatchTest,
    ::testing::Values(
        RequirementCase{
            "InListed", {"karpenter.sh/capacity-type", "In", {"on-demand", "spot"}}, kNode, true},
        RequirementCase{
            "InNotListed", {"karpenter.sh/capacity-type", "In", {"on-demand"}}, kNode, false},
        RequirementCase{"InMissing", {"example.com/gpu", "In", {"a"}}, kNode, false},
        RequirementCase{
            "NotInListed", {"karpenter.sh/capacity-type", "NotIn", {"spot"}}, kNode, false},
        RequirementCase{"NotInMissing", {"example.com/gpu", "NotIn", {"a"}}, kNode, true},
        RequirementCase{
            "ExistsPresent", {"topology.kubernetes.io/zone", "Exists", {}}, kNode, true},
        RequirementCase{"ExistsAbsent", {"example.com/gpu", "Exists", {}}, kNode, false},
        RequirementCase{"DoesNotExistAbsent", {"example.com/gpu", "DoesNotExist", {}}, kNode, true},
        RequirementCase{"DoesNotExistPresent",
                        {"topology.kubernetes.io/zone", "DoesNotExist", {}},
                        kNode,
                        false},
        RequirementCase{"GtAbove", {"karpenter.k8s.aws/instance-cpu", "Gt", {"4"}}, kNode, true},
        RequirementCase{"GtEqual", {"karpenter.k8s.aws/instance-cpu", "Gt", {"8"}}, kNode, false},
        RequirementCase{"GtComparesNumbersNotText",
                        {"karpenter.k8s.aws/instance-cpu", "Gt", {"10"}},
                        kNode,
                        false},
        RequirementCase{"LtBelow", {"karpenter.k8s.aws/instance-cpu", "Lt", {"16"}}, kNode, true},
        RequirementCase{"LtEqual", {"karpenter.k8s.aws/instance-cpu", "Lt", {"8"}}, kNode, false},
        RequirementCase{"GteEqual", {"karpenter.k8s.aws/instance-cpu", "Gte", {"8"}}, kNode, true},
        RequirementCase{"GteAbove", {"karpenter.k8s.aws/instance-cpu", "Gte", {"9"}}, kNode, false},
        RequirementCase{"LteEqual", {"karpenter.k8s.aws/instance-cpu", "Lte", {"8"}}, kNode, true},
        RequirementCase{"LteBelow", {"karpenter.k8s.aws/instance-cpu", "Lte", {"7"}}, kNode, false},
        RequirementCase{
            "GtNegativeBound", {"karpenter.k8s.aws/instance-cpu", "Gt", {"-1"}}, kNode, true},
        RequirementCase{"GtSignedLabelValue",
                        {"karpenter.k8s.aws/instance-generation", "Gt", {"5"}},
                        kNode,
                        true},
        RequirementCase{"GtOnTextLabelNeverMatches",
                        {"karpenter.k8s.aws/instance-family", "Gt", {"1"}},
                        kNode,
                        false},
        RequirementCase{"LtOnTextLabelNeverMatches",
                        {"karpenter.k8s.aws/instance-family", "Lt", {"1000"}},
                        kNode,
                        false},
        RequirementCase{"GtMissingLabel", {"example.com/gpu", "Gt", {"0"}}, kNode, false},
        RequirementCase{
            "GtTextBound", {"karpenter.k8s.aws/instance-cpu", "Gt", {"four"}}, kNode, false},
        RequirementCase{
            "GtTwoValues", {"karpenter.k8s.aws/instance-cpu", "Gt", {"1", "2"}}, kNode, false},
        RequirementCase{"LtOverflowingBound",
                        {"karpenter.k8s.aws/instance-cpu", "Lt", {"99999999999999999999"}},
                        kNode,
                        false},
        RequirementCase{
            "UnknownOperator", {"karpenter.sh/capacity-type", "Equals", {"spot"}}, kNode, false}),
    [](const auto& info) { return info.param.name; });

struct ValuesCase {
  std::string name;
  std::string op;
  Strings values;
  Strings errors;
};

void PrintTo(const ValuesCase& c, std::ostream* os) {
  *os << c.name;
}

class RequirementValuesValidationTest : public ::testing::TestWithParam<ValuesCase> {};

TEST_P(RequirementValuesValidationTest, ChecksValueCountForOperator) {
  FieldErrors errors;
  validateRequirementValues(GetParam().op, GetParam().values,
                            FieldPath("spec.requirements").index(2), errors);
  EXPECT_EQ(render(errors), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Operators, RequirementValuesValidationTest,
    ::testing::Values(
        ValuesCase{"InWithValues", "In", {"a"}, {}},
        ValuesCase{"InWithout",
                   "In",
                   {},
                   {"spec.requirements[2].values: Required value: must be specified when "
                    "`operator` is 'In' or 'NotIn'"}},
        ValuesCase{"NotInWithout",
                   "NotIn",
                   {},
                   {"spec.requirements[2].values: Required value: must be specified when "
                    "`operator` is 'In' or 'NotIn'"}},
        ValuesCase{"ExistsWithout", "Exists", {}, {}},
        ValuesCase{"DoesNotExistWith",
                   "DoesNotExist",
                   {"a"},
                   {"spec.requirements[2].values: Forbidden: may not be specified when "
                    "`operator` is 'Exists' or 'DoesNotExist'"}},
        ValuesCase{"GtOneInteger", "Gt", {"4"}, {}},
        ValuesCase{"LtNone",
                   "Lt",
                   {},
                   {"spec.requirements[2].values: Required value: must be specified single "
                    "value when `operator` is 'Lt' or 'Gt'"}},
        ValuesCase{"GtTwo",
                   "Gt",
                   {"1", "2"},
                   {"spec.requirements[2].values: Required value: must be specified single "
                    "value when `operator` is 'Lt' or 'Gt'"}},
        ValuesCase{"GtText",
                   "Gt",
                   {"x"},
                   {"spec.requirements[2].values[0]: Invalid value: \"x\": must be an integer"}},
        ValuesCase{"GteNegative", "Gte", {"-3"}, {}},
        ValuesCase{"LteTwo",
                   "Lte",
                   {"1", "2"},
                   {"spec.requirements[2].values: Required value: must be specified single "
                    "value when `operator` is 'Lte' or 'Gte'"}},
        ValuesCase{"LteDecimal",
                   "Lte",
                   {"1.5"},
                   {"spec.requirements[2].values[0]: Invalid value: \"1.5\": must be an "
                    "integer"}},
        ValuesCase{"UnknownOperatorLeftToCaller", "Near", {}, {}}),
    [](const auto& info) { return info.param.name; });

TEST(NodeSelectorRequirementValidationTest, ReportsOperatorValuesAndKey) {
  NodeSelectorRequirement bad{"-zone", "Near", {"a"}};
  EXPECT_EQ(render(validateValue(bad, "r")),
            (Strings{"r.operator: Invalid value: \"Near\": not a valid selector operator",
                     "r.key: Invalid value: \"-zone\": " + std::string(kNamePartSyntax)}));
  NodeSelectorRequirement gt{"karpenter.k8s.aws/instance-cpu", "Gt", {"4", "8"}};
  EXPECT_EQ(render(validateValue(gt, "r")),
            Strings{"r.values: Required value: must be specified single value when `operator` "
                    "is 'Lt' or 'Gt'"});
}

}  // namespace
}  // namespace nodewright::api
