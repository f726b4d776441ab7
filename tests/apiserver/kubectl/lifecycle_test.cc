// Object lifecycle as kubectl sees it: finalizers and deletionTimestamp, garbage collection of
// dependents in the three propagation modes, namespace deletion, and kubectl wait.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/kubectl/kubectl_support.h"

namespace nodewright::apiserver::testing {
namespace {

using ::testing::HasSubstr;

Json configMap(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"data", {{"key", "value"}}}};
}

Json ownerReference(const Json& owner) {
  return {{"apiVersion", owner["apiVersion"]},
          {"kind", owner["kind"]},
          {"name", owner["metadata"]["name"]},
          {"uid", owner["metadata"]["uid"]},
          {"blockOwnerDeletion", true}};
}

Json nodeClaim(const std::string& name) {
  return {{"apiVersion", "karpenter.sh/v1"},
          {"kind", "NodeClaim"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"nodeClassRef",
             {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}},
            {"requirements", Json::array({{{"key", "karpenter.sh/capacity-type"},
                                           {"operator", "In"},
                                           {"values", {"spot"}}}})}}}};
}

class KubectlLifecycle : public KubectlSuite<KubectlLifecycle> {
 protected:
  // Applies `object` and returns it as stored (with its uid).
  static Json create(const Json& object) {
    ok({"apply", "-f", "-"}, object.dump());
    Ran ran = run({"get", "-f", "-", "-o", "json"}, object.dump());
    Json printed = Json::parse(ran.out, nullptr, false);
    if (ran.code != 0 || printed.is_discarded() || objectsOf(printed).size() != 1) {
      ADD_FAILURE() << "reading back " << object.dump() << ": " << ran.out << ran.err;
      return nullptr;
    }
    return objectsOf(printed)[0];
  }

  static Json withOwner(Json object, const Json& owner) {
    object["metadata"]["ownerReferences"] = Json::array({ownerReference(owner)});
    return object;
  }
};

TEST_F(KubectlLifecycle, FinalizerKeepsADeletedObjectUntilAJsonPatchRemovesIt) {
  std::string ns = makeNamespace("finalizers");
  Json cm = configMap(ns, "held");
  cm["metadata"]["finalizers"] = {"example.com/hold", "example.com/audit"};
  create(cm);
  EXPECT_EQ(ok({"delete", "configmap", "held", "-n", ns, "--wait=false"}),
            "configmap \"held\" deleted\n");
  Json live = getJson({"configmap", "held", "-n", ns});
  EXPECT_TRUE(live["metadata"].contains("deletionTimestamp")) << live.dump(2);
  EXPECT_EQ(live["metadata"]["finalizers"], Json({"example.com/hold", "example.com/audit"}));
  // Updates are still accepted while finalizers are pending, but not new finalizers.
  ok({"patch", "configmap", "held", "-n", ns, "--type=merge", "-p", R"({"data":{"key":"x"}})"});
  EXPECT_THAT(
      fails({"patch", "configmap", "held", "-n", ns, "--type=json", "-p",
             R"([{"op":"add","path":"/metadata/finalizers/-","value":"example.com/new"}])"}),
      HasSubstr("no new finalizers can be added if the object is being deleted"));

  ok({"patch", "configmap", "held", "-n", ns, "--type=json", "-p",
      R"([{"op":"remove","path":"/metadata/finalizers/0"}])"});
  EXPECT_TRUE(exists({"configmap", "held", "-n", ns}));
  ok({"patch", "configmap", "held", "-n", ns, "--type=json", "-p",
      R"([{"op":"test","path":"/metadata/finalizers/0","value":"example.com/audit"},)"
      R"({"op":"remove","path":"/metadata/finalizers/0"}])"});
  EXPECT_FALSE(exists({"configmap", "held", "-n", ns}));
}

TEST_F(KubectlLifecycle, DeleteWaitsForTheLastFinalizer) {
  std::string ns = makeNamespace("delete-waits");
  Json claim = nodeClaim("waiting-claim");
  claim["metadata"]["finalizers"] = {"karpenter.sh/termination"};
  create(claim);
  // kubectl delete (wait=true) blocks until the object is gone: it starts a watch once the
  // DELETE returned.
  Child deleting(markedCommand({"delete", "nodeclaim", "waiting-claim", "--timeout=30s"},
                               {"watch=true", "deleted"}));
  EXPECT_EQ(deleting.waitForLine("deleted", 20s), "deleted");
  EXPECT_EQ(deleting.waitForLine("watch=true", 20s), "watch=true");
  EXPECT_EQ(deleting.wait(0ms), -1) << "kubectl delete returned while a finalizer was pending";
  EXPECT_TRUE(getJson({"nodeclaim", "waiting-claim"})["metadata"].contains("deletionTimestamp"));
  ok({"patch", "nodeclaim", "waiting-claim", "--type=json", "-p",
      R"([{"op":"remove","path":"/metadata/finalizers"}])"});
  EXPECT_EQ(deleting.wait(20s), 0);
  EXPECT_FALSE(exists({"nodeclaim", "waiting-claim"}));
}

TEST_F(KubectlLifecycle, BackgroundDeletionCollectsDependents) {
  std::string ns = makeNamespace("gc-background");
  Json owner = create(configMap(ns, "owner"));
  create(withOwner(configMap(ns, "dep-1"), owner));
  create(withOwner(configMap(ns, "dep-2"), owner));
  ok({"delete", "configmap", "owner", "-n", ns});
  ok({"wait", "--for=delete", "configmap/dep-1", "configmap/dep-2", "-n", ns, "--timeout=20s"});
  EXPECT_EQ(ok({"get", "configmaps", "-n", ns, "-o", "name"}), "");
}

TEST_F(KubectlLifecycle, ForegroundDeletionWaitsForBlockingDependents) {
  std::string ns = makeNamespace("gc-foreground");
  Json owner = create(configMap(ns, "owner"));
  Json held = withOwner(configMap(ns, "held-dependent"), owner);
  held["metadata"]["finalizers"] = {"example.com/hold"};
  create(held);
  create(withOwner(configMap(ns, "free-dependent"), owner));

  ok({"delete", "configmap", "owner", "-n", ns, "--cascade=foreground", "--wait=false"});
  ok({"wait", "--for=delete", "configmap/free-dependent", "-n", ns, "--timeout=20s"});
  Json ownerLive = getJson({"configmap", "owner", "-n", ns});
  EXPECT_TRUE(ownerLive["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(ownerLive["metadata"]["finalizers"], Json({"foregroundDeletion"}));
  Json heldLive = getJson({"configmap", "held-dependent", "-n", ns});
  EXPECT_TRUE(heldLive["metadata"].contains("deletionTimestamp"));

  ok({"patch", "configmap", "held-dependent", "-n", ns, "--type=json", "-p",
      R"([{"op":"remove","path":"/metadata/finalizers"}])"});
  ok({"wait", "--for=delete", "configmap/owner", "configmap/held-dependent", "-n", ns,
      "--timeout=20s"});
}

TEST_F(KubectlLifecycle, ForegroundDeleteOfADeploymentRemovesTheWholeChain) {
  std::string ns = makeNamespace("gc-chain");
  Json deployment =
      create({{"apiVersion", "apps/v1"},
              {"kind", "Deployment"},
              {"metadata", {{"name", "web"}, {"namespace", ns}}},
              {"spec",
               {{"selector", {{"matchLabels", {{"app", "web"}}}}},
                {"template",
                 {{"metadata", {{"labels", {{"app", "web"}}}}},
                  {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}}}}}});
  Json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata", {{"name", "web-1"}, {"namespace", ns}, {"labels", {{"app", "web"}}}}},
             {"spec", deployment["spec"]}};
  rs["spec"].erase("strategy");
  rs["spec"].erase("progressDeadlineSeconds");
  rs["spec"].erase("revisionHistoryLimit");
  rs = create(withOwner(rs, deployment));
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "web-1-a"}, {"namespace", ns}, {"labels", {{"app", "web"}}}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
  create(withOwner(pod, rs));

  // Foreground: kubectl returns only when the Deployment itself is gone, which the server
  // allows only after its ReplicaSet and, in turn, the pod are gone.
  Ran deleted = run(
      {"delete", "deployment", "web", "-n", ns, "--cascade=foreground", "--timeout=20s", "-v=6"});
  EXPECT_EQ(deleted.code, 0)
      << deleted.err << "left behind:\n"
      << run({"get", "deployments,replicasets,pods", "-n", ns, "-o", "yaml"}).out;
  EXPECT_FALSE(exists({"replicaset", "web-1", "-n", ns}));
  EXPECT_FALSE(exists({"pod", "web-1-a", "-n", ns}));
}

TEST_F(KubectlLifecycle, OrphanDeletionKeepsDependentsAndDropsTheirReference) {
  std::string ns = makeNamespace("gc-orphan");
  Json owner = create(configMap(ns, "owner"));
  create(withOwner(configMap(ns, "orphan"), owner));
  ok({"delete", "configmap", "owner", "-n", ns, "--cascade=orphan"});
  EXPECT_FALSE(exists({"configmap", "owner", "-n", ns}));
  Json orphan = getJson({"configmap", "orphan", "-n", ns});
  EXPECT_FALSE(orphan["metadata"].contains("ownerReferences")) << orphan.dump(2);
  EXPECT_FALSE(orphan["metadata"].contains("deletionTimestamp"));
}

TEST_F(KubectlLifecycle, DeletingANodePoolCollectsItsClusterScopedNodeClaims) {
  Json pool = create(
      {{"apiVersion", "karpenter.sh/v1"},
       {"kind", "NodePool"},
       {"metadata", {{"name", "gc-pool"}}},
       {"spec",
        {{"template",
          {{"spec",
            {{"nodeClassRef",
              {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}}},
         {"disruption", {{"consolidateAfter", "1m"}}}}}});
  create(withOwner(nodeClaim("gc-pool-a"), pool));
  create(withOwner(nodeClaim("gc-pool-b"), pool));
  ok({"delete", "nodepool", "gc-pool"});
  ok({"wait", "--for=delete", "nodeclaim/gc-pool-a", "nodeclaim/gc-pool-b", "--timeout=20s"});
}

TEST_F(KubectlLifecycle, DeletingANamespaceDeletesWhatIsInIt) {
  std::string ns = makeNamespace("doomed");
  create(configMap(ns, "inside"));
  ok({"delete", "namespace", ns, "--timeout=30s"});
  EXPECT_FALSE(exists({"namespace", ns}));
  EXPECT_FALSE(exists({"configmap", "inside", "-n", ns}));
}

TEST_F(KubectlLifecycle, WaitForConditionReadyReturnsWhenStatusSaysSo) {
  create(nodeClaim("becoming-ready"));
  Child waiting(
      markedCommand({"wait", "--for=condition=Ready", "nodeclaim/becoming-ready", "--timeout=30s"},
                    {"watch=true", "condition met"}));
  ASSERT_EQ(waiting.waitForLine("watch=true", 20s), "watch=true");
  ok({"patch", "nodeclaim", "becoming-ready", "--subresource=status", "--type=merge", "-p",
      R"({"status":{"conditions":[{"type":"Launched","status":"True","reason":"Launched",)"
      R"("message":"","lastTransitionTime":"2025-01-01T00:00:00Z"}]}})"});
  // Another condition does not satisfy the wait.
  EXPECT_EQ(waiting.wait(0ms), -1);
  ok({"patch", "nodeclaim", "becoming-ready", "--subresource=status", "--type=merge", "-p",
      R"({"status":{"conditions":[{"type":"Ready","status":"True","reason":"Ready",)"
      R"("message":"","lastTransitionTime":"2025-01-01T00:00:00Z"}]}})"});
  EXPECT_EQ(waiting.waitForLine("condition met", 20s), "condition met");
  EXPECT_EQ(waiting.wait(20s), 0);
  // Already true: returns at once.
  EXPECT_EQ(ok({"wait", "--for=condition=Ready", "nodeclaim/becoming-ready", "--timeout=5s"}),
            "nodeclaim.karpenter.sh/becoming-ready condition met\n");
}

TEST_F(KubectlLifecycle, WaitForJsonPathAndTimeout) {
  std::string ns = makeNamespace("wait-jsonpath");
  create({{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", "p"}, {"namespace", ns}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}});
  EXPECT_EQ(
      ok({"wait", "--for=jsonpath={.status.phase}=Pending", "pod/p", "-n", ns, "--timeout=5s"}),
      "pod/p condition met\n");
  Ran timedOut = run({"wait", "--for=condition=Ready", "pod/p", "-n", ns, "--timeout=1s"});
  EXPECT_NE(timedOut.code, 0);
  EXPECT_THAT(timedOut.err, HasSubstr("timed out waiting for the condition on pods/p"));
}

}  // namespace
}  // namespace nodewright::apiserver::testing
