#include "cmd/status/model.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "api/core/pod_requests.h"
#include "api/karpenter/well_known.h"
#include "cloud/aws/pricing/ondemand_prices.h"
#include "cloud/well_known_labels.h"

namespace nodewright::cmd::status {
namespace {

using api::corev1::Node;
using api::corev1::Pod;
using api::corev1::ResourceList;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;

// Karpenter's disruption conditions on a NodeClaim, in the order the view lists them.
constexpr std::pair<const char*, const char*> kDisruptionConditions[] = {
    {api::karpenter::kDrifted, "drifted"},
    {"Empty", "empty"},
    {"Consolidatable", "consolidatable"}};

std::string labelOf(const std::map<std::string, std::string>& labels, const char* key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

int64_t milliOf(const ResourceList& list, const char* resource) {
  auto it = list.find(resource);
  return it == list.end() ? 0 : it->second.milliValue();
}

int64_t valueOf(const ResourceList& list, const char* resource) {
  auto it = list.find(resource);
  return it == list.end() ? 0 : it->second.value();
}

bool terminated(const Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool conditionTrue(const NodeClaim& claim, std::string_view type) {
  return std::any_of(claim.status.conditions.begin(), claim.status.conditions.end(),
                     [&](const api::Condition& c) { return c.type == type && c.status == "True"; });
}

// The claim behind a node: same provider ID, else the node name the claim recorded.
const NodeClaim* claimOf(const Node& node, const std::vector<NodeClaim>& claims) {
  for (const NodeClaim& claim : claims) {
    if (!node.spec.providerID.empty() && claim.status.providerID == node.spec.providerID) {
      return &claim;
    }
  }
  for (const NodeClaim& claim : claims) {
    if (!claim.status.nodeName.empty() && claim.status.nodeName == node.metadata.name) {
      return &claim;
    }
  }
  return nullptr;
}

std::vector<std::string> disruptionOf(const NodeClaim* claim, const Node* node) {
  std::vector<std::string> states;
  if (claim != nullptr) {
    for (const auto& [type, word] : kDisruptionConditions) {
      if (conditionTrue(*claim, type)) {
        states.emplace_back(word);
      }
    }
  }
  if (node != nullptr &&
      std::any_of(node->spec.taints.begin(), node->spec.taints.end(), [](const auto& taint) {
        return taint.key == api::karpenter::kDisruptedTaintKey;
      })) {
    states.emplace_back("disrupting");
  }
  if ((node != nullptr && node->metadata.deletionTimestamp) ||
      (claim != nullptr && claim->metadata.deletionTimestamp)) {
    states.emplace_back("deleting");
  }
  return states;
}

// Labels of the node, completed by the claim's (a claim carries them before its node exists).
std::string cloudLabel(const Node* node, const NodeClaim* claim, const char* key) {
  std::string value = node != nullptr ? labelOf(node->metadata.labels, key) : std::string();
  if (value.empty() && claim != nullptr) {
    value = labelOf(claim->metadata.labels, key);
  }
  return value;
}

void fillCloudFields(NodeRow& row, const Node* node, const NodeClaim* claim,
                     const PriceLookup& price) {
  row.nodePool = cloudLabel(node, claim, api::karpenter::kNodePoolLabel);
  row.instanceType = cloudLabel(node, claim, cloud::labels::kInstanceType);
  row.zone = cloudLabel(node, claim, cloud::labels::kZone);
  row.capacityType = cloudLabel(node, claim, cloud::labels::kCapacityType);
  if (!row.instanceType.empty() && price) {
    row.pricePerHour = price(row.instanceType, row.capacityType);
  }
  row.disruption = disruptionOf(claim, node);
}

struct PoolTotals {
  int nodes = 0;
  ResourceList capacity;
  double pricePerHour = 0;
};

void addToPool(std::map<std::string, PoolTotals>& pools, const NodeRow& row,
               const ResourceList& capacity) {
  if (row.nodePool.empty()) {
    return;
  }
  PoolTotals& totals = pools[row.nodePool];
  ++totals.nodes;
  for (const auto& [resource, quantity] : capacity) {
    totals.capacity[resource] += quantity;
  }
  totals.pricePerHour += row.pricePerHour.value_or(0);
}

PoolRow poolRow(const std::string& name, const PoolTotals& totals, const NodePool* pool) {
  PoolRow row;
  row.name = name;
  row.nodes = totals.nodes;
  row.cpuMilli = milliOf(totals.capacity, "cpu");
  row.memoryBytes = valueOf(totals.capacity, "memory");
  row.pricePerHour = totals.pricePerHour;
  if (pool != nullptr) {
    for (const auto& [resource, limit] : pool->spec.limits) {
      auto used = totals.capacity.find(resource);
      row.limits.push_back(
          {resource, used == totals.capacity.end() ? core::Quantity() : used->second, limit});
    }
  }
  return row;
}

core::Time futureSince(const std::vector<api::capi::CapiCondition>& conditions,
                       const api::ObjectMeta& meta, const api::capz::Future& future) {
  const api::capi::CapiCondition* latest = nullptr;
  for (const auto& c : conditions) {
    if (c.status == "False" && !c.lastTransitionTime.isZero() &&
        (latest == nullptr || latest->lastTransitionTime < c.lastTransitionTime)) {
      latest = &c;
    }
  }
  if (latest != nullptr) {
    return latest->lastTransitionTime;
  }
  if (future.type == "DELETE" && meta.deletionTimestamp) {
    return *meta.deletionTimestamp;
  }
  return meta.creationTimestamp;
}

template <class T>
CloudRow cloudRow(const T& object, const char* kind) {
  CloudRow row;
  row.kind = kind;
  row.ns = object.metadata.namespace_;
  row.name = object.metadata.name;
  row.ready = object.status.ready;
  row.created = object.metadata.creationTimestamp;
  for (const auto& c : object.status.conditions) {
    row.conditions.push_back({c.type, c.status, c.reason});
  }
  for (const auto& f : object.status.longRunningOperationStates) {
    row.futures.push_back(
        {f.type, f.serviceName, f.name, futureSince(object.status.conditions, object.metadata, f)});
  }
  return row;
}

template <class T>
void addCloudRows(std::vector<CloudRow>& out, std::vector<T> objects, const char* kind,
                  void (*decorate)(const T&, CloudRow&) = nullptr) {
  std::sort(objects.begin(), objects.end(), [](const T& a, const T& b) {
    return std::tie(a.metadata.namespace_, a.metadata.name) <
           std::tie(b.metadata.namespace_, b.metadata.name);
  });
  for (const T& object : objects) {
    out.push_back(cloudRow(object, kind));
    if (decorate != nullptr) {
      decorate(object, out.back());
    }
  }
}

}  // namespace

std::optional<double> builtinPrice(std::string_view instanceType, std::string_view capacityType) {
  if (capacityType == "spot") {
    return std::nullopt;
  }
  auto prices = cloud::aws::builtinOnDemandPrices();
  auto it = std::lower_bound(prices.begin(), prices.end(), instanceType,
                             [](const cloud::aws::OnDemandPrice& p, std::string_view type) {
                               return p.instanceType < type;
                             });
  if (it == prices.end() || it->instanceType != instanceType) {
    return std::nullopt;
  }
  return it->usdPerHour;
}

View buildView(const Snapshot& snapshot, const PriceLookup& price) {
  View view;
  std::map<std::string, ResourceList> requestedByNode;
  std::map<std::string, int> podsByNode;
  for (const Pod& pod : snapshot.pods) {
    if (terminated(pod)) {
      continue;
    }
    ++view.summary.pods;
    if (pod.spec.nodeName.empty()) {
      ++view.summary.pendingPods;
      continue;
    }
    ++podsByNode[pod.spec.nodeName];
    ResourceList& requested = requestedByNode[pod.spec.nodeName];
    for (const auto& [resource, quantity] : api::corev1::podRequests(pod)) {
      requested[resource] += quantity;
    }
  }

  std::map<std::string, PoolTotals> pools;
  std::vector<const NodeClaim*> joined;
  for (const Node& node : snapshot.nodes) {
    const NodeClaim* claim = claimOf(node, snapshot.nodeClaims);
    if (claim != nullptr) {
      joined.push_back(claim);
    }
    NodeRow row;
    row.name = node.metadata.name;
    fillCloudFields(row, &node, claim, price);
    const ResourceList& requested = requestedByNode[node.metadata.name];
    row.cpu = {milliOf(requested, "cpu"), milliOf(node.status.allocatable, "cpu")};
    row.memory = {valueOf(requested, "memory"), valueOf(node.status.allocatable, "memory")};
    row.pods = podsByNode[node.metadata.name];
    const auto* ready = api::corev1::findCondition(node.status, "Ready");
    row.readiness = ready != nullptr && ready->status == "True" ? "ready" : "not-ready";
    row.created = node.metadata.creationTimestamp;
    addToPool(pools, row, node.status.capacity);
    view.nodes.push_back(std::move(row));
  }
  view.summary.nodes = static_cast<int>(snapshot.nodes.size());
  for (const NodeClaim& claim : snapshot.nodeClaims) {
    if (std::find(joined.begin(), joined.end(), &claim) != joined.end()) {
      continue;
    }
    NodeRow row;
    row.name = claim.metadata.name;
    fillCloudFields(row, nullptr, &claim, price);
    row.cpu = {0, milliOf(claim.status.allocatable, "cpu")};
    row.memory = {0, valueOf(claim.status.allocatable, "memory")};
    row.readiness = "launching";
    row.created = claim.metadata.creationTimestamp;
    addToPool(pools, row, claim.status.capacity);
    ++view.summary.launching;
    view.nodes.push_back(std::move(row));
  }
  std::sort(view.nodes.begin(), view.nodes.end(), [](const NodeRow& a, const NodeRow& b) {
    return std::tie(a.nodePool, a.name) < std::tie(b.nodePool, b.name);
  });
  for (const NodeRow& row : view.nodes) {
    view.summary.costPerHour += row.pricePerHour.value_or(0);
  }

  for (const NodePool& pool : snapshot.nodePools) {
    pools.try_emplace(pool.metadata.name);
  }
  for (const auto& entry : pools) {
    const std::string& name = entry.first;
    auto pool = std::find_if(snapshot.nodePools.begin(), snapshot.nodePools.end(),
                             [&](const NodePool& p) { return p.metadata.name == name; });
    view.pools.push_back(
        poolRow(name, entry.second, pool == snapshot.nodePools.end() ? nullptr : &*pool));
  }

  addCloudRows(view.cloud, snapshot.azureClusters, "AzureCluster");
  addCloudRows(view.cloud, snapshot.azureMachinePools, "AzureMachinePool");
  addCloudRows<api::capz::AzureMachine>(view.cloud, snapshot.azureMachines, "AzureMachine",
                                        [](const api::capz::AzureMachine& machine, CloudRow& row) {
                                          row.vmState = machine.status.vmState.value_or("");
                                        });
  view.summary.cloudObjects = static_cast<int>(view.cloud.size());
  return view;
}

}  // namespace nodewright::cmd::status
