#include "controllers/disruption/command.h"
#include "controllers/disruption/consolidation_env.h"

// Which nodes consolidation may touch, each exclusion with its reason, and the order candidates
// are tried in (disruption cost: pod deletion cost, priority, remaining lifetime).
namespace nodewright::controllers::disruption::testing {
namespace {

using ConsolidationCandidatesTest = ConsolidationEnv;

TEST(EvictionCostTest, WeighsDeletionCostAndPriorityWithinTen) {
  Pod pod = fixture::pod("p", "1", "1Gi");
  EXPECT_DOUBLE_EQ(evictionCost(pod), 1.0);
  pod.metadata.annotations["controller.kubernetes.io/pod-deletion-cost"] = std::to_string(1 << 27);
  EXPECT_DOUBLE_EQ(evictionCost(pod), 2.0);
  pod.spec.priority = 1 << 25;
  EXPECT_DOUBLE_EQ(evictionCost(pod), 3.0);
  pod.spec.priority = 1000000000;
  EXPECT_DOUBLE_EQ(evictionCost(pod), 10.0);
  pod.spec.priority = std::nullopt;
  pod.metadata.annotations["controller.kubernetes.io/pod-deletion-cost"] = "-2147483647";
  EXPECT_DOUBLE_EQ(evictionCost(pod), -10.0);  // about -15 pods, clamped
  pod.metadata.annotations["controller.kubernetes.io/pod-deletion-cost"] = "-134217728";
  EXPECT_DOUBLE_EQ(evictionCost(pod), 0.0);
  pod.metadata.annotations["controller.kubernetes.io/pod-deletion-cost"] = "lots";
  EXPECT_DOUBLE_EQ(evictionCost(pod), 1.0);
}

TEST(LifetimeRemainingTest, IsTheShareOfExpireAfterAhead) {
  NodeClaim claim;
  const core::TimePoint created{std::chrono::seconds(1700000000)};
  claim.metadata.creationTimestamp = core::Time(created);
  EXPECT_DOUBLE_EQ(lifetimeRemaining(claim, created + 10h), 1.0);
  claim.spec.expireAfter = core::Duration(std::chrono::hours(40));
  EXPECT_DOUBLE_EQ(lifetimeRemaining(claim, created + 10h), 0.75);
  EXPECT_DOUBLE_EQ(lifetimeRemaining(claim, created + 50h), 0.0);
  claim.spec.expireAfter = core::Duration::never();
  EXPECT_DOUBLE_EQ(lifetimeRemaining(claim, created + 50h), 1.0);
}

TEST_F(ConsolidationCandidatesTest, OrdersByPodCostTimesRemainingLifetime) {
  addPool("default");
  addNode("priority", "default", "c.2xlarge");
  addPod("p-0", "priority", "1", [](Pod& pod) { pod.spec.priority = 1 << 25; });  // 2
  addNode("two", "default", "c.2xlarge");
  addPod("t-0", "two");
  addPod("t-1", "two");  // 2, but half its lifetime is gone: 1
  addNode("cheap", "default", "c.2xlarge");
  addPod("c-0", "cheap", "1", [](Pod& pod) {
    pod.metadata.annotations["controller.kubernetes.io/pod-deletion-cost"] = "-134217728";
  });  // 0
  addNode("one", "default", "c.2xlarge");
  addPod("o-0", "one", "1", [](Pod& pod) {
    pod.metadata.annotations["controller.kubernetes.io/pod-deletion-cost"] = "67108864";
  });  // 1.5
  // Created an hour ago: expiring after two hours leaves half.
  {
    auto object = claims_.get("two");
    ASSERT_TRUE(object);
    NodeClaim claim = *object->as<NodeClaim>();
    claim.spec.expireAfter = core::Duration(2h);
    put(claims_, claim);
  }
  const auto& candidates = refresh();
  EXPECT_EQ(names(candidates.ready), (std::vector<std::string>{"cheap", "two", "one", "priority"}));
  EXPECT_DOUBLE_EQ(candidates.ready[1].disruptionCost, 1.0);
  EXPECT_DOUBLE_EQ(candidates.ready[2].disruptionCost, 1.5);
}

struct ExclusionCase {
  std::string name;
  std::function<void(ConsolidationEnv&)> arrange;
  std::string why;
};

class ExclusionTest : public ConsolidationEnv, public ::testing::WithParamInterface<ExclusionCase> {
 public:
  using ConsolidationEnv::addNode;
  using ConsolidationEnv::addPod;
  using ConsolidationEnv::addPool;
  using ConsolidationEnv::clock_;
  using ConsolidationEnv::lastPodSeen_;
  using ConsolidationEnv::pdbs_;
};

TEST_P(ExclusionTest, KeepsTheNodeAndSaysWhy) {
  // A node consolidation would otherwise replace at once.
  GetParam().arrange(*this);
  const auto& candidates = refresh();
  EXPECT_TRUE(candidates.ready.empty()) << names(candidates.ready).front();
  EXPECT_EQ(exclusion("a"), GetParam().why);
  EXPECT_FALSE(consolidator_->decide(candidates, room()));
}

void standard(ConsolidationEnv& env, const std::function<void(NodePool&)>& pool = {},
              const std::function<void(NodeClaim&, Node&)>& node = {},
              const std::function<void(Pod&)>& pod = {}) {
  auto& e = static_cast<ExclusionTest&>(env);
  e.addPool("default", kPolicyWhenEmptyOrUnderutilized, pool);
  e.addNode("a", "default", "c.2xlarge", cloud::kCapacityTypeOnDemand, node);
  e.addPod("a-0", "a", "1", pod);
}

api::corev1::PodDisruptionBudget pdb(const std::string& name, int allowed) {
  api::corev1::PodDisruptionBudget out;
  out.metadata.namespace_ = "default";
  out.metadata.name = name;
  out.spec.selector = fixture::selector("app", "web");
  out.status.disruptionsAllowed = allowed;
  return out;
}

INSTANTIATE_TEST_SUITE_P(
    Reasons, ExclusionTest,
    ::testing::Values(
        ExclusionCase{
            "StaticPool",
            [](ConsolidationEnv& env) { standard(env, [](NodePool& p) { p.spec.replicas = 1; }); },
            "NodePool \"default\" is static"},
        ExclusionCase{"ConsolidateAfterNever",
                      [](ConsolidationEnv& env) {
                        standard(env, [](NodePool& p) {
                          p.spec.disruption.consolidateAfter = core::Duration::never();
                        });
                      },
                      "NodePool \"default\" has consolidation disabled"},
        ExclusionCase{"DoNotDisruptPod",
                      [](ConsolidationEnv& env) {
                        standard(env, {}, {}, [](Pod& p) {
                          p.metadata.annotations[api::karpenter::kDoNotDisruptAnnotation] = "true";
                        });
                      },
                      "pod default/a-0 is annotated do-not-disrupt"},
        ExclusionCase{"DoNotDisruptNode",
                      [](ConsolidationEnv& env) {
                        standard(env, {}, [](NodeClaim&, Node& n) {
                          n.metadata.annotations[api::karpenter::kDoNotDisruptAnnotation] = "true";
                        });
                      },
                      "node node-a is annotated do-not-disrupt"},
        ExclusionCase{"PdbAllowingNoEviction",
                      [](ConsolidationEnv& env) {
                        standard(env);
                        static_cast<ExclusionTest&>(env).pdbs_.push_back(pdb("web", 0));
                      },
                      "pdb default/web prevents eviction of pod default/a-0"},
        ExclusionCase{"TwoPdbsOverOnePod",
                      [](ConsolidationEnv& env) {
                        standard(env);
                        static_cast<ExclusionTest&>(env).pdbs_.push_back(pdb("web", 1));
                        static_cast<ExclusionTest&>(env).pdbs_.push_back(pdb("web2", 1));
                      },
                      "pdbs default/web and default/web2 both cover pod default/a-0"},
        ExclusionCase{"NominatedForAPendingPod",
                      [](ConsolidationEnv& env) {
                        standard(env);
                        static_cast<ExclusionTest&>(env).addPod("pending", "", "1", [](Pod& p) {
                          p.status.nominatedNodeName = "node-a";
                        });
                      },
                      "nominated for pending pods"},
        ExclusionCase{"AlreadyDisrupting",
                      [](ConsolidationEnv& env) {
                        standard(env, {}, [](NodeClaim& c, Node&) {
                          Command command;
                          command.reason = kReasonDrifted;
                          command.phase = kPhaseReplacing;
                          c.metadata.annotations[api::karpenter::kDisruptionAnnotation] =
                              encode(command);
                        });
                      },
                      "already disrupting"},
        ExclusionCase{"Deleting",
                      [](ConsolidationEnv& env) {
                        standard(env, {}, [](NodeClaim& c, Node&) {
                          c.metadata.deletionTimestamp = c.metadata.creationTimestamp;
                        });
                      },
                      "already disrupting"},
        ExclusionCase{"UnknownPrice",
                      [](ConsolidationEnv& env) {
                        standard(env, {}, [](NodeClaim&, Node& n) {
                          n.metadata.labels[cloud::labels::kInstanceType] = "gone.large";
                        });
                      },
                      "no price for gone.large (zone-a, on-demand)"},
        ExclusionCase{"InsideConsolidateAfter",
                      [](ConsolidationEnv& env) {
                        auto& e = static_cast<ExclusionTest&>(env);
                        standard(env, [](NodePool& p) {
                          p.spec.disruption.consolidateAfter = core::Duration(10min);
                        });
                        const auto seen = e.clock_.now() - 1min;
                        e.lastPodSeen_ = [seen](const std::string&) { return std::optional(seen); };
                      },
                      "consolidateAfter 10m0s has not passed since the last pod change 60s ago"},
        ExclusionCase{"ConsolidatableFalse",
                      [](ConsolidationEnv& env) {
                        standard(env, {}, [](NodeClaim& c, Node&) {
                          nodeclaim::setCondition(c.status.conditions, "Consolidatable", "False",
                                                  "PodEvent", "a pod arrived 5s ago", 1,
                                                  c.metadata.creationTimestamp.point());
                        });
                      },
                      "not consolidatable yet: a pod arrived 5s ago"}),
    [](const auto& info) { return info.param.name; });

TEST_F(ConsolidationCandidatesTest, ConsolidateAfterCountsFromTheLastPodChange) {
  addPool("default", kPolicyWhenEmptyOrUnderutilized,
          [](NodePool& p) { p.spec.disruption.consolidateAfter = core::Duration(10min); });
  addNode("a", "default", "c.2xlarge");
  addPod("a-0", "a");
  const auto seen = clock_.now() - 1min;
  lastPodSeen_ = [seen](const std::string&) { return std::optional(seen); };
  EXPECT_TRUE(refresh().ready.empty());
  clock_.advance(9min);
  EXPECT_EQ(names(refresh().ready), std::vector<std::string>{"a"});
}

TEST_F(ConsolidationCandidatesTest, BalancedTotalsCountNodesInsideConsolidateAfter) {
  addPool("default", kPolicyBalanced,
          [](NodePool& p) { p.spec.disruption.consolidateAfter = core::Duration(10min); });
  addNode("a", "default", "c.2xlarge");
  addNode("b", "default", "c.large");
  addPod("a-0", "a");
  lastPodSeen_ = [this](const std::string& claim) {
    return claim == "b" ? std::optional(clock_.now()) : std::nullopt;
  };
  const auto& candidates = refresh();
  EXPECT_EQ(names(candidates.ready), std::vector<std::string>{"a"});
  EXPECT_DOUBLE_EQ(candidates.totals.at("default").cost, 1.25);
  EXPECT_DOUBLE_EQ(candidates.totals.at("default").disruption, 3.0);
}

}  // namespace
}  // namespace nodewright::controllers::disruption::testing
