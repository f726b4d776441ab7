#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <stop_token>
#include <string>
#include <vector>

#include "cmd/up/fresh_cost.h"
#include "core/error.h"
#include "kube/client.h"

// `nodewright up --demo`: applies the manifests of examples/ against the running system and
// narrates what the controllers do with them, one line per step. Two stories run side by side:
// Karpenter (a NodePool whose EC2NodeClass sets network interfaces, a workload that needs nodes,
// then a node-class change that drifts them) and Cluster API on Azure (a Cluster with a
// MachineDeployment of 20 machines).
namespace nodewright::cmd::up {

struct DemoOptions {
  std::filesystem::path examplesDir;  // the repository's examples/
  std::chrono::milliseconds stepTimeout{std::chrono::minutes(10)};
  // Called from the stories' threads, one complete line at a time.
  std::function<void(const std::string&)> narrate;
  // Long-running Azure operations the cloud has finished so far; unset: no Azure story.
  std::function<uint64_t()> azureOperationsCompleted;
  // What provisioning the demo pool's pods from nothing would cost (fresh_cost.h); unset: the
  // consolidation step is not measured against it.
  std::function<core::Result<FreshCost>()> freshCost;
  // How long consolidation may take to reach that bill before the demo moves on (each decision
  // waits upstream's 15 s before it is re-validated and started).
  std::chrono::milliseconds consolidationTimeout{std::chrono::minutes(5)};
};

struct DemoSummary {
  int nodes = 0;                             // Ready nodes of the demo NodePool
  std::map<std::string, int> instanceTypes;  // of those nodes
  double costPerHour = 0;                    // on-demand, USD
  int driftReplacements = 0;
  double costBeforeConsolidation = 0;  // after the drift roll-through, on-demand, USD
  double freshCostPerHour = -1;        // fresh provisioning of the same pods; < 0: unknown
  int consolidations = 0;              // consolidation decisions started
  int azureMachinesReady = 0;
  uint64_t azureOperations = 0;
  std::chrono::milliseconds took{0};
};

core::Result<DemoSummary> runDemo(kube::Client& client, const DemoOptions& options,
                                  std::stop_token stop);

// The closing lines; the last starts with "demo complete".
std::vector<std::string> summaryLines(const DemoSummary& summary);

}  // namespace nodewright::cmd::up
