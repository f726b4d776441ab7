#include "controllers/disruption/drift.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/reflect/operations.h"

// Seed 002's NodePool side, check by check: every static field of the template drifts when
// changed (driven by the model's field metadata, so a new field is covered the day it is added),
// the requirements drift by compatibility with the node's labels, and weight, limits and
// disruption never drift. A claim stamped under another hash version is not drifted.
namespace nodewright::controllers::disruption {
namespace {

using api::karpenter::HashPolicy;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;

const HashPolicy kPolicy{"nw1", 0};

// Every field set; without requirements unless asked, so the node's labels meet them.
NodePool sampledPool(bool requirements = false) {
  NodePool pool;
  pool.metadata.name = "default";
  api::reflect::opsFor<api::karpenter::NodePoolSpec>().sample(&pool.spec, nullptr, 0);
  if (!requirements) {
    pool.spec.template_.spec.requirements.clear();
  }
  return pool;
}

NodeClaim launchedFrom(const NodePool& pool, const HashPolicy& policy = kPolicy) {
  NodeClaim claim;
  claim.metadata.name = "default-abcde";
  claim.metadata.labels = {{"karpenter.sh/nodepool", pool.metadata.name},
                           {"node.kubernetes.io/instance-type", "m5.large"},
                           {"karpenter.sh/capacity-type", "on-demand"},
                           {"topology.kubernetes.io/zone", "us-east-1a"},
                           {"kubernetes.io/arch", "amd64"}};
  api::karpenter::stampNodePool(pool, policy, claim.metadata.annotations);
  return claim;
}

const cloud::DriftCheck& check(const std::vector<cloud::DriftCheck>& checks,
                               const std::string& name) {
  for (const auto& c : checks) {
    if (c.name == name) {
      return c;
    }
  }
  static const cloud::DriftCheck none;
  ADD_FAILURE() << "no check " << name;
  return none;
}

std::vector<cloud::DriftCheck> drift(const NodeClaim& claim, const NodePool& now) {
  return nodePoolDrift(claim, nodePoolContext(now, kPolicy), kPolicy);
}

TEST(NodePoolDriftTest, AnUnchangedPoolDoesNotDrift) {
  const NodePool pool = sampledPool();
  const auto checks = drift(launchedFrom(pool), pool);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].name, "NodePool");
  EXPECT_EQ(checks[1].name, "Requirements");
  EXPECT_EQ(cloud::firstDrift(checks), nullptr) << checks[0].detail << checks[1].detail;
}

// Every leaf of spec.template: static ones drift by hash and the condition names the field,
// dynamic ones (requirements) and behavioral ones do not drift by hash.
TEST(NodePoolDriftTest, EveryTemplateFieldFollowsItsDriftClass) {
  const auto& templateOps = api::reflect::opsFor<api::karpenter::NodeClaimTemplate>();
  size_t staticLeaves = 0;
  for (const auto& leaf : api::reflect::leaves(templateOps)) {
    const NodePool launched = sampledPool(/*requirements=*/true);
    NodePool changed = launched;
    void* value = api::reflect::resolveLeaf(templateOps, &changed.spec.template_, leaf);
    ASSERT_NE(value, nullptr) << leaf.path;
    const api::Json before = leaf.type->encode(value);
    leaf.type->sample(value, leaf.field, 1);
    if (leaf.type->encode(value) == before) {
      continue;  // a single-valued enum: no other value exists
    }
    const auto checks = drift(launchedFrom(launched), changed);
    const auto& hashCheck = check(checks, "NodePool");
    if (leaf.drift == api::reflect::Drift::Static) {
      ++staticLeaves;
      EXPECT_TRUE(hashCheck.drifted) << "spec.template." << leaf.path;
      EXPECT_EQ(hashCheck.reason, "NodePoolDrifted");
      ASSERT_FALSE(hashCheck.changes.empty()) << leaf.path;
      // The first segment of the leaf's path is named (the diff has the exact position).
      const std::string top = "spec.template." + leaf.path.substr(0, leaf.path.find_first_of(".["));
      EXPECT_EQ(hashCheck.changes[0].path.rfind(top, 0), 0u)
          << hashCheck.changes[0].path << " for " << leaf.path;
    } else {
      EXPECT_FALSE(hashCheck.drifted) << "spec.template." << leaf.path << " drifted";
    }
  }
  EXPECT_GT(staticLeaves, 10u);
}

TEST(NodePoolDriftTest, SeedFieldsNameTheirPathAndValues) {
  const NodePool launched = sampledPool();
  struct Case {
    std::string path;
    std::function<void(NodePool&)> change;
  };
  const std::vector<Case> cases = {
      {"spec.template.metadata.labels[team]",
       [](NodePool& p) { p.spec.template_.metadata.labels["team"] = "payments"; }},
      {"spec.template.metadata.annotations[owner]",
       [](NodePool& p) { p.spec.template_.metadata.annotations["owner"] = "sre"; }},
      {"spec.template.spec.taints",
       [](NodePool& p) {
         p.spec.template_.spec.taints.push_back({"gpu", "", "NoSchedule", {}});
       }},
      {"spec.template.spec.startupTaints",
       [](NodePool& p) { p.spec.template_.spec.startupTaints.clear(); }},
      {"spec.template.spec.nodeClassRef.name",
       [](NodePool& p) { p.spec.template_.spec.nodeClassRef.name = "other"; }},
      {"spec.template.spec.expireAfter",
       [](NodePool& p) { p.spec.template_.spec.expireAfter = core::Duration::never(); }},
      {"spec.template.spec.terminationGracePeriod",
       [](NodePool& p) {
         p.spec.template_.spec.terminationGracePeriod = core::Duration(std::chrono::hours(3));
       }},
      {"spec.template.spec.kubelet",
       [](NodePool& p) { p.spec.template_.spec.kubelet->maxPods = 17; }},
  };
  for (const auto& c : cases) {
    NodePool changed = launched;
    c.change(changed);
    const auto checks = drift(launchedFrom(launched), changed);
    const auto& hashCheck = check(checks, "NodePool");
    ASSERT_TRUE(hashCheck.drifted) << c.path;
    ASSERT_FALSE(hashCheck.changes.empty()) << c.path;
    EXPECT_EQ(hashCheck.changes[0].path.rfind(c.path, 0), 0u)
        << hashCheck.changes[0].path << " for " << c.path;
    EXPECT_NE(hashCheck.changes[0].from, hashCheck.changes[0].to) << c.path;
  }
}

TEST(NodePoolDriftTest, WeightLimitsAndDisruptionNeverDrift) {
  const NodePool launched = sampledPool();
  NodePool changed = launched;
  changed.spec.weight = 99;
  changed.spec.limits["cpu"] = core::Quantity::fromInt(1);
  changed.spec.disruption.consolidateAfter = core::Duration::never();
  changed.spec.disruption.budgets.clear();
  EXPECT_EQ(cloud::firstDrift(drift(launchedFrom(launched), changed)), nullptr);
}

TEST(NodePoolDriftTest, AnotherHashVersionIsNotDrift) {
  const NodePool launched = sampledPool();
  NodePool changed = launched;
  changed.spec.template_.metadata.labels["team"] = "payments";
  const HashPolicy older{"nw0", 7};
  const auto checks = drift(launchedFrom(launched, older), changed);
  const auto& hashCheck = check(checks, "NodePool");
  EXPECT_FALSE(hashCheck.drifted);
  EXPECT_NE(hashCheck.detail.find("re-stamped"), std::string::npos) << hashCheck.detail;
}

TEST(NodePoolDriftTest, RequirementsTheNodeNoLongerMeetsDrift) {
  NodePool pool = sampledPool();
  const NodeClaim claim = launchedFrom(pool);
  pool.spec.template_.spec.requirements = {
      {"node.kubernetes.io/instance-type", "In", {"c5.large", "c5.xlarge"}, std::nullopt},
      {"kubernetes.io/arch", "In", {"amd64"}, std::nullopt}};
  const auto checks = drift(claim, pool);
  const auto& requirements = check(checks, "Requirements");
  ASSERT_TRUE(requirements.drifted);
  EXPECT_EQ(requirements.reason, "RequirementsDrifted");
  ASSERT_EQ(requirements.changes.size(), 1u);
  EXPECT_EQ(requirements.changes[0].path,
            "spec.template.spec.requirements[node.kubernetes.io/instance-type]");
  EXPECT_EQ(requirements.changes[0].from, "m5.large");
  // The hash check comes first and passes: requirements are not hashed.
  EXPECT_EQ(cloud::firstDrift(checks)->name, "Requirements");

  // Each of seed 002's requirement kinds: capacity type, zone, architecture, OS, instance
  // metadata; a well-known label the node lacks is not held against it.
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"karpenter.sh/capacity-type", "spot"},
           {"topology.kubernetes.io/zone", "us-east-1b"},
           {"kubernetes.io/arch", "arm64"},
           {"karpenter.k8s.aws/instance-family", "c5"}}) {
    NodePool narrowed = sampledPool();
    narrowed.spec.template_.spec.requirements = {{key, "In", {value}, std::nullopt}};
    const bool lacksLabel = !claim.metadata.labels.contains(key);
    EXPECT_EQ(check(drift(claim, narrowed), "Requirements").drifted, !lacksLabel) << key;
  }
  NodePool widened = sampledPool();
  widened.spec.template_.spec.requirements = {
      {"node.kubernetes.io/instance-type", "In", {"m5.large", "m5.xlarge"}, std::nullopt},
      {"kubernetes.io/os", "In", {"linux"}, std::nullopt}};
  EXPECT_FALSE(check(drift(claim, widened), "Requirements").drifted);
}

}  // namespace
}  // namespace nodewright::controllers::disruption
