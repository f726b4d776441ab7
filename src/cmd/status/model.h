#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "api/capz/azure_machine_pool.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "core/quantity.h"
#include "core/time.h"

// What `nodewright status` shows, as plain rows: built from the objects of one moment, with no
// I/O and no clock, so the same objects always give the same view. Ages are left as creation
// times; the renderer subtracts them from its `now`.
namespace nodewright::cmd::status {

// The objects of one moment, as the informers' caches hold them.
struct Snapshot {
  std::vector<api::corev1::Node> nodes;
  std::vector<api::karpenter::NodeClaim> nodeClaims;
  std::vector<api::karpenter::NodePool> nodePools;
  std::vector<api::corev1::Pod> pods;
  std::vector<api::capz::AzureCluster> azureClusters;
  std::vector<api::capz::AzureMachine> azureMachines;
  std::vector<api::capz::AzureMachinePool> azureMachinePools;
};

// USD per hour of an instance type bought as `capacityType`; nullopt when unknown.
using PriceLookup = std::function<std::optional<double>(std::string_view instanceType,
                                                        std::string_view capacityType)>;

// On-demand prices from the AWS provider's built-in table; spot and anything else has no
// built-in price (spot prices need DescribeSpotPriceHistory), so nullopt.
std::optional<double> builtinPrice(std::string_view instanceType, std::string_view capacityType);

// Requested against allocatable, in milli-CPU or bytes.
struct Usage {
  int64_t requested = 0;
  int64_t allocatable = 0;
};

struct NodeRow {
  std::string name;  // the Node's, or the NodeClaim's while it has no Node
  std::string nodePool;
  std::string instanceType;
  std::string zone;
  std::string capacityType;
  std::optional<double> pricePerHour;
  Usage cpu;     // milli-CPU
  Usage memory;  // bytes
  int pods = 0;
  // "ready", "not-ready" or "launching" (a NodeClaim with no Node yet).
  std::string readiness;
  // In order: "drifted", "empty", "consolidatable", "disrupting" (taint), "deleting".
  std::vector<std::string> disruption;
  core::Time created;
};

// One of a NodePool's spec.limits against the capacity of its nodes, as Karpenter counts it.
struct LimitUse {
  std::string resource;
  core::Quantity used;
  core::Quantity limit;
};

struct PoolRow {
  std::string name;
  int nodes = 0;
  int64_t cpuMilli = 0;     // capacity of its nodes
  int64_t memoryBytes = 0;  // capacity of its nodes
  double pricePerHour = 0;  // of the nodes with a known price
  std::vector<LimitUse> limits;
};

struct ConditionCell {
  std::string type;
  std::string status;
  std::string reason;
};

// A long-running Azure operation parked in status. Futures carry no timestamp, so `since` is
// the lastTransitionTime of the condition most likely waiting on it (the latest False one),
// else the object's deletion or creation time.
struct FutureCell {
  std::string type;  // PUT, PATCH, DELETE
  std::string serviceName;
  std::string name;
  core::Time since;
};

struct CloudRow {
  std::string kind;  // AzureCluster, AzureMachine, AzureMachinePool
  std::string ns;
  std::string name;
  bool ready = false;
  std::string vmState;  // AzureMachine only; empty when unknown
  std::vector<ConditionCell> conditions;
  std::vector<FutureCell> futures;
  core::Time created;
};

struct Summary {
  int nodes = 0;      // registered Nodes
  int launching = 0;  // NodeClaims without a Node
  int pods = 0;       // not terminated
  int pendingPods = 0;
  double costPerHour = 0;  // of the rows with a known price
  int cloudObjects = 0;
};

struct View {
  Summary summary;
  std::vector<NodeRow> nodes;   // by NodePool, then name
  std::vector<PoolRow> pools;   // by name
  std::vector<CloudRow> cloud;  // clusters, machine pools, machines; each by namespace/name
};

View buildView(const Snapshot& snapshot, const PriceLookup& price);

}  // namespace nodewright::cmd::status
