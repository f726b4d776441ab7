// The Registered and Initialized phases of the NodeClaim lifecycle.
#include <algorithm>

#include "api/codec.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/nodeclaim/lifecycle_controller.h"
#include "controllers/nodeclaim/node_sync.h"
#include "controllers/nodeclaim/well_known.h"

namespace nodewright::controllers::nodeclaim {

auto LifecycleController::registration(NodeClaim& claim, std::optional<Node>& node)
    -> core::Result<Step> {
  if (isTrue(claim.status.conditions, kRegistered)) {
    node = nodeFor(claim);
    return Step{};
  }
  const int64_t generation = claim.metadata.generation;
  auto found = nodes_.byIndex(kube::kByProviderId, claim.status.providerID);
  if (found.empty()) {
    setCondition(claim.status.conditions, kRegistered, kUnknown, "NodeNotFound",
                 "Node not registered with cluster", generation, now());
    return Step{};  // the Node's arrival enqueues the claim
  }
  if (found.size() > 1) {
    setCondition(claim.status.conditions, kRegistered, kUnknown, "MultipleNodesFound",
                 "More than one Node has provider ID " + claim.status.providerID, generation,
                 now());
    return Step{};
  }
  const Node* cached = found.front().as<Node>();
  if (cached == nullptr || cached->metadata.deletionTimestamp) {
    // Deleted before it registered: the node controller deletes the claim.
    return Step{};
  }
  auto synced = kube::updateWithRetry(client_, found.front().info(), "", cached->metadata.name,
                                      [&claim](api::Object& object) {
                                        Node* target = object.as<Node>();
                                        return target != nullptr && syncNode(*target, claim);
                                      });
  if (!synced) {
    if (synced.error().is(kube::Reason::NotFound)) {
      return Step{};
    }
    return core::fail(synced.error().toError().wrap("registering node " + cached->metadata.name));
  }
  node = *synced->as<Node>();
  claim.status.nodeName = node->metadata.name;
  setCondition(claim.status.conditions, kRegistered, kTrue, "Registered", "", generation, now());
  event(claim, runtime::EventType::Normal, "Registered",
        "Node " + node->metadata.name + " registered with the cluster");
  return Step{};
}

// `node` is the one registration just wrote, when it did: the informer's copy may not have
// caught up with the startup taints that write added.
auto LifecycleController::initialization(NodeClaim& claim, std::optional<Node> node)
    -> core::Result<Step> {
  if (!isTrue(claim.status.conditions, kRegistered) ||
      isTrue(claim.status.conditions, kInitialized)) {
    return Step{};
  }
  const int64_t generation = claim.metadata.generation;
  auto unknown = [&](const std::string& reason, const std::string& message) {
    setCondition(claim.status.conditions, kInitialized, kUnknown, reason, message, generation,
                 now());
    return Step{};
  };
  if (!node) {
    node = nodeFor(claim);
  }
  if (!node) {
    return unknown("NodeNotFound", "Node not registered with cluster");
  }
  auto registered = node->metadata.labels.find(kRegisteredLabel);
  if (registered == node->metadata.labels.end() || registered->second != "true") {
    // A cached copy from before the registration write; its update enqueues the claim.
    return unknown("NodeNotRegistered", "Node has not been synced yet");
  }
  if (auto blocker = initializationBlocker(*node, claim)) {
    return unknown(blocker->reason, blocker->message);
  }
  if (!node->metadata.labels.contains(kInitializedLabel)) {
    auto labelled = kube::updateWithRetry(
        client_, kube::kindOf<Node>(client_.registry()), "", node->metadata.name,
        [](api::Object& object) {
          Node* target = object.as<Node>();
          if (target == nullptr || target->metadata.labels[kInitializedLabel] == "true") {
            return false;
          }
          target->metadata.labels[kInitializedLabel] = "true";
          return true;
        });
    if (!labelled) {
      return core::fail(labelled.error().toError().wrap("labelling node " + node->metadata.name));
    }
  }
  setCondition(claim.status.conditions, kInitialized, kTrue, "Initialized", "", generation, now());
  event(claim, runtime::EventType::Normal, "Initialized",
        "Node " + node->metadata.name + " initialized");
  return Step{};
}

}  // namespace nodewright::controllers::nodeclaim
