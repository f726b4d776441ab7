#include "controllers/nodeclaim/node_controller.h"

#include <algorithm>
#include <memory>
#include <set>

#include "controllers/nodeclaim/lifecycle_controller.h"
#include "controllers/nodeclaim/well_known.h"
#include "core/log.h"

namespace nodewright::controllers::nodeclaim {

using runtime::Outcome;
using runtime::Result;

NodeController::NodeController(kube::Client& client, const kube::Cache& claims,
                               runtime::EventRecorder* events)
    : client_(client), nodes_(client), claims_(client), claimCache_(claims), events_(events) {}

Outcome NodeController::reconcile(const runtime::Request& request, runtime::Context& context) {
  auto got = nodes_.get("", request.name);
  if (!got) {
    if (got.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return core::fail(got.error().toError().wrap("reading Node " + request.name));
  }
  const Node& node = *got;
  if (!node.metadata.deletionTimestamp || !hasFinalizer(node.metadata) || !context.leading()) {
    return Result::done();
  }
  auto claims = claimsOf(node);
  if (!claims) {
    return core::fail(claims.error());
  }
  if (claims->empty()) {
    // Nothing will terminate it for us: its claim finished (or never existed).
    auto released = kube::updateWithRetry(
        client_, nodes_.kind(), "", node.metadata.name, [](api::Object& object) {
          Node* target = object.as<Node>();
          return target != nullptr &&
                 std::erase(target->metadata.finalizers, std::string(kTerminationFinalizer)) > 0;
        });
    if (!released && !released.error().is(kube::Reason::NotFound)) {
      return core::fail(released.error().toError().wrap("removing the finalizer"));
    }
    return Result::done();
  }
  for (const NodeClaim& claim : *claims) {
    if (claim.metadata.deletionTimestamp) {
      continue;
    }
    kube::DeleteOptions options;
    options.preconditionUid = claim.metadata.uid;
    auto removed = claims_.remove("", claim.metadata.name, options);
    if (!removed && !removed.error().is(kube::Reason::NotFound)) {
      return core::fail(
          removed.error().toError().wrap("deleting NodeClaim " + claim.metadata.name));
    }
    core::logInfo(context.log(), "deleting nodeclaim of deleted node",
                  {{"node", node.metadata.name}, {"nodeclaim", claim.metadata.name}});
    if (events_ != nullptr) {
      events_->event(api::Object(&nodes_.kind(), std::make_shared<Node>(node)),
                     runtime::EventType::Normal, "DeletingNodeClaim",
                     "Node deleted: deleting NodeClaim " + claim.metadata.name);
    }
  }
  // The claim's termination releases the Node.
  return Result::done();
}

core::Result<std::vector<api::karpenter::NodeClaim>> NodeController::claimsOf(const Node& node) {
  std::set<std::string> names;
  for (const auto& owner : node.metadata.ownerReferences) {
    if (owner.kind == "NodeClaim") {
      names.insert(owner.name);
    }
  }
  if (!node.spec.providerID.empty()) {
    for (const auto& object : claimCache_.byIndex(kube::kByProviderId, node.spec.providerID)) {
      names.insert(object.metadata().name);
    }
  }
  std::vector<NodeClaim> claims;
  for (const auto& name : names) {
    auto claim = claims_.get("", name);
    if (!claim) {
      if (claim.error().is(kube::Reason::NotFound)) {
        continue;
      }
      return core::fail(claim.error().toError().wrap("reading NodeClaim " + name));
    }
    // A claim of the same name made later is not this Node's.
    if (claim->status.providerID == node.spec.providerID || claim->status.providerID.empty()) {
      claims.push_back(std::move(*claim));
    }
  }
  return claims;
}

}  // namespace nodewright::controllers::nodeclaim
