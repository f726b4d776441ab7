// Karpenter's scheduling benchmark scenario (kubernetes-sigs/karpenter
// pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go), reproduced: 400
// instance types, one NodePool, pods in five shares (plain, zone spread, hostname spread, zone
// self-affinity, hostname anti-affinity). Prints, per size,
//   scheduling pods=N seconds=S pods_per_second=R nodes=K cost_over_lp=C
// and the peak RSS after the largest run. Exits non-zero if any pod is left unscheduled.
// `--smoke` runs sizes 100 and 1000 only.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "controllers/provisioning/scheduling/scheduler.h"
#include "controllers/scheduling_mix.h"

namespace {

using nodewright::bench::lpBound;
using nodewright::bench::pods;
namespace sched = nodewright::controllers::provisioning::scheduling;
using nodewright::core::Quantity;
namespace corev1 = nodewright::api::corev1;

constexpr int kTypes = 400;

std::vector<nodewright::cloud::InstanceType> instanceTypes() {
  std::vector<nodewright::cloud::InstanceType> out;
  for (int i = 0; i < kTypes; ++i) {
    nodewright::cloud::InstanceType t;
    char name[32];
    std::snprintf(name, sizeof name, "bench.%dx", i + 1);
    t.name = name;
    t.labels = {{"node.kubernetes.io/instance-type", t.name},
                {"kubernetes.io/arch", "amd64"},
                {"kubernetes.io/os", "linux"},
                {"karpenter.k8s.aws/instance-cpu", std::to_string(i + 1)}};
    t.capacity = {
        {"cpu", Quantity::fromInt(i + 1)},
        {"memory", Quantity::fromInt(int64_t{2} * (i + 1) << 30, Quantity::Format::BinarySI)},
        {"pods", Quantity::fromInt(10 * (i + 1))}};
    const double price = 0.1 * (i + 1) + 0.1 * 2 * (i + 1);
    for (const char* zone : {"zone-a", "zone-b", "zone-c"}) {
      for (const char* ct : {"spot", "on-demand"}) {
        nodewright::cloud::Offering o;
        o.zone = zone;
        o.capacityType = ct;
        o.pricePerHour = price;
        t.offerings.push_back(o);
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

struct Run {
  sched::Results results;
  double seconds = 0;
};

Run run(const std::vector<corev1::Pod>& pods, const nodewright::api::karpenter::NodePool& pool,
        const std::vector<nodewright::cloud::InstanceType>& types) {
  sched::Input input;
  for (const auto& p : pods) {
    input.pods.push_back(&p);
  }
  sched::NodePoolOption option;
  option.pool = &pool;
  option.instanceTypes = &types;
  input.pools.push_back(option);
  auto start = std::chrono::steady_clock::now();
  Run r;
  r.results = sched::schedule(input);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
  std::vector<int> sizes =
      smoke ? std::vector<int>{100, 1000} : std::vector<int>{100, 1000, 5000, 10000, 20000};
  const auto types = instanceTypes();
  nodewright::api::karpenter::NodePool pool;
  pool.metadata.name = "default";
  bool ok = true;
  for (int n : sizes) {
    const auto all = pods(n, false);
    Run best;
    for (int rep = 0; rep < (n <= 5000 ? 3 : 1); ++rep) {
      Run r = run(all, pool, types);
      if (rep == 0 || r.seconds < best.seconds) {
        best = std::move(r);
      }
    }
    // Packing quality on the plain share alone.
    const auto plain = pods(n, true);
    Run p = run(plain, pool, types);
    double cpu = 0, mem = 0, cost = 0;
    for (const auto& pod : plain) {
      cpu += pod.spec.containers[0].resources.requests.at("cpu").asDouble();
      mem += pod.spec.containers[0].resources.requests.at("memory").asDouble();
    }
    for (const auto& c : p.results.newNodeClaims) {
      cost += c.cheapestPrice;
    }
    const size_t unscheduled = best.results.errors.size() + p.results.errors.size();
    std::printf(
        "scheduling pods=%d seconds=%.4f pods_per_second=%.0f nodes=%zu cost_over_lp=%.4f\n", n,
        best.seconds, n / best.seconds, best.results.newNodeClaims.size(),
        cost / lpBound(types, cpu, mem));
    if (unscheduled) {
      std::fprintf(stderr, "scheduling pods=%d unscheduled=%zu first=%s\n", n, unscheduled,
                   best.results.errors.empty() ? p.results.errors.begin()->second.c_str()
                                               : best.results.errors.begin()->second.c_str());
      ok = false;
    }
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("scheduling peak_rss_mib=%.1f\n", usage.ru_maxrss / 1024.0);
  return ok ? 0 : 1;
}
