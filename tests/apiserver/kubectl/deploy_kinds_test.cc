// The kinds a real install applies besides nodewright's own (ServiceAccount, Service, RBAC,
// a ServiceMonitor through its CRD), through kubectl against the embedded server.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/kubectl/kubectl_support.h"

namespace nodewright::apiserver::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

std::string installManifests(const std::string& ns, int metricsPort = 8080) {
  return R"(apiVersion: v1
kind: ServiceAccount
metadata: {name: nodewright, namespace: )" +
         ns + R"(}
imagePullSecrets: [{name: registry}]
automountServiceAccountToken: true
---
apiVersion: v1
kind: Service
metadata: {name: nodewright-metrics, namespace: )" +
         ns + R"(}
spec:
  type: ClusterIP
  selector: {app.kubernetes.io/name: nodewright}
  ports:
  - {name: http-metrics, port: )" +
         std::to_string(metricsPort) + R"(, targetPort: http-metrics, protocol: TCP}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: "nodewright:leader-election", namespace: )" +
         ns + R"(}
rules:
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: nodewright-leader-election, namespace: )" +
         ns + R"(}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: "nodewright:leader-election"}
subjects: [{kind: ServiceAccount, name: nodewright}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: )" +
         ns + R"(-core}
rules:
- {apiGroups: [karpenter.sh], resources: [nodepools, nodepools/status], verbs: [get, list, watch]}
- {nonResourceURLs: [/metrics], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: )" +
         ns + R"(-core}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: )" +
         ns + R"(-core}
subjects: [{kind: ServiceAccount, name: nodewright, namespace: )" +
         ns + R"(}]
)";
}

constexpr const char* kServiceMonitorCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: servicemonitors.monitoring.coreos.com}
spec:
  group: monitoring.coreos.com
  scope: Namespaced
  names: {kind: ServiceMonitor, listKind: ServiceMonitorList, plural: servicemonitors,
          singular: servicemonitor, shortNames: [smon]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
)";

class KubectlDeployKinds : public KubectlSuite<KubectlDeployKinds> {};

TEST_F(KubectlDeployKinds, ServerDryRunAcceptsEachKindWithoutStoringIt) {
  std::string ns = makeNamespace("dry-install");
  std::string out = ok({"apply", "--dry-run=server", "-f", "-"}, installManifests(ns));
  EXPECT_EQ(out,
            "serviceaccount/nodewright created (server dry run)\n"
            "service/nodewright-metrics created (server dry run)\n"
            "role.rbac.authorization.k8s.io/nodewright:leader-election created (server dry run)\n"
            "rolebinding.rbac.authorization.k8s.io/nodewright-leader-election created (server "
            "dry run)\n"
            "clusterrole.rbac.authorization.k8s.io/dry-install-core created (server dry run)\n"
            "clusterrolebinding.rbac.authorization.k8s.io/dry-install-core created (server dry "
            "run)\n");
  EXPECT_FALSE(exists({"serviceaccount", "nodewright", "-n", ns}));
  EXPECT_FALSE(exists({"clusterrole", ns + "-core"}));
}

TEST_F(KubectlDeployKinds, ApplyStoresThenReappliesUnchangedThenConfigured) {
  std::string ns = makeNamespace("install");
  ok({"apply", "-f", "-"}, installManifests(ns));
  EXPECT_THAT(ok({"apply", "-f", "-"}, installManifests(ns)),
              HasSubstr("service/nodewright-metrics unchanged\n"));
  // A changed port goes out as a strategic merge patch keyed by port.
  EXPECT_THAT(ok({"apply", "-f", "-"}, installManifests(ns, 9090)),
              HasSubstr("service/nodewright-metrics configured\n"));
  Json service = getJson({"svc", "nodewright-metrics", "-n", ns});
  ASSERT_EQ(service["spec"]["ports"].size(), 1u);
  EXPECT_EQ(service["spec"]["ports"][0]["port"], 9090);
  EXPECT_EQ(service["spec"]["ports"][0]["targetPort"], "http-metrics");

  Json account = getJson({"sa", "nodewright", "-n", ns});
  EXPECT_EQ(account["imagePullSecrets"][0]["name"], "registry");
  EXPECT_EQ(account["automountServiceAccountToken"], true);
  Json binding = getJson({"rolebinding", "nodewright-leader-election", "-n", ns});
  EXPECT_EQ(binding["roleRef"]["name"], "nodewright:leader-election");
  EXPECT_EQ(binding["subjects"][0]["kind"], "ServiceAccount");
  Json role = getJson({"clusterrole", ns + "-core"});
  EXPECT_EQ(role["rules"][1]["nonResourceURLs"][0], "/metrics");
}

TEST_F(KubectlDeployKinds, GetListsThemInTables) {
  std::string ns = makeNamespace("tables");
  ok({"apply", "-f", "-"}, installManifests(ns));
  EXPECT_THAT(ok({"get", "clusterroles"}),
              MatchesRegex("(.|\n)*\ntables-core +[0-9TZ:-]+\n(.|\n)*"));
  EXPECT_THAT(ok({"get", "clusterrolebindings", ns + "-core"}),
              MatchesRegex("NAME +ROLE +AGE\ntables-core +tables-core +[0-9]+s\n"));
  EXPECT_THAT(ok({"get", "svc", "-n", ns}),
              MatchesRegex("NAME +TYPE +CLUSTER-IP +PORTS +AGE\n"
                           "nodewright-metrics +ClusterIP +8080 +[0-9]+s\n"));
  EXPECT_THAT(ok({"get", "serviceaccounts", "-n", ns, "-o", "name"}),
              "serviceaccount/nodewright\n");
  EXPECT_THAT(ok({"api-resources", "--api-group=rbac.authorization.k8s.io", "-o", "name"}),
              "clusterrolebindings.rbac.authorization.k8s.io\n"
              "clusterroles.rbac.authorization.k8s.io\n"
              "rolebindings.rbac.authorization.k8s.io\n"
              "roles.rbac.authorization.k8s.io\n");
}

TEST_F(KubectlDeployKinds, RoleRuleWithoutVerbsIsRejectedNamingTheField) {
  std::string ns = makeNamespace("bad-role");
  std::string err = fails({"apply", "--dry-run=server", "-f", "-"},
                          R"(apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: bad-role}
rules:
- {apiGroups: [""], resources: [pods]}
)");
  EXPECT_THAT(err, HasSubstr("rules[0].verbs: Required value"));
}

TEST_F(KubectlDeployKinds, ServiceWithBadPortIsRejectedNamingTheField) {
  std::string ns = makeNamespace("bad-svc");
  std::string err = fails({"apply", "-f", "-"}, R"(apiVersion: v1
kind: Service
metadata: {name: s, namespace: bad-svc}
spec:
  ports: [{port: 70000}]
)");
  EXPECT_THAT(err, HasSubstr("spec.ports[0].port: Invalid value: 70000"));
  EXPECT_THAT(fails({"apply", "-f", "-"},
                    "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: bad-svc}\n"
                    "spec: {selector: {a: b}}\n"),
              HasSubstr("spec.ports: Required value"));
}

TEST_F(KubectlDeployKinds, ServiceMonitorIsServedOnceItsCrdExists) {
  std::string ns = makeNamespace("monitoring");
  ok({"apply", "-f", "-"}, kServiceMonitorCrd);
  ok({"wait", "--for=condition=Established", "--timeout=30s",
      "crd/servicemonitors.monitoring.coreos.com"});
  const std::string monitor = R"(apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: nodewright, namespace: monitoring}
spec:
  selector: {matchLabels: {app.kubernetes.io/name: nodewright}}
  endpoints: [{port: http-metrics, interval: 30s, path: /metrics}]
)";
  EXPECT_EQ(ok({"apply", "--dry-run=server", "-f", "-"}, monitor),
            "servicemonitor.monitoring.coreos.com/nodewright created (server dry run)\n");
  EXPECT_EQ(ok({"apply", "-f", "-"}, monitor),
            "servicemonitor.monitoring.coreos.com/nodewright created\n");
  Json live = getJson({"servicemonitors", "nodewright", "-n", ns});
  EXPECT_EQ(live["spec"]["endpoints"][0]["port"], "http-metrics");
  EXPECT_THAT(ok({"get", "smon", "-n", ns, "-o", "name"}),
              "servicemonitor.monitoring.coreos.com/nodewright\n");
}

}  // namespace
}  // namespace nodewright::apiserver::testing
