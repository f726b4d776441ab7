#include "controllers/provisioning/scheduling/pass.h"

#include <algorithm>
#include <deque>
#include <numeric>

#include "api/karpenter/well_known.h"
#include "cloud/well_known_labels.h"

namespace nodewright::controllers::provisioning::scheduling {
namespace {

// Taints a node carries only while it starts or while its controllers catch up; Karpenter
// ignores them when simulating pods onto it.
bool ephemeral(const api::corev1::Taint& t) {
  return t.key == "node.kubernetes.io/not-ready" || t.key == "node.kubernetes.io/unreachable" ||
         t.key == "node.cloudprovider.kubernetes.io/uninitialized" ||
         t.key == api::karpenter::kUnregisteredTaintKey;
}

std::string hostnameOf(const ExistingNode& n) {
  auto it = n.labels.find(Topology::kHostname);
  return it != n.labels.end() ? it->second : n.name;
}

}  // namespace

Results schedule(const Input& input, const Options& options) {
  return Pass(input, options).run();
}

Pass::Pass(const Input& input, const Options& options) : input_(input), options_(options) {}

void Pass::index() {
  // Every resource name first, so all vectors of the pass share one layout.
  for (const auto& p : input_.pools) {
    if (p.instanceTypes) {
      for (const auto& t : *p.instanceTypes) {
        resources_.intern(t.capacity);
      }
    }
    if (p.pool) {
      resources_.intern(p.pool->spec.limits);
    }
  }
  for (const auto* pod : input_.pods) {
    requests_.push_back(resources_.vec(podRequests(*pod)));
  }
  std::vector<Vec> daemonRequests;
  for (const auto* ds : input_.daemonSetPods) {
    daemonRequests.push_back(resources_.vec(podRequests(*ds)));
  }
  for (const auto& n : input_.nodes) {
    resources_.intern(n.allocatable);
    resources_.intern(n.requested);
  }
  const size_t slots = resources_.size();
  for (Vec& v : requests_) {
    v.resize(slots, 0);
  }

  // NodePools by weight, heaviest first, then by name (Karpenter's order).
  std::vector<const NodePoolOption*> pools;
  for (const auto& p : input_.pools) {
    if (p.pool && p.instanceTypes && !p.pool->metadata.deletionTimestamp) {
      pools.push_back(&p);
    }
  }
  std::stable_sort(pools.begin(), pools.end(), [](const auto* a, const auto* b) {
    int32_t wa = a->pool->spec.weight.value_or(0), wb = b->pool->spec.weight.value_or(0);
    return wa != wb ? wa > wb : a->pool->metadata.name < b->pool->metadata.name;
  });
  for (const auto* p : pools) {
    auto catalog =
        std::make_unique<PoolCatalog>(*p->pool, *p->instanceTypes, p->inUse, resources_, reqs_);
    catalog->daemonOverhead.assign(slots, 0);
    for (size_t i = 0; i < input_.daemonSetPods.size(); ++i) {
      if (daemonRuns(*input_.daemonSetPods[i], *catalog)) {
        addTo(catalog->daemonOverhead, daemonRequests[i]);
      }
    }
    pools_.push_back(std::move(catalog));
  }

  for (const auto* pod : input_.pods) {
    class_.push_back(classes_.classOf(*pod));
  }
  smallestPod_.assign(slots, 0);
  for (size_t i = 0; i < requests_.size(); ++i) {
    for (size_t s = 0; s < slots; ++s) {
      smallestPod_[s] = i == 0 ? requests_[i][s] : std::min(smallestPod_[s], requests_[i][s]);
    }
  }

  for (const auto& n : input_.nodes) {
    NodeState state;
    state.node = &n;
    state.remaining = resources_.vec(n.allocatable);
    Vec used = resources_.vec(n.requested);
    state.remaining.resize(slots, 0);
    for (size_t s = 0; s < used.size(); ++s) {
      state.remaining[s] -= used[s];
    }
    for (const auto& t : n.taints) {
      if (!ephemeral(t)) {
        state.taints.push_back(t);
      }
    }
    nodes_.push_back(std::move(state));
  }
}

bool Pass::daemonRuns(const api::corev1::Pod& ds, const PoolCatalog& pool) {
  for (const auto& taint : pool.taints()) {
    if (!api::corev1::tolerates(ds.spec.tolerations, taint)) {
      return false;
    }
  }
  Requirements reqs = Requirements::fromSelector(ds.spec.nodeSelector);
  const auto& a = ds.spec.affinity;
  if (a && a->nodeAffinity && a->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
    const auto& terms =
        a->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms;
    if (!terms.empty()) {
      reqs.add(Requirements::fromTerm(terms[0]));
    }
  }
  return !reqs_.get(pool.requirements()).compatible(reqs).has_value();
}

void Pass::seedTopology() {
  hostKey_ = topology_.key(Topology::kHostname);
  // Pods already on nodes with required anti-affinity keep matching pods away.
  std::vector<std::pair<size_t, std::vector<int>>> owners;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    for (const auto* pod : nodes_[n].node->pods) {
      std::vector<int> groups = classes_.antiAffinityGroups(*pod);
      if (!groups.empty()) {
        owners.emplace_back(n, std::move(groups));
      }
    }
  }
  for (size_t g = 0; g < topology_.groupCount(); ++g) {
    int key = topology_.keyOf(static_cast<int>(g));
    if (topology_.isHostname(key)) {
      continue;
    }
    for (auto& pool : pools_) {
      for (const auto& d : pool->domains(topology_.keyName(key))) {
        topology_.addUniverse(key, d);
      }
    }
    for (const auto& n : input_.nodes) {
      auto it = n.labels.find(topology_.keyName(key));
      if (it != n.labels.end()) {
        topology_.addUniverse(key, it->second);
      }
    }
  }
  classes_.resolveSelectors();

  std::vector<int> keys;
  for (size_t g = 0; g < topology_.groupCount(); ++g) {
    keys.push_back(topology_.keyOf(static_cast<int>(g)));
  }
  keys.push_back(hostKey_);
  int maxKey = *std::max_element(keys.begin(), keys.end());
  for (auto& n : nodes_) {
    n.domains.assign(maxKey + 1, {});
    for (int key : keys) {
      if (key == hostKey_) {
        n.domains[key] = {topology_.domain(key, hostnameOf(*n.node))};
      } else if (auto it = n.node->labels.find(topology_.keyName(key));
                 it != n.node->labels.end()) {
        n.domains[key] = {topology_.domain(key, it->second)};
      }
    }
  }
  for (const auto& n : nodes_) {
    for (const auto* pod : n.node->pods) {
      for (size_t g = 0; g < topology_.groupCount(); ++g) {
        const auto& d = n.domains[topology_.keyOf(static_cast<int>(g))];
        if (!d.empty() && topology_.selects(static_cast<int>(g), pod->metadata.namespace_,
                                            pod->metadata.labels)) {
          topology_.count(static_cast<int>(g), d[0]);
        }
      }
    }
  }
  for (const auto& [n, groups] : owners) {
    for (int g : groups) {
      for (int d : nodes_[n].domains[topology_.keyOf(g)]) {
        topology_.countOwner(g, d);
      }
    }
  }
}

// Karpenter's order (cpu, then memory, descending) for first-fit-decreasing, split into the
// pods heavier in cpu than in memory (relative to the batch) and the others, then zipped so
// that every stretch of the order has about the batch's cpu:memory mix. Claims fill from
// stretches of the order, so each ends up balanced instead of the first ones full on cpu with
// memory to spare and the last ones the reverse.
std::vector<size_t> Pass::order() const {
  const size_t cpu = ResourceIndex::kCpuSlot, mem = ResourceIndex::kMemorySlot;
  std::vector<size_t> all(requests_.size());
  std::iota(all.begin(), all.end(), 0);
  std::stable_sort(all.begin(), all.end(), [&](size_t a, size_t b) {
    const Vec &ra = requests_[a], &rb = requests_[b];
    return ra[cpu] != rb[cpu] ? ra[cpu] > rb[cpu] : ra[mem] > rb[mem];
  });
  double totalCpu = 0, totalMem = 0;
  for (const Vec& r : requests_) {
    totalCpu += static_cast<double>(r[cpu]);
    totalMem += static_cast<double>(r[mem]);
  }
  if (totalCpu <= 0 || totalMem <= 0) {
    return all;
  }
  std::vector<size_t> cpuHeavy, memHeavy;
  for (size_t i : all) {
    bool heavy = static_cast<double>(requests_[i][cpu]) / totalCpu >
                 static_cast<double>(requests_[i][mem]) / totalMem;
    (heavy ? cpuHeavy : memHeavy).push_back(i);
  }
  std::vector<size_t> out;
  out.reserve(all.size());
  double usedCpu = 0, usedMem = 0;
  size_t a = 0, b = 0;
  while (a < cpuHeavy.size() || b < memHeavy.size()) {
    bool takeCpu =
        b == memHeavy.size() || (a < cpuHeavy.size() && usedCpu / totalCpu <= usedMem / totalMem);
    size_t i = takeCpu ? cpuHeavy[a++] : memHeavy[b++];
    usedCpu += static_cast<double>(requests_[i][cpu]);
    usedMem += static_cast<double>(requests_[i][mem]);
    out.push_back(i);
  }
  return out;
}

Results Pass::run() {
  index();
  seedTopology();
  std::deque<size_t> queue;
  for (size_t i : order()) {
    queue.push_back(i);
  }
  // Karpenter's queue: a pod that fails goes to the back; the pass ends when every pod left
  // has failed since the last success or relaxation.
  std::vector<std::pair<uint64_t, size_t>> lastLen(requests_.size(), {0, 0});
  uint64_t generation = 1;
  std::vector<std::string> errors(requests_.size());
  while (!queue.empty()) {
    size_t i = queue.front();
    if (lastLen[i].first == generation && lastLen[i].second == queue.size()) {
      break;
    }
    queue.pop_front();
    PodClass& c = *class_[i];
    std::string why;
    if (placeOnNode(i, c) || placeOnClaim(i, c) || placeOnNewClaim(i, c, why)) {
      ++generation;
      continue;
    }
    errors[i] = std::move(why);
    queue.push_back(i);
    if (PodClass* relaxed = classes_.relax(c)) {
      class_[i] = relaxed;
      ++generation;
    } else {
      lastLen[i] = {generation, queue.size()};
    }
  }
  for (size_t i : queue) {
    results_.errors[podKey(i)] = errors[i].empty() ? "no nodepool can launch nodes" : errors[i];
  }
  for (const Claim& claim : claims_) {
    results_.newNodeClaims.push_back(toNodeClaim(claim));
  }
  return std::move(results_);
}

NewNodeClaim Pass::toNodeClaim(const Claim& claim) {
  PoolCatalog& pool = *pools_[claim.pool];
  NewNodeClaim out;
  out.nodePool = pool.name();
  out.pods = claim.pods;
  out.requests = resources_.list(claim.requests);
  for (size_t t : pool.byPrice(claim.reqs)) {
    if (claim.types.test(t)) {
      if (out.instanceTypes.empty()) {
        out.cheapestPrice = pool.price(t, claim.reqs);
      }
      out.instanceTypes.push_back(pool.type(t).name);
      if (options_.maxInstanceTypesPerClaim &&
          out.instanceTypes.size() >= *options_.maxInstanceTypesPerClaim) {
        break;
      }
    }
  }
  std::optional<int32_t> typeMinValues;
  for (const auto& [key, r] : reqs_.get(claim.reqs).entries()) {
    if (key == cloud::labels::kInstanceType) {
      typeMinValues = r.minValues;
      continue;
    }
    r.appendTo(key, out.requirements);
  }
  api::karpenter::NodeSelectorRequirementWithMinValues types;
  types.key = cloud::labels::kInstanceType;
  types.operator_ = api::kOpIn;
  types.values = out.instanceTypes;
  types.minValues = typeMinValues;
  out.requirements.push_back(std::move(types));
  return out;
}

std::string Pass::podKey(size_t pod) const {
  const auto& m = input_.pods[pod]->metadata;
  return m.namespace_ + "/" + m.name;
}

}  // namespace nodewright::controllers::provisioning::scheduling
