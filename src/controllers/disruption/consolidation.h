#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/hashing.h"
#include "controllers/disruption/consolidation_candidates.h"
#include "core/clock.h"

// Consolidation decisions, as Karpenter computes them (pkg/controllers/disruption:
// emptiness.go, multinodeconsolidation.go, singlenodeconsolidation.go, consolidation.go,
// validation.go), in its order:
//   1. emptiness: delete the empty candidates, as many as the Empty budgets allow;
//   2. multi-node: the largest prefix of the candidates (by disruption cost) whose pods fit on
//      the rest of the cluster plus at most one new node cheaper than the prefix, found by a
//      binary search over the prefix length (at most 100 candidates);
//   3. single-node: the first candidate that can be deleted, or replaced by one cheaper node.
// Every "fits" is the provisioning scheduler's simulation with the candidates' nodes gone.
// A decision is carried out only after re-validation 15 s later (validate()).
namespace nodewright::controllers::disruption {

// Between deciding and acting: pods that churned meanwhile show up in the re-validation.
inline constexpr auto kConsolidationTtl = std::chrono::seconds(15);
// Spot-to-spot replacement only with at least this many cheaper spot types, and launched with
// only the cheapest this many, so the launch cannot land on a type that is itself replaceable
// at once (a race to the bottom of the spot market).
inline constexpr size_t kMinSpotToSpotTypes = 15;
inline constexpr size_t kMultiNodeMaxCandidates = 100;
inline constexpr auto kMultiNodeTimeout = std::chrono::minutes(1);
inline constexpr auto kSingleNodeTimeout = std::chrono::minutes(3);

enum class Method { Emptiness, MultiNode, SingleNode };
// The consolidation_type label: "empty", "multi", "single".
const char* methodLabel(Method method);

struct ConsolidationOptions {
  // Upstream's SpotToSpotConsolidation feature gate, off by default.
  bool spotToSpot = false;
  int balancedThreshold = kBalancedThreshold;  // k
  // Whether multi-node consolidation may replace its prefix by one new node, or only delete it.
  bool multiNodeReplace = true;
  api::karpenter::HashPolicy hashPolicy = api::karpenter::defaultHashPolicy();
};

// A decision without its pointers into the view it was made from, to re-validate against a
// later view.
struct DecisionRecord {
  Method method = Method::SingleNode;
  std::string reason;
  std::vector<std::string> candidates;
  bool isDelete = true;
  std::vector<std::string> replacementTypes;
  core::TimePoint decidedAt;
};

struct Decision {
  Method method = Method::SingleNode;
  std::string reason;  // kReasonEmpty | kReasonUnderutilized
  std::vector<ConsolidationCandidate> candidates;
  // The one new node, when the candidates' pods need one: its requirements narrowed to the
  // instance types cheaper than the candidates (and to spot where upstream narrows so).
  std::optional<api::karpenter::NodeClaim> replacement;
  std::vector<std::string> replacementTypes;  // cheapest first
  double currentPrice = 0;                    // the candidates' $/h
  double replacementPrice = 0;                // the cheapest replacement type's, 0 for a delete
  std::optional<BalancedScore> score;         // under Balanced
  // Where the candidates' pods would go: "namespace/name" -> a node, or the new node.
  std::map<std::string, std::string> moves;
  core::TimePoint decidedAt;

  double savings() const { return currentPrice - replacementPrice; }
  bool isDelete() const { return !replacement.has_value(); }
  std::vector<std::string> names() const;
  DecisionRecord record() const;
  // "replace default-a, default-b ($0.340/h) with one of c.large ($0.170/h), saving $0.170/h".
  std::string describe() const;
};

// How many more nodes of `pool` may be disrupted now for `reason` (budgets less those already
// disrupting).
using Room = std::function<int(const std::string& pool, const std::string& reason)>;

class Consolidator {
 public:
  // Everything must outlive the consolidator; `caches` are those `view` was built from.
  Consolidator(const provisioning::ClusterCaches& caches, const ClusterView& view,
               const TypesByPool& types, const core::Clock& clock, ConsolidationOptions options);

  // The three methods in order; the first decision found, or nullopt.
  std::optional<Decision> decide(const ConsolidationCandidates& candidates, const Room& room);
  std::optional<Decision> emptiness(const ConsolidationCandidates& candidates, const Room& room);
  std::optional<Decision> multiNode(const ConsolidationCandidates& candidates, const Room& room);
  std::optional<Decision> singleNode(const ConsolidationCandidates& candidates, const Room& room);

  // Simulates removing `candidates` together: a delete, a replacement by one cheaper node, or
  // nullopt with why not in `*why` (the Unconsolidatable event's message).
  // `all` gives Balanced its NodePool totals.
  std::optional<Decision> evaluate(const ConsolidationCandidates& all,
                                   const std::vector<ConsolidationCandidate>& candidates,
                                   Method method, std::string* why);

  // Why single-node consolidation passed over each candidate it tried, in order.
  const std::vector<Unconsolidatable>& unconsolidatable() const { return unconsolidatable_; }
  // Whether a method stopped at its timeout this pass (the consolidation timeouts counter).
  bool timedOut() const { return timedOut_; }

 private:
  const provisioning::ClusterCaches& caches_;
  const ClusterView& view_;
  const TypesByPool& types_;
  const core::Clock& clock_;
  const ConsolidationOptions options_;
  std::vector<Unconsolidatable> unconsolidatable_;
  bool timedOut_ = false;
};

// Replaces the claim's requirement on `key` by In `values` (keeping its minValues), and its label
// for `key` by the value when there is one.
void narrowRequirement(api::karpenter::NodeClaim& claim, const char* key,
                       const std::vector<std::string>& values);

enum class Validity { Wait, Valid, Stale };
struct Validation {
  Validity validity = Validity::Wait;
  std::string why;  // for Stale: what changed
  // For Valid: the decision as it stands now, over the fresh view (to carry out).
  std::optional<Decision> decision;
};

// Re-validates `decision` against a fresh view of the cluster, once kConsolidationTtl has passed
// since it was made (Wait before): every candidate must still be one, the budgets must still
// allow it, and a fresh simulation must still delete (for a delete) or still need one
// replacement that can be any of the decided types (for a replace).
Validation validate(const DecisionRecord& decision, Consolidator& fresh,
                    const ConsolidationCandidates& freshCandidates, const Room& room,
                    core::TimePoint now);

}  // namespace nodewright::controllers::disruption
