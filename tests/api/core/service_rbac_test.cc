// ServiceAccount, Service and the RBAC kinds: what a kustomize-rendered install sets decodes,
// round-trips and validates with upstream's field paths.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/core/core_test_util.h"
#include "api/core/rbac.h"
#include "api/core/service.h"

namespace nodewright::api::corev1 {
namespace {

using testing::at;
using testing::comparable;
using testing::decode;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::parseYaml;
using testing::roundTrip;
using testing::validationErrors;

constexpr std::string_view kServiceAccount = R"(
apiVersion: v1
kind: ServiceAccount
metadata:
  name: nodewright
  namespace: nodewright-system
  annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::123456789012:role/nodewright"}
secrets:
- name: nodewright-token
imagePullSecrets:
- name: registry
automountServiceAccountToken: false
)";

constexpr std::string_view kService = R"(
apiVersion: v1
kind: Service
metadata:
  name: nodewright-metrics
  namespace: nodewright-system
  labels: {app.kubernetes.io/name: nodewright}
spec:
  type: ClusterIP
  clusterIP: 10.96.0.20
  selector: {app.kubernetes.io/name: nodewright}
  ipFamilyPolicy: SingleStack
  ports:
  - name: http-metrics
    port: 8080
    targetPort: http-metrics
    protocol: TCP
  - name: webhook
    port: 443
    targetPort: 8443
status:
  loadBalancer:
    ingress: [{ip: 192.0.2.10}]
)";

constexpr std::string_view kClusterRole = R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: nodewright:controller
rules:
- apiGroups: [karpenter.sh]
  resources: [nodepools, nodepools/status, nodeclaims]
  verbs: [get, list, watch, create, patch, update, delete]
- apiGroups: [""]
  resources: [pods/eviction]
  verbs: [create]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [nodewright-leader-election]
  verbs: [get, update]
- nonResourceURLs: [/metrics]
  verbs: [get]
)";

constexpr std::string_view kClusterRoleBinding = R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: nodewright}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "nodewright:controller"}
subjects:
- {kind: ServiceAccount, name: nodewright, namespace: nodewright-system}
- {kind: Group, apiGroup: rbac.authorization.k8s.io, name: "system:masters"}
)";

TEST(ServiceAccountTest, RoundTripsEveryField) {
  Json doc = parseYaml(kServiceAccount);
  EXPECT_EQ(comparable(roundTrip(doc)), comparable(doc));
}

TEST(ServiceTest, RoundTripsModelledAndUnknownFields) {
  Json doc = parseYaml(kService);
  Json encoded = roundTrip(doc);
  EXPECT_EQ(comparable(encoded), comparable(doc));
  EXPECT_EQ(at(encoded, "/spec/ipFamilyPolicy"), "SingleStack");
  EXPECT_EQ(at(encoded, "/spec/ports/0/targetPort"), "http-metrics");
  EXPECT_EQ(at(encoded, "/spec/ports/1/targetPort"), 8443);
}

TEST(ServiceTest, DefaultsTypeProtocolAndTargetPort) {
  auto decoded = decode(parseYaml(R"(
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports: [{port: 80}]
)"),
                        /*defaults=*/true);
  ASSERT_TRUE(decoded.object);
  EXPECT_THAT(testing::errorStrings(decoded.errors), IsEmpty());
  const auto* service = decoded.object->as<Service>();
  ASSERT_NE(service, nullptr);
  EXPECT_EQ(service->spec.type, "ClusterIP");
  EXPECT_EQ(service->spec.ports[0].protocol, "TCP");
  ASSERT_TRUE(service->spec.ports[0].targetPort);
  EXPECT_EQ(*service->spec.ports[0].targetPort, IntOrString::ofInt(80));
}

TEST(ServiceTest, RejectsBadPortsNamingTheirFields) {
  EXPECT_THAT(validationErrors(R"(
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports:
  - {name: a, port: 70000, targetPort: 0}
  - {port: 80, targetPort: Not_A_Name, protocol: ICMP}
)"),
              ElementsAre(::testing::HasSubstr("spec.ports[1].protocol: Unsupported value"),
                          "spec.ports[0].port: Invalid value: 70000: must be between 1 and "
                          "65535, inclusive",
                          ::testing::HasSubstr("spec.ports[0].targetPort: Invalid value: 0"),
                          "spec.ports[1].name: Required value",
                          ::testing::HasSubstr("spec.ports[1].targetPort: Invalid value: "
                                               "\"Not_A_Name\"")));
}

TEST(ServiceTest, RequiresPortsUnlessHeadlessOrExternalName) {
  EXPECT_THAT(validationErrors("apiVersion: v1\nkind: Service\nmetadata: {name: a, namespace: "
                               "b}\nspec: {selector: {app: a}}\n"),
              ElementsAre("spec.ports: Required value"));
  EXPECT_THAT(validationErrors("apiVersion: v1\nkind: Service\nmetadata: {name: a, namespace: "
                               "b}\nspec: {clusterIP: None}\n"),
              IsEmpty());
  EXPECT_THAT(validationErrors("apiVersion: v1\nkind: Service\nmetadata: {name: a, namespace: "
                               "b}\nspec: {type: ExternalName, externalName: db.example.com}\n"),
              IsEmpty());
}

TEST(ServiceTest, RejectsDuplicatePortNames) {
  EXPECT_THAT(validationErrors(R"(
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports: [{name: a, port: 80}, {name: a, port: 81}]
)"),
              ElementsAre("spec.ports[1].name: Duplicate value: \"a\""));
}

TEST(RbacTest, ClusterRoleAndBindingRoundTrip) {
  for (std::string_view yaml : {kClusterRole, kClusterRoleBinding}) {
    Json doc = parseYaml(yaml);
    EXPECT_EQ(comparable(roundTrip(doc)), comparable(doc));
    EXPECT_THAT(validationErrors(yaml), IsEmpty());
  }
}

TEST(RbacTest, KeepsAnAggregationRule) {
  Json doc = parseYaml(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: nodewright-view}
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {rbac.nodewright.io/aggregate-to-view: "true"}
rules: []
)");
  Json encoded = roundTrip(doc);
  EXPECT_EQ(at(encoded, "/aggregationRule/clusterRoleSelectors/0/matchLabels"),
            Json({{"rbac.nodewright.io/aggregate-to-view", "true"}}));
}

TEST(RbacTest, RuleWithoutVerbsIsRejectedAtItsPath) {
  EXPECT_THAT(validationErrors(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: shop}
rules:
- {apiGroups: [""], resources: [pods]}
)"),
              ElementsAre("rules[0].verbs: Required value: verbs must contain at least one value"));
}

TEST(RbacTest, ResourceRulesNeedGroupsAndResourcesAndRolesNoUrls) {
  EXPECT_THAT(validationErrors(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: shop}
rules:
- {verbs: [get]}
- {verbs: [get], nonResourceURLs: [/metrics]}
)"),
              ElementsAre("rules[0].apiGroups: Required value: resource rules must supply at "
                          "least one api group",
                          "rules[0].resources: Required value: resource rules must supply at "
                          "least one resource",
                          ::testing::HasSubstr("rules[1].nonResourceURLs: Invalid value")));
}

TEST(RbacTest, BindingNeedsARoleRefAndValidSubjects) {
  EXPECT_THAT(validationErrors(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
roleRef: {kind: Role}
subjects:
- {kind: ServiceAccount, name: sa}
- {kind: Robot, name: r2}
)"),
              ElementsAre("roleRef.name: Required value",
                          "roleRef.kind: Unsupported value: \"Role\": supported values: "
                          "\"ClusterRole\"",
                          "subjects[0].namespace: Required value",
                          ::testing::HasSubstr("subjects[1].kind: Unsupported value: \"Robot\"")));
}

TEST(RbacTest, RoleBindingDefaultsApiGroups) {
  auto decoded = decode(parseYaml(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: b, namespace: shop}
roleRef: {kind: Role, name: r}
subjects: [{kind: User, name: alice}, {kind: ServiceAccount, name: default}]
)"),
                        /*defaults=*/true);
  ASSERT_TRUE(decoded.object);
  EXPECT_THAT(testing::errorStrings(decoded.errors), IsEmpty());
  const auto* binding = decoded.object->as<RoleBinding>();
  ASSERT_NE(binding, nullptr);
  EXPECT_EQ(binding->roleRef.apiGroup, "rbac.authorization.k8s.io");
  EXPECT_EQ(binding->subjects[0].apiGroup, "rbac.authorization.k8s.io");
  EXPECT_EQ(binding->subjects[1].apiGroup, "");
}

}  // namespace
}  // namespace nodewright::api::corev1
