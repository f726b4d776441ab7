#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "api/core/core_test_util.h"
#include "api/core/pod.h"
#include "api/registry.h"

namespace nodewright::api::corev1 {
namespace {

struct KindCase {
  std::string apiVersion;
  std::string kind;
  std::string plural;
  std::vector<std::string> shortNames;
  bool namespaced;
  bool statusSubresource;
};

void PrintTo(const KindCase& c, std::ostream* os) {
  *os << c.kind;
}

class CoreKindRegistrationTest : public ::testing::TestWithParam<KindCase> {};

TEST_P(CoreKindRegistrationTest, RegisteredAsKubeApiserverServesIt) {
  const KindCase& c = GetParam();
  const KindInfo* info = testing::coreRegistry().find(c.apiVersion, c.kind);
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->custom);
  EXPECT_EQ(info->plural, c.plural);
  EXPECT_EQ(info->shortNames, c.shortNames);
  EXPECT_EQ(info->namespaced, c.namespaced);
  EXPECT_EQ(info->statusSubresource, c.statusSubresource);
  EXPECT_FALSE(info->doc.empty());
  EXPECT_FALSE(info->printerColumns.empty());
  for (const std::string& name : c.shortNames) {
    EXPECT_EQ(builtinRegistry().lookup(name), builtinRegistry().find(c.apiVersion, c.kind)) << name;
  }
  EXPECT_EQ(builtinRegistry().lookup(c.plural), builtinRegistry().find(c.apiVersion, c.kind));
}

TEST_P(CoreKindRegistrationTest, MinimalManifestDecodes) {
  const KindCase& c = GetParam();
  Json doc = {{"apiVersion", c.apiVersion}, {"kind", c.kind}, {"metadata", {{"name", "x"}}}};
  auto decoded = testing::decode(doc, /*defaults=*/true);
  ASSERT_TRUE(decoded.object);
  EXPECT_EQ(decoded.object->info().kind, c.kind);
  EXPECT_EQ(decoded.object->toJson()["kind"], c.kind);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, CoreKindRegistrationTest,
    ::testing::Values(
        KindCase{"v1", "Namespace", "namespaces", {"ns"}, false, true},
        KindCase{"v1", "Pod", "pods", {"po"}, true, true},
        KindCase{"v1", "Node", "nodes", {"no"}, false, true},
        KindCase{"v1", "Event", "events", {"ev"}, true, false},
        KindCase{"v1", "Secret", "secrets", {}, true, false},
        KindCase{"v1", "ConfigMap", "configmaps", {"cm"}, true, false},
        KindCase{"v1", "ServiceAccount", "serviceaccounts", {"sa"}, true, false},
        KindCase{"v1", "Service", "services", {"svc"}, true, true},
        KindCase{"rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", {}, false, false},
        KindCase{"rbac.authorization.k8s.io/v1",
                 "ClusterRoleBinding",
                 "clusterrolebindings",
                 {},
                 false,
                 false},
        KindCase{"rbac.authorization.k8s.io/v1", "Role", "roles", {}, true, false},
        KindCase{"rbac.authorization.k8s.io/v1", "RoleBinding", "rolebindings", {}, true, false},
        KindCase{"coordination.k8s.io/v1", "Lease", "leases", {}, true, false},
        KindCase{"apps/v1", "Deployment", "deployments", {"deploy"}, true, true},
        KindCase{"apps/v1", "ReplicaSet", "replicasets", {"rs"}, true, true},
        KindCase{"apps/v1", "DaemonSet", "daemonsets", {"ds"}, true, true},
        KindCase{"policy/v1", "PodDisruptionBudget", "poddisruptionbudgets", {"pdb"}, true, true}),
    [](const auto& info) { return info.param.kind; });

TEST(CoreObjectAccessTest, DecodedObjectGivesTypedAccess) {
  auto decoded =
      testing::decode(testing::parseYaml("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: "
                                         "{containers: [{name: a, image: a}]}\n"));
  ASSERT_TRUE(decoded.object);
  ASSERT_NE(decoded.object->as<Pod>(), nullptr);
  EXPECT_EQ(decoded.object->as<Pod>()->spec.containers[0].image, "a");
  EXPECT_EQ(decoded.object->metadata().name, "p");
}

}  // namespace
}  // namespace nodewright::api::corev1
