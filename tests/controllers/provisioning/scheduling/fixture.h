#pragma once

#include <deque>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "controllers/provisioning/scheduling/scheduler.h"

// Builders for scheduler tests: instance types, NodePools and pods built directly, and a
// fixture that owns them for the duration of a case (the scheduler takes pointers).
namespace nodewright::controllers::provisioning::scheduling::testing {

using core::Quantity;
namespace corev1 = api::corev1;

inline Quantity q(const char* text) {
  return *Quantity::parse(text);
}

// A type with `cpu` cores, `memGi` GiB and `pods` max pods, offered in `zones` (spot and
// on-demand) at `price` (spot at 70% of it).
inline cloud::InstanceType instanceType(const std::string& name, int cpu, int memGi, int pods,
                                        double price,
                                        std::vector<std::string> zones = {"zone-a", "zone-b",
                                                                          "zone-c"}) {
  cloud::InstanceType t;
  t.name = name;
  t.labels = {{"node.kubernetes.io/instance-type", name},
              {"kubernetes.io/arch", "amd64"},
              {"kubernetes.io/os", "linux"},
              {"karpenter.k8s.aws/instance-family", name.substr(0, name.find('.'))},
              {"karpenter.k8s.aws/instance-cpu", std::to_string(cpu)}};
  t.capacity = {{"cpu", Quantity::fromInt(cpu)},
                {"memory", Quantity::fromInt(int64_t{memGi} << 30, Quantity::Format::BinarySI)},
                {"pods", Quantity::fromInt(pods)}};
  for (const auto& z : zones) {
    cloud::Offering od;
    od.zone = z;
    od.capacityType = "on-demand";
    od.pricePerHour = price;
    t.offerings.push_back(od);
    cloud::Offering spot = od;
    spot.capacityType = "spot";
    spot.pricePerHour = price * 0.7;
    t.offerings.push_back(spot);
  }
  return t;
}

inline api::karpenter::NodePool nodePool(const std::string& name) {
  api::karpenter::NodePool p;
  p.metadata.name = name;
  return p;
}

inline api::karpenter::NodeSelectorRequirementWithMinValues requirement(
    const std::string& key, const std::string& op, std::vector<std::string> values) {
  api::karpenter::NodeSelectorRequirementWithMinValues r;
  r.key = key;
  r.operator_ = op;
  r.values = std::move(values);
  return r;
}

inline corev1::Pod pod(const std::string& name, const char* cpu, const char* memory,
                       api::Labels labels = {}) {
  corev1::Pod p;
  p.metadata.namespace_ = "default";
  p.metadata.name = name;
  p.metadata.labels = std::move(labels);
  corev1::Container c;
  c.name = "app";
  c.resources.requests = {{"cpu", q(cpu)}, {"memory", q(memory)}};
  p.spec.containers.push_back(c);
  return p;
}

inline api::LabelSelector selector(const std::string& key, const std::string& value) {
  api::LabelSelector s;
  s.matchLabels = {{key, value}};
  return s;
}

inline corev1::TopologySpreadConstraint spread(const std::string& key, int maxSkew,
                                               const std::string& app,
                                               const char* when = "DoNotSchedule") {
  corev1::TopologySpreadConstraint c;
  c.maxSkew = maxSkew;
  c.topologyKey = key;
  c.whenUnsatisfiable = when;
  c.labelSelector = selector("app", app);
  return c;
}

inline corev1::PodAffinityTerm affinityTerm(const std::string& key, const std::string& app) {
  corev1::PodAffinityTerm t;
  t.topologyKey = key;
  t.labelSelector = selector("app", app);
  return t;
}

inline constexpr const char* kZone = "topology.kubernetes.io/zone";
inline constexpr const char* kHostname = "kubernetes.io/hostname";

class SchedulerTest : public ::testing::Test {
 public:
  // How many pods of each claim, in claim order.
  static std::vector<size_t> podCounts(const Results& r) {
    std::vector<size_t> out;
    for (const auto& c : r.newNodeClaims) {
      out.push_back(c.pods.size());
    }
    return out;
  }
  // The single value a claim's requirements give `key`, or "" when not exactly one.
  static std::string single(const NewNodeClaim& c, const std::string& key) {
    for (const auto& r : c.requirements) {
      if (r.key == key && r.operator_ == "In" && r.values.size() == 1) {
        return r.values[0];
      }
    }
    return "";
  }
  static bool holds(const NewNodeClaim& c, const std::string& podName) {
    for (const auto* p : c.pods) {
      if (p->metadata.name == podName) {
        return true;
      }
    }
    return false;
  }

 protected:
  // Stable addresses: the input points into these.
  corev1::Pod& addPod(corev1::Pod p) {
    pods_.push_back(std::move(p));
    return pods_.back();
  }
  void addPods(int n, const std::string& prefix, const char* cpu, const char* memory,
               api::Labels labels = {}) {
    for (int i = 0; i < n; ++i) {
      addPod(pod(prefix + std::to_string(i), cpu, memory, labels));
    }
  }
  api::karpenter::NodePool& addPool(api::karpenter::NodePool p,
                                    std::vector<cloud::InstanceType> types) {
    pools_.push_back(std::move(p));
    types_.push_back(std::move(types));
    return pools_.back();
  }
  corev1::Pod& addDaemonSet(corev1::Pod p) {
    daemons_.push_back(std::move(p));
    return daemons_.back();
  }

  Results run(Options options = {}) {
    Input input;
    for (const auto& p : pods_) {
      input.pods.push_back(&p);
    }
    for (size_t i = 0; i < pools_.size(); ++i) {
      NodePoolOption o;
      o.pool = &pools_[i];
      o.instanceTypes = &types_[i];
      auto it = inUse_.find(pools_[i].metadata.name);
      if (it != inUse_.end()) {
        o.inUse = it->second;
      }
      input.pools.push_back(o);
    }
    for (const auto& d : daemons_) {
      input.daemonSetPods.push_back(&d);
    }
    input.nodes = nodes_;
    return schedule(input, options);
  }

  std::deque<corev1::Pod> pods_;
  std::deque<corev1::Pod> daemons_;
  std::deque<api::karpenter::NodePool> pools_;
  std::deque<std::vector<cloud::InstanceType>> types_;
  std::map<std::string, cloud::ResourceList> inUse_;
  std::vector<ExistingNode> nodes_;
};

}  // namespace nodewright::controllers::provisioning::scheduling::testing
