#include "controllers/provisioning/scheduling/pass.h"

#include <algorithm>

#include "cloud/well_known_labels.h"

// Placing one pod: existing nodes first (in input order), then the claims this pass opened,
// then a new claim from the first NodePool (by weight) that can take it.
namespace nodewright::controllers::provisioning::scheduling {

bool Pass::tolerates(PodClass& c, size_t pool) {
  if (c.toleratesPool.size() < pools_.size()) {
    c.toleratesPool.resize(pools_.size(), -1);
  }
  if (c.toleratesPool[pool] < 0) {
    bool ok = true;
    for (const auto& taint : pools_[pool]->taints()) {
      ok = ok && api::corev1::tolerates(c.tolerations, taint);
    }
    c.toleratesPool[pool] = ok ? 1 : 0;
  }
  return c.toleratesPool[pool] == 1;
}

bool Pass::placeOnNode(size_t pod, PodClass& c) {
  for (size_t n = 0; n < nodes_.size(); ++n) {
    if (c.neverNodes.test(n)) {
      continue;
    }
    Verdict v = checkNode(nodes_[n], pod, c);
    if (v == Verdict::Never) {
      c.neverNodes.set(n);
    }
    if (v != Verdict::Ok) {
      continue;
    }
    NodeState& node = nodes_[n];
    for (size_t s = 0; s < requests_[pod].size(); ++s) {
      node.remaining[s] -= requests_[pod][s];
    }
    topology_.record(c.selecting, c.owned,
                     [&](int key) -> const std::vector<int>& { return node.domains[key]; });
    results_.existingNodes[podKey(pod)] = node.node->name;
    return true;
  }
  return false;
}

Pass::Verdict Pass::checkNode(NodeState& n, size_t pod, const PodClass& c) {
  if (!n.node->schedulable) {
    return Verdict::Never;
  }
  for (const auto& taint : n.taints) {
    if (!api::corev1::tolerates(c.tolerations, taint)) {
      return Verdict::Never;
    }
  }
  for (const auto& [key, r] : reqs_.get(c.requirements).entries()) {
    auto it = n.node->labels.find(key);
    if (it == n.node->labels.end() ? !r.allowsAbsent() : !r.has(it->second)) {
      return Verdict::Never;
    }
  }
  if (!fitsWithin(requests_[pod], n.remaining)) {
    return Verdict::Retry;
  }
  if (c.owned.empty() && c.selectedByAnti.empty()) {
    return Verdict::Ok;
  }
  return topology_.check(
      c.owned, c.selectedByAnti, [&](int key) -> const std::vector<int>& { return n.domains[key]; },
      narrow_);
}

bool Pass::placeOnClaim(size_t pod, PodClass& c) {
  c.neverClaims.grow(claims_.size());
  const auto& open = openClaims_.words();
  const auto& never = c.neverClaims.words();
  ClaimPlan plan;
  for (size_t w = 0; w < open.size(); ++w) {
    for (uint64_t bits = open[w] & ~(w < never.size() ? never[w] : 0); bits; bits &= bits - 1) {
      size_t k = w * 64 + std::countr_zero(bits);
      Verdict v = checkClaim(claims_[k], pod, c, plan, nullptr);
      if (v == Verdict::Ok) {
        commitClaim(k, pod, c, std::move(plan));
        return true;
      }
      if (v == Verdict::Never) {
        c.neverClaims.set(k);
      }
    }
  }
  return false;
}

bool Pass::placeOnNewClaim(size_t pod, PodClass& c, std::string& why) {
  for (size_t p = 0; p < pools_.size(); ++p) {
    PoolCatalog& pool = *pools_[p];
    std::string reason;
    if (!tolerates(c, p)) {
      reason = "did not tolerate the nodepool's taints";
    } else if (auto e = reqs_.get(pool.requirements()).compatible(reqs_.get(c.requirements))) {
      reason = *e;
    } else {
      Claim claim;
      claim.pool = p;
      claim.reqs = pool.requirements();
      claim.types = pool.hasLimits() ? pool.withinLimits() : Bits(pool.typeCount(), true);
      claim.requests = pool.daemonOverhead;
      claim.maxAlloc = pool.maxWithin(claim.types);
      claim.host = topology_.nextDomain(hostKey_);
      if (!claim.types.any()) {
        reason = pool.limitsError();
      } else {
        ClaimPlan plan;
        if (checkClaim(claim, pod, c, plan, &reason) == Verdict::Ok) {
          topology_.domain(hostKey_, "hostname-placeholder-" + std::to_string(claims_.size() + 1));
          claims_.push_back(std::move(claim));
          openClaims_.set(claims_.size() - 1);
          commitClaim(claims_.size() - 1, pod, c, std::move(plan));
          return true;
        }
      }
    }
    why += (why.empty() ? "" : "; ") + std::string("incompatible with nodepool \"") + pool.name() +
           "\": " + reason;
  }
  return false;
}

const std::vector<int>& Pass::claimDomains(int host, int reqs, int key) {
  static const std::vector<int> kNone;
  if (key == hostKey_) {
    // One slot per claim would do, but claims are few per pod and this keeps one path.
    auto [it, inserted] = claimDomains_.try_emplace(~static_cast<uint64_t>(host));
    if (inserted) {
      it->second = {host};
    }
    return it->second;
  }
  uint64_t id =
      (static_cast<uint64_t>(static_cast<uint32_t>(reqs)) << 32) | static_cast<uint32_t>(key);
  auto [it, inserted] = claimDomains_.try_emplace(id);
  if (inserted) {
    const Requirement* r = reqs_.get(reqs).get(topology_.keyName(key));
    for (int d : topology_.universe(key)) {
      if (!r || r->has(topology_.domainName(key, d))) {
        it->second.push_back(d);
      }
    }
  }
  return it != claimDomains_.end() ? it->second : kNone;
}

int Pass::narrowTo(int key, const std::vector<int>& ids) {
  std::string id = std::to_string(key) + ":";
  for (int d : ids) {
    id += std::to_string(d) + ",";
  }
  auto [it, inserted] = narrowings_.try_emplace(id, 0);
  if (inserted) {
    std::vector<std::string> names;
    for (int d : ids) {
      names.push_back(topology_.domainName(key, d));
    }
    Requirements r;
    r.add(topology_.keyName(key), Requirement::in(std::move(names)));
    it->second = reqs_.intern(r);
  }
  return it->second;
}

Pass::Verdict Pass::checkClaim(const Claim& claim, size_t pod, const PodClass& c, ClaimPlan& plan,
                               std::string* why) {
  PoolCatalog& pool = *pools_[claim.pool];
  if (!tolerates(const_cast<PodClass&>(c), claim.pool)) {
    return Verdict::Never;
  }
  const Vec& req = requests_[pod];
  plan.requests = claim.requests;
  addTo(plan.requests, req);
  for (size_t s = 0; s < plan.requests.size(); ++s) {
    if (plan.requests[s] > (s < claim.maxAlloc.size() ? claim.maxAlloc[s] : 0)) {
      if (why) {
        *why = "no instance type has enough " + resources_.name(s);
      }
      return Verdict::Retry;
    }
  }
  if (!reqs_.compatible(claim.reqs, c.requirements)) {
    return Verdict::Never;
  }
  plan.reqs = reqs_.intersect(claim.reqs, c.requirements);
  if (reqs_.conflicted(plan.reqs)) {
    return Verdict::Never;
  }
  if (!c.owned.empty() || !c.selectedByAnti.empty()) {
    const int merged = plan.reqs;
    Verdict v = topology_.check(
        c.owned, c.selectedByAnti,
        [&](int key) -> const std::vector<int>& { return claimDomains(claim.host, merged, key); },
        narrow_);
    if (v != Verdict::Ok) {
      if (why) {
        *why = "unsatisfiable topology constraints";
      }
      return v;
    }
    for (const auto& n : narrow_) {
      if (n.key != hostKey_ && n.ids != claimDomains(claim.host, merged, n.key)) {
        plan.reqs = reqs_.intersect(plan.reqs, narrowTo(n.key, n.ids));
      }
    }
  }
  plan.types = claim.types;
  plan.types &= pool.typesFor(plan.reqs);
  pool.keepFitting(plan.types, plan.requests);
  if (!plan.types.any()) {
    if (why) {
      *why = "no instance type satisfied resources " +
             formatResources(resources_.list(plan.requests)) + " and requirements " +
             reqs_.get(plan.reqs).describe();
    }
    return Verdict::Retry;
  }
  for (const auto& [key, r] : reqs_.get(plan.reqs).entries()) {
    if (r.minValues &&
        pool.distinctValues(key, plan.types, plan.reqs) < static_cast<size_t>(*r.minValues)) {
      if (why) {
        *why = "minValues requirement is not met for \"" + key + "\"";
      }
      return Verdict::Retry;
    }
  }
  return Verdict::Ok;
}

void Pass::commitClaim(size_t k, size_t pod, const PodClass& c, ClaimPlan&& plan) {
  Claim& claim = claims_[k];
  PoolCatalog& pool = *pools_[claim.pool];
  const bool narrowed = !(plan.types == claim.types);
  claim.reqs = plan.reqs;
  claim.types = std::move(plan.types);
  claim.requests = std::move(plan.requests);
  claim.pods.push_back(input_.pods[pod]);
  if (narrowed || claim.pods.size() == 1) {
    claim.maxAlloc = pool.maxWithin(claim.types);
    if (pool.hasLimits()) {
      // Karpenter charges a claim's largest type against the limits; as the claim narrows,
      // the difference is given back.
      Vec largest = pool.largestCapacity(claim.types);
      pool.charge(claim.charged, -1);
      pool.charge(largest, 1);
      claim.charged = std::move(largest);
    }
  }
  const int reqs = claim.reqs, host = claim.host;
  topology_.record(c.selecting, c.owned, [&](int key) -> const std::vector<int>& {
    return claimDomains(host, reqs, key);
  });
  // A claim that cannot hold even the smallest pending pod is skipped from now on.
  for (size_t s = 0; s < claim.requests.size(); ++s) {
    if (claim.requests[s] > claim.maxAlloc[s] - smallestPod_[s]) {
      openClaims_.reset(k);
      break;
    }
  }
}

}  // namespace nodewright::controllers::provisioning::scheduling
