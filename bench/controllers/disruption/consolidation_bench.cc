// Consolidation over a fragmented cluster (issue 24): N nodes of mixed types from
// ../shared/data/aws-instance-types.json (x86, no accelerators, 4 to 48 vCPUs, on-demand
// prices), one NodePool (WhenEmptyOrUnderutilized, consolidateAfter 0s, budget 100%), filled
// first-fit with pods of the scheduling benchmark's mix and then thinned at random to about 35%
// of the cluster's cpu, seed 42. Each pass is what the controller decides in one pass (the
// candidates and one decision, over the real scheduler); the bench then carries the decision out
// at once (the candidates go, their pods land where the simulation put them, a replacement is
// the decision's cheapest type) and runs the next pass, until no decision is left or 60 s of
// passes have run (5 s under `--smoke`). Prints, per size,
//   consolidation nodes=N pods=P pass_seconds=S passes=K cost_before=X cost_after=Y lp_bound=Z
// where S is the slowest pass, and then
//   consolidation nodes=N converged=0|1 mean_pass_seconds=M
// and the peak RSS at the end. lp_bound is the cheapest fractional cover of the remaining
// pods' cpu and memory together (two constraints, so the best of every type and every pair of
// types; bench/controllers/scheduling_mix.h). `--smoke` runs N=500 only, for at most 5 s of
// passes.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "api/karpenter/well_known.h"
#include "api/reflect/json.h"
#include "cloud/well_known_labels.h"
#include "controllers/disruption/budgets.h"
#include "controllers/disruption/consolidation.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/provisioning/pending_pods.h"
#include "controllers/scheduling_mix.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"

namespace {

namespace disruption = nodewright::controllers::disruption;
namespace karpenter = nodewright::api::karpenter;
namespace labels = nodewright::cloud::labels;
using nodewright::api::corev1::Node;
using nodewright::api::corev1::Pod;
using nodewright::cloud::InstanceType;
using nodewright::core::Quantity;

std::vector<InstanceType> catalog() {
  std::ifstream in(std::string(NW_SHARED_DIR) + "/data/aws-instance-types.json");
  const auto doc = nodewright::api::Json::parse(in, nullptr, false);
  std::vector<InstanceType> out;
  if (!doc.is_array()) {
    return out;
  }
  for (const auto& t : doc) {
    // The reference data writes null for what no source knew.
    auto number = [&](const char* key) {
      auto it = t.find(key);
      return it != t.end() && it->is_number() ? it->get<double>() : 0.0;
    };
    auto text = [&](const char* key) {
      auto it = t.find(key);
      return it != t.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const double price = number("onDemandPriceUSDPerHour");
    const int vcpu = static_cast<int>(number("vcpu"));
    auto metal = t.find("bareMetal");
    if (text("architecture") != "amd64" || number("gpuCount") != 0 ||
        number("acceleratorCount") != 0 || (metal != t.end() && metal->is_boolean() && *metal) ||
        price <= 0 || vcpu < 4 || vcpu > 48) {
      continue;
    }
    InstanceType type;
    type.name = text("name");
    type.labels = {{labels::kInstanceType, type.name},
                   {"kubernetes.io/arch", "amd64"},
                   {"kubernetes.io/os", "linux"}};
    type.capacity = {{"cpu", Quantity::fromInt(vcpu)},
                     {"memory", Quantity::fromInt(static_cast<int64_t>(number("memoryMiB")) << 20,
                                                  Quantity::Format::BinarySI)},
                     {"pods", Quantity::fromInt(110)}};
    nodewright::cloud::Offering offering;
    offering.zone = "zone-a";
    offering.capacityType = "on-demand";
    offering.pricePerHour = price;
    type.offerings = {offering};
    out.push_back(std::move(type));
  }
  return out;
}

struct Cluster {
  std::vector<karpenter::NodeClaim> claims;
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::map<std::string, const InstanceType*> typeOf;  // by node name
  int next = 0;

  void addNode(const InstanceType& type, nodewright::core::TimePoint since) {
    const std::string name = "n" + std::to_string(next++);
    karpenter::NodeClaim claim;
    claim.metadata.name = name;
    claim.metadata.uid = "uid-" + name;
    claim.metadata.creationTimestamp = nodewright::core::Time(since);
    claim.metadata.labels = {{karpenter::kNodePoolLabel, "default"}};
    claim.status.providerID = "fake:///zone-a/i-" + name;
    claim.status.nodeName = "node-" + name;
    for (const char* c : {karpenter::kLaunched, karpenter::kRegistered, karpenter::kInitialized,
                          karpenter::kReady}) {
      nodewright::controllers::nodeclaim::setCondition(claim.status.conditions, c, "True", c, "",
                                                       1, since);
    }
    Node node;
    node.metadata.name = "node-" + name;
    node.metadata.labels = {{karpenter::kNodePoolLabel, "default"},
                            {karpenter::kInitializedLabel, "true"},
                            {labels::kInstanceType, type.name},
                            {labels::kZone, "zone-a"},
                            {labels::kCapacityType, "on-demand"},
                            {"kubernetes.io/arch", "amd64"},
                            {"kubernetes.io/os", "linux"},
                            {"kubernetes.io/hostname", "node-" + name}};
    node.spec.providerID = claim.status.providerID;
    node.status.allocatable = type.allocatable();
    nodewright::api::corev1::NodeCondition ready;
    ready.type = "Ready";
    ready.status = "True";
    node.status.conditions.push_back(ready);
    typeOf[node.metadata.name] = &type;
    claims.push_back(std::move(claim));
    nodes.push_back(std::move(node));
  }

  double cost() const {
    double total = 0;
    for (const auto& [node, type] : typeOf) {
      total += type->cheapestAvailablePrice();
    }
    return total;
  }
};

template <class T>
std::vector<nodewright::api::Object> objects(const std::vector<T>& items) {
  std::vector<nodewright::api::Object> out;
  out.reserve(items.size());
  for (const T& item : items) {
    out.emplace_back(&nodewright::kube::kindOf<T>(), std::make_shared<T>(item));
  }
  return out;
}

double request(const Pod& pod, const char* resource) {
  return pod.spec.containers.front().resources.requests.at(resource).asDouble();
}

// N nodes, filled first-fit (one host-anti pod per node), then thinned to ~35% of the cpu.
Cluster fragmented(int n, const std::vector<InstanceType>& types,
                   nodewright::core::TimePoint since) {
  std::mt19937 rng(42);
  Cluster cluster;
  std::uniform_int_distribution<size_t> pick(0, types.size() - 1);
  double allocatable = 0;
  for (int i = 0; i < n; ++i) {
    cluster.addNode(types[pick(rng)], since);
    allocatable += cluster.nodes.back().status.allocatable.at("cpu").asDouble();
  }
  // The mix in pods of ~0.67 cpu: enough to fill every node to about 90%.
  const int wanted = static_cast<int>(allocatable * 0.9 / 0.67);
  std::vector<Pod> mix = nodewright::bench::pods(wanted, false, 42);
  std::vector<double> freeCpu, freeMem;
  std::vector<bool> hasAnti;
  for (const Node& node : cluster.nodes) {
    freeCpu.push_back(node.status.allocatable.at("cpu").asDouble());
    freeMem.push_back(node.status.allocatable.at("memory").asDouble());
    hasAnti.push_back(false);
  }
  size_t cursor = 0;
  for (Pod& pod : mix) {
    const bool anti = pod.metadata.labels["app"] == "host-anti";
    for (size_t tries = 0; tries < cluster.nodes.size(); ++tries) {
      const size_t i = (cursor + tries) % cluster.nodes.size();
      if (freeCpu[i] >= request(pod, "cpu") && freeMem[i] >= request(pod, "memory") &&
          !(anti && hasAnti[i])) {
        freeCpu[i] -= request(pod, "cpu");
        freeMem[i] -= request(pod, "memory");
        hasAnti[i] = hasAnti[i] || anti;
        pod.spec.nodeName = cluster.nodes[i].metadata.name;
        pod.metadata.uid = "uid-" + pod.metadata.name;
        pod.status.phase = "Running";
        cluster.pods.push_back(pod);
        cursor = i;
        break;
      }
    }
  }
  std::shuffle(cluster.pods.begin(), cluster.pods.end(), rng);
  double cpu = 0;
  for (const Pod& pod : cluster.pods) {
    cpu += request(pod, "cpu");
  }
  while (!cluster.pods.empty() && cpu > 0.35 * allocatable) {
    cpu -= request(cluster.pods.back(), "cpu");
    cluster.pods.pop_back();
  }
  return cluster;
}

// Carries `decision` out at once.
void apply(Cluster& cluster, const disruption::Decision& decision,
           const std::vector<InstanceType>& types, nodewright::core::TimePoint now) {
  std::set<std::string> gone;
  for (const auto& c : decision.candidates) {
    gone.insert(c.view->node->metadata.name);
  }
  std::string replacement;
  if (!decision.isDelete()) {
    for (const auto& t : types) {
      if (t.name == decision.replacementTypes.front()) {
        cluster.addNode(t, now);
        replacement = cluster.nodes.back().metadata.name;
      }
    }
  }
  for (Pod& pod : cluster.pods) {
    if (!gone.count(pod.spec.nodeName)) {
      continue;
    }
    auto move = decision.moves.find(nodewright::controllers::provisioning::podKey(pod));
    pod.spec.nodeName = move == decision.moves.end() || move->second.starts_with("a new ")
                            ? replacement
                            : move->second;
  }
  std::erase_if(cluster.claims, [&](const auto& c) { return gone.count(c.status.nodeName); });
  std::erase_if(cluster.nodes, [&](const auto& n) { return gone.count(n.metadata.name); });
  for (const auto& node : gone) {
    cluster.typeOf.erase(node);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
  const std::vector<int> sizes = smoke ? std::vector<int>{500} : std::vector<int>{500, 2000, 5000};
  const std::vector<InstanceType> types = catalog();
  if (types.empty()) {
    std::fprintf(stderr, "consolidation: no instance types in %s/data\n", NW_SHARED_DIR);
    return 1;
  }
  nodewright::core::FakeClock clock(nodewright::core::systemClock().now());
  karpenter::NodePool pool;
  pool.metadata.name = "default";
  pool.spec.disruption.consolidationPolicy = "WhenEmptyOrUnderutilized";
  pool.spec.disruption.consolidateAfter = nodewright::core::Duration(std::chrono::seconds(0));
  disruption::TypesByPool byPool{{"default", types}};
  for (int n : sizes) {
    Cluster cluster = fragmented(n, types, clock.now() - std::chrono::hours(1));
    const size_t podCount = cluster.pods.size();
    const double before = cluster.cost();
    double slowest = 0, allPasses = 0;
    int passes = 0;
    bool converged = false;
    nodewright::kube::Cache pods, nodes, claims, pools, daemonSets;
    pools.replace(objects(std::vector<karpenter::NodePool>{pool}));
    nodewright::controllers::provisioning::ClusterCaches caches;
    caches.pods = &pods;
    caches.nodes = &nodes;
    caches.nodeClaims = &claims;
    caches.nodePools = &pools;
    caches.daemonSets = &daemonSets;
    while (allPasses < (smoke ? 5 : 60)) {
      pods.replace(objects(cluster.pods));
      nodes.replace(objects(cluster.nodes));
      claims.replace(objects(cluster.claims));
      const auto start = std::chrono::steady_clock::now();
      const disruption::ClusterView view(caches);
      disruption::CandidateInput input;
      input.view = &view;
      input.caches = &caches;
      input.types = &byPool;
      input.now = clock.now();
      const auto candidates = disruption::findConsolidationCandidates(input);
      disruption::Consolidator consolidator(caches, view, byPool, clock, {});
      const auto decision =
          consolidator.decide(candidates, [](const std::string&, const std::string&) {
            return 1 << 30;  // budget 100%: the algorithm, not the budget, is measured
          });
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      slowest = std::max(slowest, seconds);
      allPasses += seconds;
      ++passes;
      if (!decision) {
        converged = true;
        break;
      }
      apply(cluster, *decision, types, clock.now());
    }
    double cpu = 0, mem = 0;
    for (const Pod& pod : cluster.pods) {
      cpu += request(pod, "cpu");
      mem += request(pod, "memory");
    }
    std::printf(
        "consolidation nodes=%d pods=%zu pass_seconds=%.4f passes=%d cost_before=%.4f "
        "cost_after=%.4f lp_bound=%.4f\n",
        n, podCount, slowest, passes, before, cluster.cost(),
        nodewright::bench::lpBound(types, cpu, mem));
    std::printf("consolidation nodes=%d converged=%d mean_pass_seconds=%.4f\n", n,
                converged ? 1 : 0, allPasses / passes);
    std::fflush(stdout);
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("consolidation peak_rss_mib=%.1f\n", usage.ru_maxrss / 1024.0);
  return 0;
}
