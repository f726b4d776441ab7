#include <gtest/gtest.h>

#include <algorithm>

#include "controllers/nodeclaim/nodeclaim_env.h"

namespace nodewright::controllers::nodeclaim::testing {
namespace {

class TerminationTest : public NodeClaimEnv {
 protected:
  // A launched, registered claim whose Node is Ready.
  NodeClaim readyClaim(const std::string& name, const std::string& nodeName,
                       std::optional<std::chrono::seconds> grace = std::nullopt) {
    NodeClaim claim = newClaim(name);
    if (grace) {
      claim.spec.terminationGracePeriod = core::Duration(*grace);
    }
    create(claim);
    registerNode(launched(name), nodeName);
    setReady(nodeName, true);
    EXPECT_TRUE(awaitCondition(name, kReady, kTrue));
    return stored(name).value_or(NodeClaim{});
  }

  void createPdb(int minAvailable) {
    api::corev1::PodDisruptionBudget pdb;
    pdb.apiVersion = "policy/v1";
    pdb.kind = "PodDisruptionBudget";
    pdb.metadata.name = "web";
    pdb.metadata.namespace_ = "default";
    pdb.spec.minAvailable = api::IntOrString::ofInt(minAvailable);
    api::LabelSelector selector;
    selector.matchLabels["app"] = "web";
    pdb.spec.selector = selector;
    auto created = kube::Typed<api::corev1::PodDisruptionBudget>(*client_).create(pdb);
    ASSERT_TRUE(created) << created.error().describe();
  }

  double refusals() { return counter("karpenter_pods_eviction_requests_total", "code", "429"); }
  double accepted() { return counter("karpenter_pods_eviction_requests_total", "code", "200"); }

  // The pods among `names` that are terminating, in order.
  std::vector<std::string> terminatingOf(const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& name : names) {
      if (terminating(name)) {
        out.push_back(name);
      }
    }
    return out;
  }

  // Deletes the claim and returns its deletionTimestamp (the API server's time).
  core::TimePoint deleteClaim(const std::string& name) {
    auto removed = claims_.remove("", name);
    EXPECT_TRUE(removed) << removed.error().describe();
    auto claim = stored(name);
    EXPECT_TRUE(claim && claim->metadata.deletionTimestamp);
    return claim && claim->metadata.deletionTimestamp ? claim->metadata.deletionTimestamp->point()
                                                      : clock_.now();
  }
};

TEST_F(TerminationTest, DrainsOneAtATimeThroughThePdbAndTerminatesBeforeReleasing) {
  const NodeClaim claim = readyClaim("web-1", "ip-10-0-0-1");
  const std::string providerID = claim.status.providerID;
  for (const char* name : {"a", "b", "c"}) {
    runPod(name, "ip-10-0-0-1");
  }
  runPod("logs-agent", "ip-10-0-0-1", [](Pod& p) {
    p.metadata.labels = {{"app", "logs"}};
    api::OwnerReference owner;
    owner.apiVersion = "apps/v1";
    owner.kind = "DaemonSet";
    owner.name = "logs";
    owner.uid = "d5e7f00d-0000-4000-8000-000000000001";
    owner.controller = true;
    p.metadata.ownerReferences = {owner};
  });
  runPod("kube-proxy", "ip-10-0-0-1", [](Pod& p) {
    p.metadata.labels = {{"app", "proxy"}};
    p.metadata.annotations[kMirrorPodAnnotation] = "ip-10-0-0-1";
  });
  createPdb(2);  // of a, b, c: one may be disrupted at a time
  const std::vector<std::string> web = {"a", "b", "c"};

  deleteClaim("web-1");
  // Pass 1: a goes, b and c are refused by the budget.
  ASSERT_TRUE(eventually([&] { return refusals() == 2; }));
  EXPECT_EQ(accepted(), 1);
  EXPECT_EQ(terminatingOf(web), std::vector<std::string>{"a"});
  const Node tainted = *node("ip-10-0-0-1");
  EXPECT_TRUE(std::any_of(tainted.spec.taints.begin(), tainted.spec.taints.end(), [](auto& t) {
    return t.key == kDisruptedTaintKey && t.effect == "NoSchedule";
  }));

  // kubelet ends a; its ReplicaSet's replacement runs elsewhere; the refused pods are asked
  // again once their backoff (1 s) has passed.
  finishPod("a");
  runPod("a2", "ip-10-0-0-9");
  clock_.advance(std::chrono::seconds(1));
  ASSERT_TRUE(eventually([&] { return accepted() == 2 && refusals() == 3; }));
  EXPECT_EQ(terminatingOf(web), std::vector<std::string>{"b"});

  finishPod("b");
  runPod("b2", "ip-10-0-0-9");
  clock_.advance(std::chrono::seconds(2));  // c's second refusal doubled its backoff
  ASSERT_TRUE(eventually([&] { return accepted() == 3; }));
  EXPECT_EQ(terminatingOf(web), std::vector<std::string>{"c"});
  EXPECT_EQ(refusals(), 3);
  // Nothing is terminated while a pod is still leaving.
  EXPECT_EQ(cloud_.count("remove"), 0);

  finishPod("c");
  ASSERT_TRUE(eventually([&] { return cloud_.count("remove") == 1; }));
  // The machine is shutting down but not gone: the claim and its Node are held.
  clock_.advance(std::chrono::seconds(5));
  ASSERT_TRUE(eventually([&] { return cloud_.count("get") >= 2; }));
  EXPECT_TRUE(stored("web-1"));
  EXPECT_TRUE(node("ip-10-0-0-1"));
  EXPECT_EQ(cloud_.count("remove"), 1);

  cloud_.terminate(providerID);
  clock_.advance(std::chrono::seconds(5));
  ASSERT_TRUE(gone("web-1"));
  EXPECT_TRUE(eventually([&] { return !node("ip-10-0-0-1"); }));
  // DaemonSet and mirror pods were never evicted.
  EXPECT_FALSE(terminating("logs-agent"));
  EXPECT_FALSE(terminating("kube-proxy"));
  EXPECT_EQ(accepted(), 3);
  EXPECT_EQ(refusals(), 3);
  const auto calls = cloud_.calls();
  ASSERT_GE(calls.size(), 3u);
  EXPECT_EQ(calls.front(), "create web-1");
  EXPECT_EQ(calls.back(), "get " + providerID);
  EXPECT_TRUE(
      eventually([&] { return poolCounter("karpenter_nodeclaims_terminated_total") == 1; }));
  auto reasons = eventReasons("a");
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "Evicted"), 1);
  reasons = eventReasons("c");
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), "FailedDraining"), 1);
}

TEST_F(TerminationTest, TerminationGracePeriodDeletesPodsTheBudgetHolds) {
  cloud_.setAutoTerminate(true);
  readyClaim("web-1", "ip-10-0-0-1", std::chrono::seconds(600));
  runPod("quick", "ip-10-0-0-1", [](Pod& p) { p.spec.terminationGracePeriodSeconds = 30; });
  runPod("slow", "ip-10-0-0-1", [](Pod& p) { p.spec.terminationGracePeriodSeconds = 400; });
  createPdb(2);  // neither may go

  const core::TimePoint deleted = deleteClaim("web-1");
  ASSERT_TRUE(eventually([&] { return refusals() == 2; }));
  EXPECT_TRUE(terminatingOf({"quick", "slow"}).empty());

  // 250 s in, "slow" needs 400 s but only 350 s are left: deleted now, with those 350 s.
  clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(
      deleted + std::chrono::seconds(250) - clock_.now()));
  ASSERT_TRUE(eventually([&] { return terminating("slow"); }));
  EXPECT_EQ(pod("slow")->metadata.deletionGracePeriodSeconds, 350);
  // "quick" is asked again. When the jump lands in the middle of a reconcile, that reconcile
  // passes its deadline and is requeued with a backoff on the injected clock, so the clock is
  // nudged while waiting (10 ms steps; the 350 s left are unaffected).
  ASSERT_TRUE(eventually([&] {
    if (refusals() == 3) {
      return true;
    }
    clock_.advance(std::chrono::milliseconds(10));
    return false;
  }));
  EXPECT_FALSE(terminating("quick"));
  EXPECT_TRUE(stored("web-1"));

  // Past the grace period: the budget no longer holds "quick", and nothing waits for "slow".
  clock_.advance(std::chrono::seconds(351));
  ASSERT_TRUE(gone("web-1"));
  EXPECT_FALSE(pod("quick"));
  EXPECT_EQ(refusals(), 3);
  EXPECT_EQ(accepted(), 0);
  EXPECT_EQ(cloud_.count("remove"), 1);
}

}  // namespace
}  // namespace nodewright::controllers::nodeclaim::testing
