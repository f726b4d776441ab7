#include "api/conversion/selectors.h"

#include <gtest/gtest.h>

#include "api/codec.h"

namespace nodewright::api::conversion {
namespace {

Json encodeTerms(const std::vector<SelectorTerm>& terms) {
  return toJson(toAmiTerms(terms));
}

struct ForwardCase {
  std::string name;
  SelectorKind kind;
  SelectorMap selector;
  Json terms;                       // as encoded AMISelectorTerms (a superset of the fields)
  std::optional<SelectorMap> back;  // canonical map; nullopt: the same as `selector`
};

void PrintTo(const ForwardCase& c, std::ostream* os) {
  *os << c.name;
}

class LegacySelectorTest : public ::testing::TestWithParam<ForwardCase> {};

TEST_P(LegacySelectorTest, BecomesTheseTerms) {
  FieldErrors errors;
  auto terms = termsFromSelector(GetParam().selector, GetParam().kind, FieldPath("spec.s"), errors);
  EXPECT_TRUE(errors.empty()) << errors.front().toString();
  EXPECT_EQ(encodeTerms(terms), GetParam().terms);
}

TEST_P(LegacySelectorTest, ComesBackAsTheCanonicalMap) {
  FieldErrors errors;
  auto terms = termsFromSelector(GetParam().selector, GetParam().kind, FieldPath("spec.s"), errors);
  auto back = canonicalSelector(terms, GetParam().kind, FieldPath("spec.terms"), errors);
  ASSERT_TRUE(back) << errors.front().toString();
  EXPECT_EQ(*back, GetParam().back.value_or(GetParam().selector));
}

INSTANTIATE_TEST_SUITE_P(
    Maps, LegacySelectorTest,
    ::testing::Values(
        ForwardCase{"TagsAreOneTerm",
                    SelectorKind::Subnet,
                    {{"karpenter.sh/discovery", "demo"}, {"tier", "*"}},
                    Json::parse(R"([{"tags":{"karpenter.sh/discovery":"demo","tier":"*"}}])"),
                    std::nullopt},
        ForwardCase{"LegacyIdsKeySplitsIntoOneTermPerId",
                    SelectorKind::Subnet,
                    {{"aws-ids", "subnet-123,subnet-456"}},
                    Json::parse(R"([{"id":"subnet-123"},{"id":"subnet-456"}])"),
                    SelectorMap{{"aws::ids", "subnet-123,subnet-456"}}},
        ForwardCase{"IdsWithSpacesAreTrimmed",
                    SelectorKind::SecurityGroup,
                    {{"aws::ids", "sg-123, sg-456"}},
                    Json::parse(R"([{"id":"sg-123"},{"id":"sg-456"}])"),
                    SelectorMap{{"aws::ids", "sg-123,sg-456"}}},
        ForwardCase{"SecurityGroupNamesWithTags",
                    SelectorKind::SecurityGroup,
                    {{"aws::name", "a,b"}, {"env", "prod"}},
                    Json::parse(R"([{"tags":{"env":"prod"},"name":"a"},
                                    {"tags":{"env":"prod"},"name":"b"}])"),
                    std::nullopt},
        ForwardCase{"AmiNamesCrossOwners",
                    SelectorKind::Ami,
                    {{"aws::name", "my-name1,my-name2"}, {"aws::owners", "123456789,amazon"}},
                    Json::parse(R"([{"name":"my-name1","owner":"123456789"},
                                    {"name":"my-name2","owner":"123456789"},
                                    {"name":"my-name1","owner":"amazon"},
                                    {"name":"my-name2","owner":"amazon"}])"),
                    std::nullopt},
        ForwardCase{"AmiIds",
                    SelectorKind::Ami,
                    {{"aws::ids", "ami-123,ami-456"}},
                    Json::parse(R"([{"id":"ami-123"},{"id":"ami-456"}])"),
                    std::nullopt},
        ForwardCase{"AmiTagsWithOwner",
                    SelectorKind::Ami,
                    {{"aws::owners", "self"}, {"team", "a"}},
                    Json::parse(R"([{"tags":{"team":"a"},"owner":"self"}])"),
                    std::nullopt},
        ForwardCase{"EmptyTagValueIsTheWildcard",
                    SelectorKind::Subnet,
                    {{"tier", ""}},
                    Json::parse(R"([{"tags":{"tier":"*"}}])"),
                    SelectorMap{{"tier", "*"}}},
        ForwardCase{"EmptyMapHasNoTerms", SelectorKind::Subnet, {}, Json::array(), std::nullopt}),
    [](const auto& info) { return info.param.name; });

struct ErrorCase {
  std::string name;
  SelectorKind kind;
  SelectorMap selector;
  std::vector<std::string> errors;
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class LegacySelectorErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LegacySelectorErrorTest, NamesTheKey) {
  FieldErrors errors;
  termsFromSelector(GetParam().selector, GetParam().kind, FieldPath("spec.subnetSelector"), errors);
  std::vector<std::string> rendered;
  for (const FieldError& e : errors) {
    rendered.push_back(e.toString());
  }
  EXPECT_EQ(rendered, GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Maps, LegacySelectorErrorTest,
    ::testing::Values(
        ErrorCase{"IdsWithTags",
                  SelectorKind::Subnet,
                  {{"aws-ids", "subnet-1"}, {"env", "prod"}},
                  {"spec.subnetSelector[aws-ids]: Forbidden: IDs cannot be combined with other "
                   "keys: a karpenter.k8s.aws/v1 id term stands alone"}},
        ErrorCase{"BothIdKeys",
                  SelectorKind::Subnet,
                  {{"aws-ids", "subnet-1"}, {"aws::ids", "subnet-2"}},
                  {"spec.subnetSelector[aws::ids]: Forbidden: may not be set together with "
                   "spec.subnetSelector[aws-ids]"}},
        ErrorCase{"SubnetName",
                  SelectorKind::Subnet,
                  {{"aws::name", "private"}},
                  {"spec.subnetSelector[aws::name]: Forbidden: has no karpenter.k8s.aws/v1 "
                   "equivalent; subnets are selected by id or tags; use the Name tag"}},
        ErrorCase{"OwnersOutsideAmis",
                  SelectorKind::SecurityGroup,
                  {{"aws::owners", "self"}},
                  {"spec.subnetSelector[aws::owners]: Forbidden: owners apply to AMI selectors "
                   "only"}},
        ErrorCase{"EmptyIdList",
                  SelectorKind::Subnet,
                  {{"aws::ids", " , "}},
                  {"spec.subnetSelector[aws::ids]: Invalid value: \" , \": must list at least one "
                   "value"}}),
    [](const auto& info) { return info.param.name; });

struct CanonicalErrorCase {
  std::string name;
  Json terms;  // AMISelectorTerms
  std::vector<std::string> errors;
};

void PrintTo(const CanonicalErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class TermsWithoutLegacyFormTest : public ::testing::TestWithParam<CanonicalErrorCase> {};

TEST_P(TermsWithoutLegacyFormTest, AreReportedAtTheTerms) {
  std::vector<karpenter::AMISelectorTerm> v1;
  ASSERT_TRUE(decodeJson(GetParam().terms, v1).empty());
  FieldErrors errors;
  auto map =
      canonicalSelector(toTerms(v1), SelectorKind::Ami, FieldPath("spec.amiSelectorTerms"), errors);
  EXPECT_FALSE(map);
  std::vector<std::string> rendered;
  for (const FieldError& e : errors) {
    rendered.push_back(e.toString());
  }
  EXPECT_EQ(rendered, GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Terms, TermsWithoutLegacyFormTest,
    ::testing::Values(
        CanonicalErrorCase{"Alias",
                           Json::parse(R"([{"alias":"al2023@latest"}])"),
                           {"spec.amiSelectorTerms[0].alias: Forbidden: has no "
                            "karpenter.k8s.aws/v1alpha1 equivalent; select the AMI by id, name or "
                            "tags"}},
        CanonicalErrorCase{"SsmParameter",
                           Json::parse(R"([{"ssmParameter":"/my/ami"}])"),
                           {"spec.amiSelectorTerms[0].ssmParameter: Forbidden: has no "
                            "karpenter.k8s.aws/v1alpha1 equivalent"}},
        CanonicalErrorCase{"IdsMixedWithTags",
                           Json::parse(R"([{"id":"ami-1"},{"tags":{"a":"b"}}])"),
                           {"spec.amiSelectorTerms: Forbidden: id terms mixed with other terms "
                            "cannot be expressed as one karpenter.k8s.aws/v1alpha1 selector"}},
        CanonicalErrorCase{"TwoTagSets",
                           Json::parse(R"([{"tags":{"a":"b"}},{"tags":{"c":"d"}}])"),
                           {"spec.amiSelectorTerms: Forbidden: these terms are not one tag set "
                            "crossed with names and owners, so no single "
                            "karpenter.k8s.aws/v1alpha1 selector expresses them"}},
        CanonicalErrorCase{"TagNamedLikeAKeyword",
                           Json::parse(R"([{"tags":{"aws::name":"x"}}])"),
                           {"spec.amiSelectorTerms[0].tags[aws::name]: Forbidden: a tag with this "
                            "key would be read as a v1alpha1 selector keyword"}}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::api::conversion
