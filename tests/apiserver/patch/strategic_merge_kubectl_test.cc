// Strategic merge patches shaped like the ones kubectl sends.
#include <gtest/gtest.h>

#include <string_view>

#include "apiserver/patch/strategic_merge.h"

namespace nodewright::apiserver::patch {
namespace {

using api::Json;

constexpr std::string_view kDeployment = R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"},
               "finalizers": ["a.example.com/x", "b.example.com/y", "c.example.com/z"]},
  "spec": {
    "replicas": 2,
    "selector": {"matchLabels": {"app": "web"}},
    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}},
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {
        "containers": [
          {"name": "app", "image": "nginx:1.25",
           "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
           "ports": [{"containerPort": 80, "protocol": "TCP"}]},
          {"name": "sidecar", "image": "busybox"}
        ],
        "volumes": [{"name": "data", "emptyDir": {}}]
      }
    }
  }
})";

class StrategicMergeKubectlTest : public testing::Test {
 protected:
  Json patchDeployment(std::string_view patch) {
    auto result = applyStrategicMergePatch("apps", "Deployment", Json::parse(kDeployment),
                                           Json::parse(patch));
    EXPECT_TRUE(result.has_value()) << result.error().message();
    return result.value_or(Json());
  }

  static const Json& appContainer(const Json& deployment) {
    return deployment["spec"]["template"]["spec"]["containers"][0];
  }
};

// `kubectl apply` after the manifest changed the image, dropped env B, added env C, removed
// the sidecar, switched to the Recreate strategy and swapped the volume source.
TEST_F(StrategicMergeKubectlTest, AppliesKubectlApplyPatch) {
  Json result = patchDeployment(R"({
    "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
    "spec": {
      "strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": null},
      "template": {"spec": {
        "$setElementOrder/containers": [{"name": "app"}],
        "$setElementOrder/volumes": [{"name": "data"}],
        "containers": [
          {"$setElementOrder/env": [{"name": "A"}, {"name": "C"}],
           "env": [{"name": "C", "value": "3"}, {"$patch": "delete", "name": "B"}],
           "image": "nginx:1.26", "name": "app"},
          {"$patch": "delete", "name": "sidecar"}
        ],
        "volumes": [{"$retainKeys": ["hostPath", "name"], "hostPath": {"path": "/data"},
                     "name": "data"}]
      }}
    }
  })");
  const Json& spec = result["spec"];
  EXPECT_EQ(spec["strategy"], Json::parse(R"({"type":"Recreate"})"));
  EXPECT_EQ(spec["template"]["spec"]["containers"], Json::parse(R"([
    {"name": "app", "image": "nginx:1.26",
     "env": [{"name": "A", "value": "1"}, {"name": "C", "value": "3"}],
     "ports": [{"containerPort": 80, "protocol": "TCP"}]}])"));
  EXPECT_EQ(spec["template"]["spec"]["volumes"],
            Json::parse(R"([{"name":"data","hostPath":{"path":"/data"}}])"));
  EXPECT_EQ(result["metadata"]["annotations"].size(), 1u);
  EXPECT_EQ(result.dump().find('$'), std::string::npos) << "directive leaked: " << result.dump();
}

TEST_F(StrategicMergeKubectlTest, ApplyReordersContainersBySetElementOrder) {
  Json result = patchDeployment(R"({"spec": {"template": {"spec": {
    "$setElementOrder/containers": [{"name": "sidecar"}, {"name": "app"}],
    "containers": [{"name": "sidecar", "image": "busybox:2"}]}}}})");
  const Json& containers = result["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "sidecar");
  EXPECT_EQ(containers[0]["image"], "busybox:2");
  EXPECT_EQ(containers[1]["name"], "app");
}

// kubectl patch deployment web --type strategic -p '{"spec":{"template":{"spec":
//   {"containers":[{"name":"app","env":[{"name":"D","value":"4"}]}]}}}}'
TEST_F(StrategicMergeKubectlTest, AddsContainerEnvVar) {
  Json result = patchDeployment(R"({"spec":{"template":{"spec":{
    "containers":[{"name":"app","env":[{"name":"D","value":"4"}]}]}}}})");
  EXPECT_EQ(appContainer(result)["env"],
            Json::parse(R"([{"name":"D","value":"4"},{"name":"A","value":"1"},
                            {"name":"B","value":"2"}])"));
  EXPECT_EQ(appContainer(result)["image"], "nginx:1.25");
  EXPECT_EQ(result["spec"]["template"]["spec"]["containers"].size(), 2u);
}

TEST_F(StrategicMergeKubectlTest, ChangesEnvVarValueInPlace) {
  Json result = patchDeployment(R"({"spec":{"template":{"spec":{
    "containers":[{"name":"app","env":[{"name":"B","value":"20"}]}]}}}})");
  EXPECT_EQ(appContainer(result)["env"],
            Json::parse(R"([{"name":"A","value":"1"},{"name":"B","value":"20"}])"));
}

TEST_F(StrategicMergeKubectlTest, DeletesContainer) {
  Json result = patchDeployment(
      R"({"spec":{"template":{"spec":{"containers":[{"$patch":"delete","name":"sidecar"}]}}}})");
  EXPECT_EQ(result["spec"]["template"]["spec"]["containers"].size(), 1u);
  EXPECT_EQ(appContainer(result)["name"], "app");
}

TEST_F(StrategicMergeKubectlTest, RemovesFinalizerWithDeleteFromPrimitiveList) {
  Json result = patchDeployment(
      R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b.example.com/y"]}})");
  EXPECT_EQ(result["metadata"]["finalizers"],
            Json::parse(R"(["a.example.com/x","c.example.com/z"])"));
}

TEST_F(StrategicMergeKubectlTest, ApplyRewritesFinalizersWithParallelLists) {
  Json result = patchDeployment(R"({"metadata":{
    "$setElementOrder/finalizers":["c.example.com/z","d.example.com/w","a.example.com/x"],
    "$deleteFromPrimitiveList/finalizers":["b.example.com/y"],
    "finalizers":["d.example.com/w"]}})");
  EXPECT_EQ(result["metadata"]["finalizers"],
            Json::parse(R"(["c.example.com/z","d.example.com/w","a.example.com/x"])"));
}

TEST_F(StrategicMergeKubectlTest, ScalesReplicasAndKeepsKeyOrder) {
  Json result = patchDeployment(R"({"spec":{"replicas":5}})");
  Json expected = Json::parse(kDeployment);
  expected["spec"]["replicas"] = 5;
  EXPECT_EQ(result.dump(), expected.dump());
}

// kubectl cordon, then kubectl taint (which sends the whole new taint list).
TEST(StrategicMergeNodeTest, CordonsAndReplacesTaints) {
  Json node = Json::parse(R"({"kind":"Node","metadata":{"name":"n1"},
    "spec":{"podCIDRs":["10.0.0.0/24"],"taints":[{"key":"a","effect":"NoSchedule"}]}})");
  auto cordoned =
      applyStrategicMergePatch("", "Node", node, Json::parse(R"({"spec":{"unschedulable":true}})"));
  ASSERT_TRUE(cordoned.has_value());
  auto tainted = applyStrategicMergePatch(
      "", "Node", *cordoned,
      Json::parse(R"({"spec":{"taints":[{"key":"b","effect":"NoExecute"}]}})"));
  ASSERT_TRUE(tainted.has_value());
  EXPECT_EQ((*tainted)["spec"], Json::parse(R"({"podCIDRs":["10.0.0.0/24"],
    "taints":[{"key":"b","effect":"NoExecute"}],"unschedulable":true})"));
}

// The kubelet's node status patch: conditions and addresses merge by type.
TEST(StrategicMergeNodeTest, MergesStatusConditionsAndAddresses) {
  Json node = Json::parse(R"({"status":{
    "conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"False"}],
    "addresses":[{"type":"InternalIP","address":"10.0.0.1"}]}})");
  auto result = applyStrategicMergePatch("", "Node", node, Json::parse(R"({"status":{
    "$setElementOrder/conditions":[{"type":"MemoryPressure"},{"type":"Ready"}],
    "conditions":[{"type":"Ready","status":"True"}],
    "addresses":[{"type":"Hostname","address":"n1"}]}})"));
  ASSERT_TRUE(result.has_value()) << result.error().message();
  EXPECT_EQ((*result)["status"], Json::parse(R"({
    "conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}],
    "addresses":[{"type":"Hostname","address":"n1"},{"type":"InternalIP","address":"10.0.0.1"}]})"));
}

TEST(StrategicMergeKindsTest, MergesSecretDataAndPdbConditions) {
  auto secret = applyStrategicMergePatch("", "Secret",
                                         Json::parse(R"({"data":{"a":"eA=="},"type":"Opaque"})"),
                                         Json::parse(R"({"data":{"b":"eQ==","a":null}})"));
  ASSERT_TRUE(secret.has_value());
  EXPECT_EQ(*secret, Json::parse(R"({"data":{"b":"eQ=="},"type":"Opaque"})"));

  auto pdb = applyStrategicMergePatch(
      "policy", "PodDisruptionBudget",
      Json::parse(R"({"status":{"conditions":[{"type":"DisruptionAllowed","status":"False"}]}})"),
      Json::parse(R"({"status":{"conditions":[{"type":"DisruptionAllowed","status":"True"}]}})"));
  ASSERT_TRUE(pdb.has_value());
  EXPECT_EQ((*pdb)["status"]["conditions"],
            Json::parse(R"([{"type":"DisruptionAllowed","status":"True"}])"));
}

}  // namespace
}  // namespace nodewright::apiserver::patch
