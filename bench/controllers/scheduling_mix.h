#pragma once

// What the scheduling and consolidation benchmarks share: the scheduling benchmark's pod mix
// (Karpenter's scheduling_benchmark_test.go shares) and the LP lower bound on the cost of
// holding some cpu and memory.

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/core/pod.h"
#include "cloud/instance_type.h"

namespace nodewright::bench {

namespace corev1 = nodewright::api::corev1;
using nodewright::core::Quantity;

inline corev1::PodAffinityTerm term(const std::string& app, const char* key) {
  corev1::PodAffinityTerm t;
  nodewright::api::LabelSelector s;
  s.matchLabels = {{"app", app}};
  t.labelSelector = s;
  t.topologyKey = key;
  return t;
}

// Five equal shares; cpu from {100, 250, 500, 1000, 1500}m, memory 100Mi..4Gi.
inline std::vector<corev1::Pod> pods(int n, bool plainOnly, unsigned seed = 42) {
  std::mt19937 rng(seed);
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
inline double lpBound(const std::vector<nodewright::cloud::InstanceType>& types, double cpu,
                      double mem) {
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

}  // namespace nodewright::bench
