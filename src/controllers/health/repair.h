#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/core/node.h"
#include "core/time.h"

// Node auto-repair's decisions (kubernetes-sigs/karpenter pkg/controllers/node/health), apart
// from the API: which unhealthy condition of a node counts, when its toleration runs out, and
// whether its NodePool is healthy enough for a repair. Pure functions of their arguments and
// the time they are given, so the controller's clock is the only clock.
namespace nodewright::controllers::health {

// A node condition the cloud provider treats as a failure once it has lasted `toleration`.
struct RepairPolicy {
  std::string conditionType;    // "Ready", "AcceleratedHardwareReady"
  std::string conditionStatus;  // "False", "Unknown"
  std::chrono::seconds toleration;
};

// The AWS provider's policies (aws/karpenter-provider-aws CloudProvider.RepairPolicies): the
// kubelet's Ready False or Unknown for 30 minutes, and the EKS node monitoring agent's
// conditions False: AcceleratedHardwareReady for 10 minutes; StorageReady, NetworkingReady,
// KernelReady and ContainerRuntimeReady for 30.
std::vector<RepairPolicy> awsRepairPolicies();

// A node's matching condition whose toleration ends first.
struct Unhealthy {
  RepairPolicy policy;
  core::TimePoint since;     // the condition's lastTransitionTime
  core::TimePoint repairAt;  // since + toleration
};

// nullopt when no condition of `node` matches a policy.
std::optional<Unhealthy> unhealthyCondition(const api::corev1::Node& node,
                                            const std::vector<RepairPolicy>& policies);

// Up to 20% of a NodePool's nodes, rounded up, may be unhealthy (any matching condition,
// tolerated or not) before repairs stop: replacing many nodes at once hints at a cause that
// new nodes share. 3 nodes tolerate 1 unhealthy; 10 tolerate 2.
inline constexpr int kAllowedUnhealthyPercent = 20;
size_t allowedUnhealthy(size_t nodes);
bool repairAllowed(size_t unhealthy, size_t nodes);

enum class Verdict {
  Healthy,    // nothing to do
  Tolerated,  // unhealthy, toleration not over: look again at repairAt
  Blocked,    // due, but too many of the NodePool's nodes are unhealthy
  Repair,     // force-terminate the NodeClaim now, without waiting for a drain
};

struct Decision {
  Verdict verdict = Verdict::Healthy;
  std::optional<Unhealthy> unhealthy;
  // For the Blocked event and the NodePool's condition.
  std::string message;
};

// The decision for `node` at `now`; `poolNodes` are its NodePool's nodes (itself included).
Decision decide(const api::corev1::Node& node, const std::vector<api::corev1::Node>& poolNodes,
                const std::vector<RepairPolicy>& policies, core::TimePoint now);

// The NodePool condition this module keeps, and the event reason of a blocked repair.
inline constexpr const char* kNodeRepairBlockedReason = "NodeRepairBlocked";
inline constexpr const char* kNodeRepairCondition = "NodeRepairAllowed";

}  // namespace nodewright::controllers::health
