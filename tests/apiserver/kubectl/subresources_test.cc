// Subresources through kubectl: status (patch --subresource=status), scale (kubectl scale),
// pods/binding and pods/eviction (raw POSTs, as the scheduler and kubectl drain send them).

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/kubectl/kubectl_support.h"

namespace nodewright::apiserver::testing {
namespace {

using ::testing::HasSubstr;

std::string nodePool(const std::string& name) {
  return Json{
      {"apiVersion", "karpenter.sh/v1"},
      {"kind", "NodePool"},
      {"metadata", {{"name", name}}},
      {"spec",
       {{"disruption", {{"consolidateAfter", "1m"}}},
        {"template",
         {{"spec",
           {{"nodeClassRef",
             {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}}}}}}}}}
      .dump();
}

Json pod(const std::string& ns, const std::string& name, const Json& labels = Json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
}

const char* kReadyStatus =
    R"({"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})";

class KubectlSubresources : public KubectlSuite<KubectlSubresources> {
 protected:
  // POSTs `body` to `path` with kubectl create --raw (it takes the body from a file).
  static Ran post(const std::string& path, const Json& body) {
    std::string file = server().dataDir() + "/raw-body.json";
    std::ofstream(file) << body.dump();
    return run({"create", "--raw", path, "-f", file, "-v=6"});
  }
};

TEST_F(KubectlSubresources, StatusSubresourceChangesOnlyStatus) {
  ok({"apply", "-f", "-"}, nodePool("status-pool"));
  EXPECT_EQ(ok({"patch", "nodepool", "status-pool", "--subresource=status", "--type=merge", "-p",
                R"({"spec":{"weight":50},"status":{"resources":{"cpu":"4"},"conditions":[)"
                R"({"type":"Ready","status":"True","reason":"Ready","message":"",)"
                R"("lastTransitionTime":"2025-01-01T00:00:00Z"}]}})"}),
            "nodepool.karpenter.sh/status-pool patched\n");
  Json live = getJson({"nodepool", "status-pool"});
  EXPECT_EQ(live["status"]["resources"]["cpu"], "4");
  EXPECT_FALSE(live["spec"].contains("weight")) << "spec written through the status subresource";
  EXPECT_EQ(live["metadata"]["generation"], 1);
  EXPECT_THAT(ok({"get", "nodepool", "status-pool"}),
              ::testing::ContainsRegex("status-pool +default +True"));

  // The main resource ignores status.
  EXPECT_EQ(ok({"patch", "nodepool", "status-pool", "--type=merge", "-p",
                R"({"status":{"resources":{"cpu":"99"}}})"}),
            "nodepool.karpenter.sh/status-pool patched (no change)\n");
  EXPECT_EQ(getJson({"nodepool", "status-pool"})["status"]["resources"]["cpu"], "4");

  // kubectl get --subresource=status shows the object with its status.
  EXPECT_EQ(
      getJson({"nodepool", "status-pool", "--subresource=status"})["status"]["resources"]["cpu"],
      "4");
}

TEST_F(KubectlSubresources, StatusOfANamespacedKindThroughJsonPatch) {
  std::string ns = makeNamespace("pod-status");
  ok({"apply", "-f", "-"}, pod(ns, "p").dump());
  ok({"patch", "pod", "p", "-n", ns, "--subresource=status", "--type=json", "-p",
      R"([{"op":"replace","path":"/status/phase","value":"Running"}])"});
  EXPECT_EQ(getJson({"pod", "p", "-n", ns})["status"]["phase"], "Running");
  EXPECT_THAT(ok({"get", "pod", "p", "-n", ns}), ::testing::ContainsRegex("\np +0/1 +Running +0"));
}

TEST_F(KubectlSubresources, ScaleSetsReplicasOfDeploymentsAndMachineDeployments) {
  std::string ns = makeNamespace("scale");
  ok({"apply", "-f", "-"}, R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","namespace":"scale"},
      "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
              "template":{"metadata":{"labels":{"app":"web"}},
                          "spec":{"containers":[{"name":"c","image":"nginx"}]}}}})");
  EXPECT_EQ(ok({"scale", "deployment", "web", "-n", ns, "--replicas=4"}),
            "deployment.apps/web scaled\n");
  EXPECT_EQ(getJson({"deployment", "web", "-n", ns})["spec"]["replicas"], 4);
  Json scale =
      Json::parse(ok({"get", "--raw", "/apis/apps/v1/namespaces/scale/deployments/web/scale"}));
  EXPECT_EQ(scale["kind"], "Scale");
  EXPECT_EQ(scale["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(scale["spec"]["replicas"], 4);
  // --current-replicas is a precondition kubectl checks against the scale subresource.
  EXPECT_THAT(
      fails({"scale", "deployment", "web", "-n", ns, "--current-replicas=2", "--replicas=5"}),
      HasSubstr("Expected replicas to be 2, was 4"));

  ok({"apply", "-f", "-"}, R"({"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachineDeployment",
      "metadata":{"name":"md","namespace":"scale"},
      "spec":{"clusterName":"c","replicas":3,
              "template":{"spec":{"clusterName":"c","bootstrap":{"dataSecretName":"boot"},
                  "infrastructureRef":{"apiVersion":"infrastructure.cluster.x-k8s.io/v1beta1",
                                       "kind":"AzureMachineTemplate","name":"t"}}}}})");
  EXPECT_EQ(ok({"scale", "machinedeployment", "md", "-n", ns, "--replicas=20"}),
            "machinedeployment.cluster.x-k8s.io/md scaled\n");
  Json md = getJson({"machinedeployment", "md", "-n", ns});
  EXPECT_EQ(md["spec"]["replicas"], 20);
  EXPECT_EQ(md["metadata"]["generation"], 2);

  // A kind without a scale subresource.
  ok({"apply", "-f", "-"}, R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"unscalable","namespace":"scale"}})");
  EXPECT_THAT(fails({"scale", "configmap", "unscalable", "-n", ns, "--replicas=2"}),
              HasSubstr("NotFound"));
}

// NodePool's scale subresource is Karpenter's: spec.replicas and status.nodes. A static pool
// scales; a dynamic one may not become static through it (the transition rule).
TEST_F(KubectlSubresources, ScaleSetsReplicasOfStaticNodePools) {
  Json pool = Json::parse(nodePool("static-pool"));
  pool["spec"]["replicas"] = 5;
  ok({"apply", "-f", "-"}, pool.dump());
  ok({"patch", "nodepool", "static-pool", "--subresource=status", "--type=merge", "-p",
      R"({"status":{"nodes":4}})"});
  Json scale =
      Json::parse(ok({"get", "--raw", "/apis/karpenter.sh/v1/nodepools/static-pool/scale"}));
  EXPECT_EQ(scale["kind"], "Scale");
  EXPECT_EQ(scale["apiVersion"], "autoscaling/v1");
  EXPECT_EQ(scale["spec"]["replicas"], 5);
  EXPECT_EQ(scale["status"]["replicas"], 4) << "status.nodes";

  EXPECT_EQ(ok({"scale", "nodepool", "static-pool", "--replicas=2"}),
            "nodepool.karpenter.sh/static-pool scaled\n");
  Json live = getJson({"nodepool", "static-pool"});
  EXPECT_EQ(live["spec"]["replicas"], 2);
  EXPECT_EQ(live["metadata"]["generation"], 2);
  EXPECT_EQ(live["status"]["nodes"], 4) << "scale leaves status alone";
  EXPECT_THAT(fails({"scale", "nodepool", "static-pool", "--current-replicas=3", "--replicas=1"}),
              HasSubstr("Expected replicas to be 3, was 2"));
  EXPECT_THAT(fails({"scale", "nodepool", "static-pool", "--replicas=-1"}), HasSubstr("replicas"));
  EXPECT_EQ(getJson({"nodepool", "static-pool"})["spec"]["replicas"], 2);

  ok({"apply", "-f", "-"}, nodePool("dynamic-pool"));
  Json dynamicScale =
      Json::parse(ok({"get", "--raw", "/apis/karpenter.sh/v1/nodepools/dynamic-pool/scale"}));
  EXPECT_EQ(dynamicScale["spec"]["replicas"], 0) << "unset reads as 0, as for any CRD";
  EXPECT_THAT(fails({"scale", "nodepool", "dynamic-pool", "--replicas=2"}),
              HasSubstr("Cannot transition NodePool between static (replicas set) and dynamic "
                        "(replicas unset) provisioning modes"));
  EXPECT_FALSE(getJson({"nodepool", "dynamic-pool"})["spec"].contains("replicas"));

  // Nor by an update of the object, either way.
  EXPECT_THAT(fails({"patch", "nodepool", "static-pool", "--type=json", "-p",
                     R"([{"op":"remove","path":"/spec/replicas"}])"}),
              HasSubstr("spec: Invalid value: \"object\": Cannot transition NodePool"));
  EXPECT_THAT(fails({"patch", "nodepool", "static-pool", "--type=merge", "-p",
                     R"({"spec":{"weight":10}})"}),
              HasSubstr("'weight' is not supported on static NodePools"));
  EXPECT_THAT(fails({"patch", "nodepool", "static-pool", "--type=merge", "-p",
                     R"({"spec":{"limits":{"cpu":"10"}}})"}),
              HasSubstr("only 'limits.nodes' is supported on static NodePools"));
  EXPECT_EQ(ok({"patch", "nodepool", "static-pool", "--type=merge", "-p",
                R"({"spec":{"limits":{"nodes":"10"}}})"}),
            "nodepool.karpenter.sh/static-pool patched\n");
}

TEST_F(KubectlSubresources, BindingAssignsAPodToANodeOnce) {
  std::string ns = makeNamespace("binding");
  ok({"apply", "-f", "-"}, pod(ns, "unbound").dump());
  Json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", "unbound"}, {"namespace", ns}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "node-a"}}}};
  Ran bound = post("/api/v1/namespaces/binding/pods/unbound/binding", binding);
  ASSERT_EQ(bound.code, 0) << bound.err;
  EXPECT_THAT(bound.err, HasSubstr("201 Created"));
  Json live = getJson({"pod", "unbound", "-n", ns});
  EXPECT_EQ(live["spec"]["nodeName"], "node-a");
  bool scheduled = false;
  for (const auto& c : live["status"]["conditions"]) {
    scheduled |= c["type"] == "PodScheduled" && c["status"] == "True";
  }
  EXPECT_TRUE(scheduled) << live["status"].dump();
  EXPECT_THAT(ok({"get", "pod", "unbound", "-n", ns, "-o", "wide"}), HasSubstr("node-a"));

  binding["target"]["name"] = "node-b";
  Ran again = post("/api/v1/namespaces/binding/pods/unbound/binding", binding);
  EXPECT_NE(again.code, 0);
  EXPECT_THAT(again.err, HasSubstr("409 Conflict"));
  EXPECT_THAT(again.err, HasSubstr("already assigned to node \"node-a\""));
  EXPECT_EQ(getJson({"pod", "unbound", "-n", ns})["spec"]["nodeName"], "node-a");
}

TEST_F(KubectlSubresources, EvictionWithoutABudgetDeletesThePod) {
  std::string ns = makeNamespace("evict-free");
  ok({"apply", "-f", "-"}, pod(ns, "free").dump());
  Json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", "free"}, {"namespace", ns}}}};
  Ran evicted = post("/api/v1/namespaces/evict-free/pods/free/eviction", eviction);
  ASSERT_EQ(evicted.code, 0) << evicted.err;
  EXPECT_THAT(evicted.err, HasSubstr("201 Created"));
  EXPECT_FALSE(exists({"pod", "free", "-n", ns}));
}

TEST_F(KubectlSubresources, EvictionThatWouldViolateABudgetGets429) {
  std::string ns = makeNamespace("evict-pdb");
  for (const char* name : {"db-0", "db-1"}) {
    ok({"apply", "-f", "-"}, pod(ns, name, {{"app", "db"}}).dump());
    ok({"patch", "pod", name, "-n", ns, "--subresource=status", "--type=merge", "-p",
        kReadyStatus});
  }
  ok({"apply", "-f", "-"}, R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
      "metadata":{"name":"db","namespace":"evict-pdb"},
      "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"db"}}}})");
  auto evict = [&](const std::string& name) {
    return post("/api/v1/namespaces/evict-pdb/pods/" + name + "/eviction",
                {{"apiVersion", "policy/v1"},
                 {"kind", "Eviction"},
                 {"metadata", {{"name", name}, {"namespace", ns}}}});
  };
  // Two healthy pods, one must stay: the first eviction is allowed...
  Ran first = evict("db-0");
  ASSERT_EQ(first.code, 0) << first.err;
  ok({"wait", "--for=delete", "pod/db-0", "-n", ns, "--timeout=20s"});
  // ...the second would leave none.
  Ran second = evict("db-1");
  EXPECT_NE(second.code, 0);
  EXPECT_THAT(second.err, HasSubstr("429 Too Many Requests"));
  EXPECT_THAT(second.err,
              HasSubstr("Cannot evict pod as it would violate the pod's disruption budget."));
  EXPECT_TRUE(exists({"pod", "db-1", "-n", ns}));
}

TEST_F(KubectlSubresources, DrainEvictsThroughTheBudget) {
  std::string ns = makeNamespace("drain");
  ok({"apply", "-f", "-"},
     R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"drained-node"}})");
  Json p = pod(ns, "on-node", {{"app", "drained"}});
  p["spec"]["nodeName"] = "drained-node";
  // A bare pod: drain evicts it only with --force.
  ok({"apply", "-f", "-"}, p.dump());
  ok({"apply", "-f", "-"}, R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
      "metadata":{"name":"drained","namespace":"drain"},
      "spec":{"maxUnavailable":1,"selector":{"matchLabels":{"app":"drained"}}}})");
  // Without a kubelet a bound pod never finishes a graceful termination: evict with no grace.
  Ran drained = run({"drain", "drained-node", "--force", "--grace-period=0", "--timeout=30s"});
  EXPECT_EQ(drained.code, 0) << drained.out << drained.err;
  EXPECT_THAT(drained.out, HasSubstr("node/drained-node cordoned"));
  EXPECT_THAT(drained.out, HasSubstr("pod/on-node evicted"));
  EXPECT_TRUE(getJson({"node", "drained-node"})["spec"]["unschedulable"].get<bool>());
  EXPECT_FALSE(exists({"pod", "on-node", "-n", ns}));
}

}  // namespace
}  // namespace nodewright::apiserver::testing
