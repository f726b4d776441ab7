#pragma once

#include <string>
#include <vector>

#include "api/registry.h"
#include "core/error.h"

// The yardstick of the demo's consolidation: what provisioning the pods of a NodePool's nodes
// would cost from nothing. It runs the disruption simulation (the provisioning scheduler, as
// the controller runs it) with every node of the pool gone, through the same read-only view
// `nodewright disruption plan` uses, and prices each new NodeClaim at its cheapest type. The
// pool's own NodeClaims and its limits are left out: it is priced as if empty.
namespace nodewright::cmd::up {

struct FreshCost {
  double perHour = 0;
  size_t pods = 0;          // on the pool's nodes now
  size_t onOtherNodes = 0;  // that would fit on nodes of other pools
  std::vector<std::string> summaries;  // one per new NodeClaim
};

// `kubeconfig` is the running `nodewright up`'s (its directory describes the emulated EC2).
core::Result<FreshCost> freshProvisioningCost(const std::string& kubeconfig,
                                              const std::string& nodePool,
                                              const api::Registry& registry);

}  // namespace nodewright::cmd::up
