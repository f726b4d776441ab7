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

namespace {

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

corev1::PodAffinityTerm term(const std::string& app, const char* key) {
  corev1::PodAffinityTerm t;
  nodewright::api::LabelSelector s;
  s.matchLabels = {{"app", app}};
  t.labelSelector = s;
  t.topologyKey = key;
  return t;
}

// Five equal shares; cpu from {100, 250, 500, 1000, 1500}m, memory 100Mi..4Gi.
std::vector<corev1::Pod> pods(int n, bool plainOnly) {
  std::mt19937 rng(42);
  const int64_t cpus[] = {100, 250, 500, 1000, 1500};
  std::uniform_int_distribution<int> cpu(0, 4);
  std::uniform_int_distribution<int64_t> memMi(100, 4096);
  const char* apps[] = {"plain", "zone-spread", "host-spread", "zone-affinity", "host-anti"};
  std::vector<corev1::Pod> out;
  for (int i = 0; i < n; ++i) {
    const int share = i * 5 / n;
    corev1::Pod p;
    p.metadata.namespace_ = "default";
    p.metadata.name = std::string(apps[share]) + "-" + std::to_string(i);
    p.metadata.labels = {{"app", apps[share]}};
    corev1::Container c;
    c.name = "app";
    c.resources.requests = {
        {"cpu", Quantity::fromMilli(cpus[cpu(rng)])},
        {"memory", Quantity::fromInt(memMi(rng) << 20, Quantity::Format::BinarySI)}};
    p.spec.containers.push_back(c);
    if (plainOnly && share != 0) {
      continue;
    }
    if (share == 1 || share == 2) {
      corev1::TopologySpreadConstraint tsc;
      tsc.maxSkew = 1;
      tsc.topologyKey = share == 1 ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname";
      tsc.whenUnsatisfiable = "DoNotSchedule";
      nodewright::api::LabelSelector s;
      s.matchLabels = {{"app", apps[share]}};
      tsc.labelSelector = s;
      p.spec.topologySpreadConstraints.push_back(tsc);
    } else if (share == 3) {
      p.spec.affinity.emplace()
          .podAffinity.emplace()
          .requiredDuringSchedulingIgnoredDuringExecution.push_back(
              term(apps[share], "topology.kubernetes.io/zone"));
    } else if (share == 4) {
      p.spec.affinity.emplace()
          .podAntiAffinity.emplace()
          .requiredDuringSchedulingIgnoredDuringExecution.push_back(
              term(apps[share], "kubernetes.io/hostname"));
    }
    out.push_back(std::move(p));
  }
  return out;
}

// The cheapest fractional cover of total cpu and memory: min sum(price_t x_t) with
// sum(cpu_t x_t) >= C and sum(mem_t x_t) >= M. Two constraints, so an optimum uses at most two
// types: try each type alone and each pair.
double lpBound(const std::vector<nodewright::cloud::InstanceType>& types, double cpu, double mem) {
  struct T {
    double c, m, p;
  };
  std::vector<T> ts;
  for (const auto& t : types) {
    ts.push_back({t.allocatable("cpu").asDouble(), t.allocatable("memory").asDouble(),
                  t.cheapestAvailablePrice()});
  }
  double best = std::numeric_limits<double>::infinity();
  for (const T& a : ts) {
    best = std::min(best, a.p * std::max(cpu / a.c, mem / a.m));
  }
  for (size_t i = 0; i < ts.size(); ++i) {
    for (size_t j = i + 1; j < ts.size(); ++j) {
      const T &a = ts[i], &b = ts[j];
      const double det = a.c * b.m - b.c * a.m;
      if (det == 0) {
        continue;
      }
      const double x = (cpu * b.m - b.c * mem) / det;
      const double y = (a.c * mem - cpu * a.m) / det;
      if (x >= 0 && y >= 0) {
        best = std::min(best, a.p * x + b.p * y);
      }
    }
  }
  return best;
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
