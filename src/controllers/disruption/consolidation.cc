#include "controllers/disruption/consolidation.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cloud/well_known_labels.h"
#include "controllers/disruption/budgets.h"
#include "controllers/provisioning/scheduling/requirements.h"

namespace nodewright::controllers::disruption {
namespace {

using api::karpenter::NodeClaim;
using provisioning::scheduling::Requirement;
using provisioning::scheduling::Requirements;

struct PricedType {
  std::string name;
  double price = 0;
};

bool allows(const Requirements& reqs, const char* key, const std::string& value) {
  const Requirement* r = reqs.get(key);
  return r == nullptr || r->has(value);
}

// The replacement's instance types with the cheapest available offering each allows (zone and
// capacity type from its requirements, spot only when `spotOnly`), cheapest first.
std::vector<PricedType> pricedTypes(const NodeClaim& claim, const TypesByPool& types,
                                    bool spotOnly) {
  std::vector<PricedType> out;
  const Requirements reqs = Requirements::fromApi(claim.spec.requirements);
  auto pool = types.find(claim.metadata.labels.count(api::karpenter::kNodePoolLabel)
                             ? claim.metadata.labels.at(api::karpenter::kNodePoolLabel)
                             : std::string());
  if (pool == types.end()) {
    return out;
  }
  for (const cloud::InstanceType& type : pool->second) {
    if (!allows(reqs, cloud::labels::kInstanceType, type.name)) {
      continue;
    }
    double cheapest = std::numeric_limits<double>::infinity();
    for (const cloud::Offering& offering : type.offerings) {
      if (!offering.available || !allows(reqs, cloud::labels::kZone, offering.zone) ||
          !allows(reqs, cloud::labels::kCapacityType, offering.capacityType) ||
          (spotOnly && offering.capacityType != cloud::kCapacityTypeSpot)) {
        continue;
      }
      cheapest = std::min(cheapest, offering.pricePerHour);
    }
    if (cheapest != std::numeric_limits<double>::infinity()) {
      out.push_back({type.name, cheapest});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const PricedType& a, const PricedType& b) {
    return a.price != b.price ? a.price < b.price : a.name < b.name;
  });
  return out;
}

}  // namespace

void narrowRequirement(NodeClaim& claim, const char* key, const std::vector<std::string>& values) {
  std::optional<int32_t> minValues;
  auto& reqs = claim.spec.requirements;
  for (auto it = reqs.begin(); it != reqs.end();) {
    if (it->key == key) {
      if (it->minValues) {
        minValues = it->minValues;
      }
      it = reqs.erase(it);
    } else {
      ++it;
    }
  }
  api::karpenter::NodeSelectorRequirementWithMinValues r;
  r.key = key;
  r.operator_ = "In";
  r.values = values;
  r.minValues = minValues;
  reqs.push_back(std::move(r));
  if (values.size() == 1) {
    claim.metadata.labels[key] = values.front();
  } else {
    claim.metadata.labels.erase(key);
  }
}

namespace {

// Multi-node: a replacement of a type some candidate already runs must be cheaper than that
// candidate's node, or keeping that node and deleting the others disrupts less for the same
// bill (upstream's filterOutSameType).
double sameTypeCeiling(const std::vector<ConsolidationCandidate>& candidates,
                       const std::vector<PricedType>& types) {
  double ceiling = std::numeric_limits<double>::infinity();
  for (const ConsolidationCandidate& c : candidates) {
    const bool offered = std::any_of(types.begin(), types.end(),
                                     [&](const PricedType& t) { return t.name == c.instanceType; });
    if (offered) {
      ceiling = std::min(ceiling, c.price);
    }
  }
  return ceiling;
}

Validation stale(std::string why) {
  Validation out;
  out.validity = Validity::Stale;
  out.why = std::move(why);
  return out;
}

Validation valid(Decision decision) {
  Validation out;
  out.validity = Validity::Valid;
  out.decision = std::move(decision);
  return out;
}

std::string money(double price) {
  return fmt::format("${:.4f}/h", price);
}

}  // namespace

const char* methodLabel(Method method) {
  switch (method) {
    case Method::Emptiness:
      return "empty";
    case Method::MultiNode:
      return "multi";
    case Method::SingleNode:
      return "single";
  }
  return "single";
}

std::vector<std::string> Decision::names() const {
  std::vector<std::string> out;
  for (const auto& c : candidates) {
    out.push_back(c.name());
  }
  return out;
}

DecisionRecord Decision::record() const {
  DecisionRecord out;
  out.method = method;
  out.reason = reason;
  out.candidates = names();
  out.isDelete = isDelete();
  out.replacementTypes = replacementTypes;
  out.decidedAt = decidedAt;
  return out;
}

std::string Decision::describe() const {
  const std::string who = fmt::format("{} ({})", fmt::join(names(), ", "), money(currentPrice));
  if (isDelete()) {
    return fmt::format("delete {}, saving {}", who, money(savings()));
  }
  return fmt::format("replace {} with one of {} ({}), saving {}", who,
                     fmt::join(replacementTypes, ", "), money(replacementPrice), money(savings()));
}

Consolidator::Consolidator(const provisioning::ClusterCaches& caches, const ClusterView& view,
                           const TypesByPool& types, const core::Clock& clock,
                           ConsolidationOptions options)
    : caches_(caches), view_(view), types_(types), clock_(clock), options_(std::move(options)) {}

std::optional<Decision> Consolidator::decide(const ConsolidationCandidates& candidates,
                                             const Room& room) {
  if (auto d = emptiness(candidates, room)) {
    return d;
  }
  if (auto d = multiNode(candidates, room)) {
    return d;
  }
  return singleNode(candidates, room);
}

std::optional<Decision> Consolidator::emptiness(const ConsolidationCandidates& candidates,
                                                const Room& room) {
  Decision decision;
  decision.method = Method::Emptiness;
  decision.reason = kReasonEmpty;
  std::map<std::string, int> taken;
  for (const ConsolidationCandidate& c : candidates.ready) {
    if (!c.empty() || room(c.view->pool, kReasonEmpty) - taken[c.view->pool] <= 0) {
      continue;
    }
    ++taken[c.view->pool];
    decision.candidates.push_back(c);
    decision.currentPrice += c.price;
  }
  if (decision.candidates.empty()) {
    return std::nullopt;
  }
  decision.decidedAt = clock_.now();
  return decision;
}

std::optional<Decision> Consolidator::multiNode(const ConsolidationCandidates& candidates,
                                                const Room& room) {
  // Budgets first, in order, so that the prefixes searched hold only nodes that may go.
  std::vector<ConsolidationCandidate> eligible;
  std::map<std::string, int> left;
  for (const ConsolidationCandidate& c : candidates.ready) {
    if (!c.underutilizedAllowed()) {
      continue;
    }
    auto it = left.find(c.view->pool);
    if (it == left.end()) {
      it = left.emplace(c.view->pool, room(c.view->pool, kReasonUnderutilized)).first;
    }
    if (it->second <= 0) {
      continue;
    }
    --it->second;
    eligible.push_back(c);
  }
  if (eligible.size() > kMultiNodeMaxCandidates) {
    eligible.resize(kMultiNodeMaxCandidates);
  }
  // One node alone is single-node consolidation's.
  if (eligible.size() < 2) {
    return std::nullopt;
  }
  const auto deadline = clock_.now() + kMultiNodeTimeout;
  std::optional<Decision> best;
  size_t lo = 2;
  size_t hi = eligible.size();
  while (lo <= hi) {
    if (clock_.now() > deadline) {
      timedOut_ = true;
      break;
    }
    const size_t mid = (lo + hi) / 2;
    std::vector<ConsolidationCandidate> prefix(eligible.begin(), eligible.begin() + mid);
    std::string why;
    auto d = evaluate(candidates, prefix, Method::MultiNode, &why);
    if (d && d->replacement && !options_.multiNodeReplace) {
      d.reset();
    }
    if (d) {
      best = std::move(d);
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

std::optional<Decision> Consolidator::singleNode(const ConsolidationCandidates& candidates,
                                                 const Room& room) {
  const auto deadline = clock_.now() + kSingleNodeTimeout;
  for (const ConsolidationCandidate& c : candidates.ready) {
    if (!c.underutilizedAllowed()) {
      continue;
    }
    if (room(c.view->pool, kReasonUnderutilized) <= 0) {
      unconsolidatable_.push_back(
          {c.name(),
           fmt::format("NodePool \"{}\" allows no Underutilized disruption now", c.view->pool)});
      continue;
    }
    if (clock_.now() > deadline) {
      timedOut_ = true;
      return std::nullopt;
    }
    std::string why;
    if (auto d = evaluate(candidates, {c}, Method::SingleNode, &why)) {
      return d;
    }
    unconsolidatable_.push_back({c.name(), std::move(why)});
  }
  return std::nullopt;
}

std::optional<Decision> Consolidator::evaluate(
    const ConsolidationCandidates& all, const std::vector<ConsolidationCandidate>& candidates,
    Method method, std::string* why) {
  provisioning::DisruptionScope scope;
  for (const ConsolidationCandidate& c : candidates) {
    scope.nodes.insert(c.view->node->metadata.name);
  }
  for (const ClaimView& other : view_.claims()) {
    if (other.command && other.node != nullptr && !scope.nodes.count(other.node->metadata.name)) {
      scope.excludedNodes.insert(other.node->metadata.name);
    }
  }
  const Simulation sim = simulate(caches_, scope, types_, options_.hashPolicy);
  if (!sim.unschedulable.empty()) {
    const auto& [pod, error] = *sim.unschedulable.begin();
    *why = fmt::format("pod {} would not schedule: {}", pod, error);
    return std::nullopt;
  }
  Decision decision;
  decision.method = method;
  decision.candidates = candidates;
  decision.moves = sim.moves;
  const bool allEmpty = std::all_of(candidates.begin(), candidates.end(),
                                    [](const ConsolidationCandidate& c) { return c.empty(); });
  decision.reason = allEmpty ? kReasonEmpty : kReasonUnderutilized;
  for (const ConsolidationCandidate& c : candidates) {
    decision.currentPrice += c.price;
  }
  if (sim.replacements.size() > 1) {
    *why = fmt::format("can't remove without creating {} nodes", sim.replacements.size());
    return std::nullopt;
  }
  if (sim.replacements.size() == 1) {
    NodeClaim claim = sim.replacements.front();
    const Requirements reqs = Requirements::fromApi(claim.spec.requirements);
    const bool spotAllowed = allows(reqs, cloud::labels::kCapacityType, cloud::kCapacityTypeSpot);
    const bool onDemandAllowed =
        allows(reqs, cloud::labels::kCapacityType, cloud::kCapacityTypeOnDemand);
    const bool allSpot = std::all_of(candidates.begin(), candidates.end(), [](const auto& c) {
      return c.capacityType == cloud::kCapacityTypeSpot;
    });
    const bool spotToSpot = allSpot && spotAllowed;
    if (spotToSpot && !options_.spotToSpot) {
      *why = "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node";
      return std::nullopt;
    }
    const std::vector<PricedType> priced = pricedTypes(claim, types_, spotToSpot);
    double ceiling = decision.currentPrice;
    if (method == Method::MultiNode) {
      ceiling = std::min(ceiling, sameTypeCeiling(candidates, priced));
    }
    std::vector<PricedType> cheaper;
    std::copy_if(priced.begin(), priced.end(), std::back_inserter(cheaper),
                 [&](const PricedType& t) { return t.price < ceiling; });
    if (cheaper.empty()) {
      *why = priced.empty() ? std::string("no instance type can replace it")
                            : fmt::format("cheapest replacement {} is not cheaper than {}",
                                          money(priced.front().price), money(ceiling));
      return std::nullopt;
    }
    if (spotToSpot && candidates.size() == 1) {
      if (cheaper.size() < kMinSpotToSpotTypes) {
        *why = fmt::format(
            "SpotToSpotConsolidation requires {} cheaper instance type options than the current "
            "candidate to consolidate, got {}",
            kMinSpotToSpotTypes, cheaper.size());
        return std::nullopt;
      }
      cheaper.resize(kMinSpotToSpotTypes);
    }
    for (const PricedType& t : cheaper) {
      decision.replacementTypes.push_back(t.name);
    }
    narrowRequirement(claim, cloud::labels::kInstanceType, decision.replacementTypes);
    // Priced as spot where spot was allowed: launching on-demand instead could cost more than
    // the nodes it replaces, so the launch must fail rather than fall back.
    if (spotToSpot || (spotAllowed && onDemandAllowed)) {
      narrowRequirement(claim, cloud::labels::kCapacityType, {cloud::kCapacityTypeSpot});
    }
    decision.replacementPrice = cheaper.front().price;
    decision.replacement = std::move(claim);
  }
  // Balanced: each Balanced pool among the candidates must approve its share of the move.
  std::map<std::string, std::vector<const ConsolidationCandidate*>> byPool;
  for (const ConsolidationCandidate& c : candidates) {
    byPool[c.view->pool].push_back(&c);
  }
  for (const auto& [pool, members] : byPool) {
    if (consolidationPolicy(*members.front()->pool) != kPolicyBalanced) {
      continue;
    }
    double poolCost = 0;
    double disruption = 0;
    for (const ConsolidationCandidate* c : members) {
      poolCost += c->price;
      disruption += c->moveCost;
    }
    double savings = decision.savings();
    if (byPool.size() > 1 && decision.currentPrice > 0) {
      savings *= poolCost / decision.currentPrice;
    }
    auto totals = all.totals.find(pool);
    const BalancedScore score =
        scoreMove(savings, disruption, totals == all.totals.end() ? PoolTotals{} : totals->second,
                  options_.balancedThreshold);
    if (!decision.score || score.score < decision.score->score) {
      decision.score = score;
    }
    if (!score.approved) {
      *why = fmt::format("Balanced score {:.3f} for NodePool \"{}\" is below 1/{} (saves {})",
                         score.score, pool, options_.balancedThreshold, money(savings));
      return std::nullopt;
    }
  }
  decision.decidedAt = clock_.now();
  return decision;
}

Validation validate(const DecisionRecord& decision, Consolidator& fresh,
                    const ConsolidationCandidates& freshCandidates, const Room& room,
                    core::TimePoint now) {
  if (now - decision.decidedAt < kConsolidationTtl) {
    return Validation{};
  }
  std::map<std::string, const ConsolidationCandidate*> ready;
  for (const ConsolidationCandidate& c : freshCandidates.ready) {
    ready[c.name()] = &c;
  }
  std::map<std::string, std::string> excluded;
  for (const Unconsolidatable& u : freshCandidates.excluded) {
    excluded[u.claim] = u.why;
  }
  std::vector<ConsolidationCandidate> current;
  std::map<std::string, int> perPool;
  for (const std::string& name : decision.candidates) {
    auto it = ready.find(name);
    if (it == ready.end()) {
      auto reason = excluded.find(name);
      return stale(fmt::format("{} is no longer a candidate: {}", name,
                               reason == excluded.end() ? std::string("gone") : reason->second));
    }
    if (decision.method == Method::Emptiness && !it->second->empty()) {
      return stale(fmt::format("{} is no longer empty", name));
    }
    current.push_back(*it->second);
    ++perPool[it->second->view->pool];
  }
  for (const auto& [pool, count] : perPool) {
    if (const int allowed = room(pool, decision.reason); allowed < count) {
      return stale(fmt::format("NodePool \"{}\" budgets now allow {} {} disruptions", pool, allowed,
                               decision.reason));
    }
  }
  if (decision.method == Method::Emptiness) {
    Decision emptied;
    emptied.method = Method::Emptiness;
    emptied.reason = decision.reason;
    emptied.candidates = current;
    for (const ConsolidationCandidate& c : current) {
      emptied.currentPrice += c.price;
    }
    emptied.decidedAt = decision.decidedAt;
    return valid(std::move(emptied));
  }
  std::string why;
  auto again = fresh.evaluate(freshCandidates, current, decision.method, &why);
  if (!again) {
    return stale("no longer consolidatable: " + why);
  }
  if (decision.isDelete != again->isDelete()) {
    return stale(decision.isDelete ? "the pods now need a new node"
                                   : "the replacement is now a delete");
  }
  for (const std::string& type : decision.replacementTypes) {
    if (std::find(again->replacementTypes.begin(), again->replacementTypes.end(), type) ==
        again->replacementTypes.end()) {
      return stale(fmt::format("{} is no longer a cheaper replacement", type));
    }
  }
  return valid(std::move(*again));
}

}  // namespace nodewright::controllers::disruption
