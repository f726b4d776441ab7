// AzureClusterIdentity.spec.allowedNamespaces as CAPZ's IsClusterNamespaceAllowed reads it,
// decoded from the manifests a user writes, so `{}` (all) and `{list: []}` (none listed) stay
// apart.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "api/capi/manifest_helpers.h"
#include "api/capz/azure_cluster_identity.h"

namespace nodewright::api::capz {
namespace {

using capi::testing::decodeValid;
using capi::testing::document;

struct AllowedCase {
  std::string name;
  std::string allowedNamespaces;  // YAML after "allowedNamespaces:"; empty: absent
  std::optional<Labels> namespaceLabels;  // of the cluster's namespace "team-a"
  bool allowed;
};

class AllowedNamespacesTest : public ::testing::TestWithParam<AllowedCase> {};

TEST_P(AllowedNamespacesTest, DecidesAsUpstream) {
  const AllowedCase& c = GetParam();
  std::string yaml = R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureClusterIdentity
metadata:
  name: cluster-identity
  namespace: team-a
spec:
  type: ServicePrincipal
  clientID: 11111111-1111-1111-1111-111111111111
  tenantID: 22222222-2222-2222-2222-222222222222
  clientSecret: {name: cluster-identity-secret, namespace: team-a}
)";
  if (!c.allowedNamespaces.empty()) {
    yaml += "  allowedNamespaces: " + c.allowedNamespaces + "\n";
  }
  auto identity = decodeValid<AzureClusterIdentity>(document(yaml));

  EXPECT_EQ(isClusterNamespaceAllowed(identity.spec.allowedNamespaces, "team-a", c.namespaceLabels),
            c.allowed);
}

const Labels kTeamA{{"team", "a"}};

INSTANTIATE_TEST_SUITE_P(
    Cases, AllowedNamespacesTest,
    ::testing::Values(
        // Absent: none, not even the identity's own namespace.
        AllowedCase{"AbsentAllowsNone", "", kTeamA, false},
        AllowedCase{"EmptyObjectAllowsAll", "{}", std::nullopt, true},
        AllowedCase{"NullListAllowsAll", "{list: null}", std::nullopt, true},
        AllowedCase{"EmptyListAllowsNone", "{list: []}", kTeamA, false},
        AllowedCase{"ListedNamespace", "{list: [team-b, team-a]}", std::nullopt, true},
        AllowedCase{"UnlistedNamespace", "{list: [team-b]}", kTeamA, false},
        AllowedCase{"EmptySelectorMatchesNothing", "{selector: {}}", kTeamA, false},
        AllowedCase{"SelectorMatchesLabels", "{selector: {matchLabels: {team: a}}}", kTeamA,
                    true},
        AllowedCase{"SelectorMissesLabels", "{selector: {matchLabels: {team: b}}}", kTeamA,
                    false},
        AllowedCase{"SelectorExpression",
                    "{selector: {matchExpressions: [{key: team, operator: In, values: [a]}]}}",
                    kTeamA, true},
        AllowedCase{"UnreadableNamespaceMatchesNothing",
                    "{selector: {matchLabels: {team: a}}}", std::nullopt, false},
        AllowedCase{"ListOrSelector", "{list: [team-b], selector: {matchLabels: {team: a}}}",
                    kTeamA, true}),
    [](const auto& info) { return info.param.name; });

// Upstream's LabelSelectorAsSelector refuses these, and a refused selector matches nothing.
TEST(AllowedNamespacesSelectorTest, UnconvertibleSelectorMatchesNothing) {
  AllowedNamespaces allowed;
  allowed.selector = LabelSelector{};
  allowed.selector->matchExpressions.push_back({"team", "In", {}});
  EXPECT_FALSE(isClusterNamespaceAllowed(allowed, "team-a", kTeamA));

  allowed.selector->matchExpressions = {{"team", "Exists", {"a"}}};
  EXPECT_FALSE(isClusterNamespaceAllowed(allowed, "team-a", kTeamA));

  allowed.selector->matchExpressions = {{"team", "Gt", {"1"}}};
  EXPECT_FALSE(isClusterNamespaceAllowed(allowed, "team-a", kTeamA));

  allowed.selector->matchExpressions = {{"team", "Exists", {}}};
  EXPECT_TRUE(isClusterNamespaceAllowed(allowed, "team-a", kTeamA));
}

}  // namespace
}  // namespace nodewright::api::capz
