#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/policy.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/well_known.h"
#include "cloud/well_known_labels.h"
#include "controllers/disruption/consolidation.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/provisioning/scheduling/fixture.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"

// Consolidation over informer caches filled directly: NodePools, initialized NodeClaims with
// their Ready Nodes, bound pods, and the pools' instance types. No API server: consolidation
// decides from the caches alone, with the real provisioning scheduler.
namespace nodewright::controllers::disruption::testing {

using api::corev1::Node;
using api::corev1::Pod;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using namespace std::chrono_literals;
namespace fixture = provisioning::scheduling::testing;

class ConsolidationEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    caches_.pods = &pods_;
    caches_.nodes = &nodes_;
    caches_.nodeClaims = &claims_;
    caches_.nodePools = &pools_;
    caches_.daemonSets = &daemonSets_;
    // 2, 4 and 8 cpu at exact binary prices.
    types_ = {fixture::instanceType("c.large", 2, 4, 30, 0.25),
              fixture::instanceType("c.xlarge", 4, 8, 30, 0.5),
              fixture::instanceType("c.2xlarge", 8, 16, 30, 1.0)};
  }

  template <class T>
  static void put(kube::Cache& cache, const T& value) {
    cache.upsert(api::Object(&kube::kindOf<T>(), std::make_shared<T>(value)));
  }

  // A pool on on-demand capacity (so prices compare as on-demand) with consolidateAfter 0s.
  void addPool(const std::string& name, const std::string& policy = kPolicyWhenEmptyOrUnderutilized,
               const std::function<void(NodePool&)>& customize = {}) {
    NodePool pool = fixture::nodePool(name);
    pool.spec.disruption.consolidationPolicy = policy;
    pool.spec.disruption.consolidateAfter = core::Duration(0s);
    pool.spec.template_.spec.requirements = {
        fixture::requirement(cloud::labels::kCapacityType, "In", {"on-demand"})};
    if (customize) {
      customize(pool);
    }
    put(pools_, pool);
  }

  // An initialized claim (created and initialized an hour ago) with its Ready Node of `type`.
  void addNode(const std::string& name, const std::string& pool, const std::string& type,
               const std::string& capacityType = cloud::kCapacityTypeOnDemand,
               const std::function<void(NodeClaim&, Node&)>& customize = {}) {
    const auto since = clock_.now() - 1h;
    NodeClaim claim;
    claim.metadata.name = name;
    claim.metadata.uid = "uid-" + name;
    claim.metadata.creationTimestamp = core::Time(since);
    claim.metadata.labels = {{api::karpenter::kNodePoolLabel, pool}};
    claim.status.providerID = "fake:///zone-a/i-" + name;
    claim.status.nodeName = "node-" + name;
    for (const char* condition : {api::karpenter::kLaunched, api::karpenter::kRegistered,
                                  api::karpenter::kInitialized, api::karpenter::kReady}) {
      nodeclaim::setCondition(claim.status.conditions, condition, "True", condition, "", 1, since);
    }
    Node node;
    node.metadata.name = "node-" + name;
    node.metadata.labels = {{api::karpenter::kNodePoolLabel, pool},
                            {api::karpenter::kInitializedLabel, "true"},
                            {cloud::labels::kInstanceType, type},
                            {cloud::labels::kZone, "zone-a"},
                            {cloud::labels::kCapacityType, capacityType},
                            {"kubernetes.io/arch", "amd64"},
                            {"kubernetes.io/os", "linux"},
                            {"kubernetes.io/hostname", "node-" + name}};
    node.spec.providerID = claim.status.providerID;
    for (const auto& t : types_) {
      if (t.name == type) {
        node.status.allocatable = t.allocatable();
      }
    }
    api::corev1::NodeCondition ready;
    ready.type = "Ready";
    ready.status = "True";
    node.status.conditions.push_back(ready);
    if (customize) {
      customize(claim, node);
    }
    put(claims_, claim);
    put(nodes_, node);
  }

  // A running pod of `cpu` and 1Gi on the node of claim `claimName` ("" for a pending pod).
  Pod addPod(const std::string& name, const std::string& claimName, const char* cpu = "1",
             const std::function<void(Pod&)>& customize = {}) {
    Pod pod = fixture::pod(name, cpu, "1Gi", {{"app", "web"}});
    pod.metadata.uid = "uid-" + name;
    if (!claimName.empty()) {
      pod.spec.nodeName = "node-" + claimName;
      pod.status.phase = "Running";
    } else {
      pod.status.phase = "Pending";
    }
    if (customize) {
      customize(pod);
    }
    put(pods_, pod);
    return pod;
  }

  // Re-reads the caches: a fresh view, candidates and consolidator.
  const ConsolidationCandidates& refresh() {
    consolidator_.reset();
    candidates_.reset();
    view_.emplace(caches_);
    typesByPool_.clear();
    for (const auto& [name, pool] : view_->pools()) {
      if (!api::karpenter::isStatic(*pool)) {
        typesByPool_[name] = types_;
      }
    }
    CandidateInput input;
    input.view = &*view_;
    input.caches = &caches_;
    input.pdbs = &pdbs_;
    input.types = &typesByPool_;
    input.now = clock_.now();
    input.lastPodSeen = lastPodSeen_;
    candidates_.emplace(findConsolidationCandidates(input));
    consolidator_.emplace(caches_, *view_, typesByPool_, clock_, options_);
    return *candidates_;
  }

  std::optional<Decision> decide() {
    refresh();
    return consolidator_->decide(*candidates_, room());
  }

  Room room() {
    return [this](const std::string& pool, const std::string& reason) {
      auto it = room_.find({pool, reason});
      return it == room_.end() ? 100 : it->second;
    };
  }

  static std::vector<std::string> names(const std::vector<ConsolidationCandidate>& candidates) {
    std::vector<std::string> out;
    for (const auto& c : candidates) {
      out.push_back(c.name());
    }
    return out;
  }

  // Why `claim` was excluded, or "" when it was not.
  std::string exclusion(const std::string& claim) const {
    for (const auto& u : candidates_->excluded) {
      if (u.claim == claim) {
        return u.why;
      }
    }
    return "";
  }

  static std::vector<std::string> requirementValues(const NodeClaim& claim, const char* key) {
    for (const auto& r : claim.spec.requirements) {
      if (r.key == key) {
        return r.values;
      }
    }
    return {};
  }

  core::FakeClock clock_;
  kube::Cache pods_, nodes_, claims_, pools_, daemonSets_;
  provisioning::ClusterCaches caches_;
  std::vector<cloud::InstanceType> types_;
  std::vector<api::corev1::PodDisruptionBudget> pdbs_;
  ConsolidationOptions options_;
  LastPodSeen lastPodSeen_;
  std::map<std::pair<std::string, std::string>, int> room_;

  std::optional<ClusterView> view_;
  TypesByPool typesByPool_;
  std::optional<ConsolidationCandidates> candidates_;
  std::optional<Consolidator> consolidator_;
};

}  // namespace nodewright::controllers::disruption::testing
