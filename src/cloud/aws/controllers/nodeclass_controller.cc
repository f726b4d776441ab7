#include "cloud/aws/controllers/nodeclass_controller.h"

#include <algorithm>
#include <memory>

#include "api/codec.h"
#include "api/object.h"
#include "cloud/aws/nodeclass/status.h"
#include "core/log.h"
#include "runtime/api_outcome.h"

namespace nodewright::cloud::aws {

namespace {

using api::karpenter::EC2NodeClass;
using api::karpenter::NodeClaim;
using runtime::Outcome;
using runtime::Result;

bool hasFinalizer(const EC2NodeClass& nodeClass) {
  const auto& f = nodeClass.metadata.finalizers;
  return std::find(f.begin(), f.end(), kTerminationFinalizer) != f.end();
}

// A conflict means someone wrote since our read: read again soon, without counting it as a
// failure. Anything else backs off as an error.
using runtime::apiFailure;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

}  // namespace

NodeClassController::NodeClassController(kube::Client& client, NodeClassResolver& resolver,
                                         LaunchTemplateProvider& templates,
                                         runtime::EventRecorder* events,
                                         NodeClassControllerOptions options)
    : nodeClasses_(client),
      nodeClaims_(client),
      resolver_(resolver),
      templates_(templates),
      events_(events),
      options_(options) {}

Outcome NodeClassController::reconcile(const runtime::Request& request, runtime::Context& context) {
  auto got = nodeClasses_.get("", request.name);
  if (!got) {
    if (got.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return apiFailure(got.error(), "reading EC2NodeClass " + request.name);
  }
  EC2NodeClass nodeClass = std::move(*got);
  if (nodeClass.metadata.deletionTimestamp) {
    return finalize(nodeClass, context);
  }
  if (!hasFinalizer(nodeClass)) {
    auto stored = addFinalizer(nodeClass, context);
    if (!stored) {
      // Another writer (the hash controller's annotations) got there first: read again.
      if (stored.error().is(core::Code::Conflict)) {
        return Result::again();
      }
      return core::fail(stored.error());
    }
    if (!*stored) {
      return Result::done();
    }
    nodeClass = std::move(**stored);
  }
  if (auto cleaned = deleteStaleTemplates(nodeClass, context); !cleaned) {
    return core::fail(cleaned.error());
  }
  return writeStatus(nodeClass, context);
}

// Deletion: NodeClaims launched from this class may still need its templates (and drift
// checks read its status), so templates go only once none reference it.
Outcome NodeClassController::finalize(const EC2NodeClass& nodeClass, runtime::Context& context) {
  if (!hasFinalizer(nodeClass)) {
    return Result::done();
  }
  const std::string& name = nodeClass.metadata.name;
  auto claims = referencingClaims(name);
  if (!claims) {
    return core::fail(claims.error());
  }
  if (!claims->empty()) {
    event(nodeClass, runtime::EventType::Normal, kWaitingOnNodeClaims,
          "Waiting on NodeClaim termination for " + joined(*claims));
    core::logDebug(context.log(), "waiting on nodeclaims",
                   {{"node-class", name}, {"nodeclaims", joined(*claims)}});
    return Result::waiting(options_.terminationRecheck);
  }
  if (!context.leading()) {
    return Result::done();
  }
  auto deleted = templates_.deleteAll(name);
  if (!deleted) {
    return core::fail(deleted.error().wrap("deleting launch templates of " + name));
  }
  for (const auto& template_ : *deleted) {
    templates_.invalidate(template_);
  }
  if (!context.leading()) {
    return Result::done();
  }
  // Only our finalizer goes; the update carries the read resourceVersion, so a concurrent
  // change conflicts instead of being overwritten.
  EC2NodeClass next = nodeClass;
  std::erase(next.metadata.finalizers, std::string(kTerminationFinalizer));
  if (auto updated = nodeClasses_.update(next); !updated) {
    if (updated.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return apiFailure(updated.error(), "removing the finalizer of EC2NodeClass " + name);
  }
  {
    std::lock_guard lock(mu_);
    cleanedGeneration_.erase(name);
  }
  core::logInfo(context.log(), "released node class",
                {{"node-class", name}, {"launch-templates", deleted->size()}});
  return Result::done();
}

core::Result<std::vector<std::string>> NodeClassController::referencingClaims(
    const std::string& nodeClassName) {
  // A LIST from the server, not a cache: a NodeClaim the cache has not seen yet must still
  // hold the templates it is about to launch with. Only deletions pay for it.
  auto claims = nodeClaims_.list("");
  if (!claims) {
    return core::fail(claims.error().toError().wrap("listing NodeClaims"));
  }
  return claimsReferencing(*claims, nodeClassName);
}

core::Result<std::optional<EC2NodeClass>> NodeClassController::addFinalizer(
    const EC2NodeClass& nodeClass, runtime::Context& context) {
  if (!context.leading()) {
    return std::optional<EC2NodeClass>();
  }
  EC2NodeClass next = nodeClass;
  next.metadata.finalizers.push_back(kTerminationFinalizer);
  auto updated = nodeClasses_.update(next);
  if (!updated) {
    return core::fail(updated.error().toError().wrap("adding the finalizer to EC2NodeClass " +
                                                     nodeClass.metadata.name));
  }
  return std::optional<EC2NodeClass>(std::move(*updated));
}

// Templates are named after a hash of their content, so a changed spec never reuses an old
// one; the old ones would only pile up. All of the class's templates go: launches from now on
// recreate the ones they need (the provider is told to forget each name).
core::Status NodeClassController::deleteStaleTemplates(const EC2NodeClass& nodeClass,
                                                       runtime::Context& context) {
  // Only the leader touches EC2; the others' reconciles are read-only.
  if (!specChangedSinceStatus(nodeClass) || !context.leading()) {
    return {};
  }
  const std::string& name = nodeClass.metadata.name;
  {
    std::lock_guard lock(mu_);
    auto it = cleanedGeneration_.find(name);
    if (it != cleanedGeneration_.end() && it->second == nodeClass.metadata.generation) {
      return {};
    }
  }
  auto deleted = templates_.cleanup(name, {});
  if (!deleted) {
    return core::fail(deleted.error().wrap("deleting stale launch templates of " + name));
  }
  for (const auto& template_ : *deleted) {
    templates_.invalidate(template_);
  }
  {
    std::lock_guard lock(mu_);
    cleanedGeneration_[name] = nodeClass.metadata.generation;
  }
  if (!deleted->empty()) {
    core::logInfo(context.log(), "deleted stale launch templates",
                  {{"node-class", name},
                   {"generation", nodeClass.metadata.generation},
                   {"count", deleted->size()}});
  }
  return {};
}

// Writing status is also what marks the cleanup above done (conditions carry the new
// observedGeneration), so the two happen in that order.
Outcome NodeClassController::writeStatus(const EC2NodeClass& nodeClass, runtime::Context& context) {
  const std::string& name = nodeClass.metadata.name;
  auto resolved = resolver_.resolve(nodeClass);
  if (!resolved) {
    return core::fail(resolved.error().wrap("resolving EC2NodeClass " + name));
  }
  // Unchanged status is not written: a write is a new resourceVersion and an event for every
  // watcher, every period, for every node class.
  if (api::toJson(resolved->status) != api::toJson(nodeClass.status)) {
    if (!context.leading()) {
      return Result::done();
    }
    EC2NodeClass next = nodeClass;
    next.status = resolved->status;
    if (auto written = nodeClasses_.updateStatus(next); !written) {
      return apiFailure(written.error(), "writing the status of EC2NodeClass " + name);
    }
  }
  return Result::after(options_.resolveEvery);
}

void NodeClassController::event(const EC2NodeClass& nodeClass, runtime::EventType type,
                                const std::string& reason, const std::string& message) {
  if (events_ == nullptr) {
    return;
  }
  events_->event(api::Object(&nodeClasses_.kind(), std::make_shared<EC2NodeClass>(nodeClass)), type,
                 reason, message);
}

runtime::Controller& NodeClassController::setup(runtime::Manager& manager) {
  runtime::Controller& controller = manager.addController(kName, *this);
  kube::Informer& nodeClasses = manager.informerFor<EC2NodeClass>();
  controller.watchFor(nodeClasses);
  // NodeClaims matter only to a node class being deleted; mapping every NodeClaim event to a
  // live class would re-resolve it for nothing.
  controller.watchMapped(manager.informerFor<NodeClaim>(),
                         [&nodeClasses](const api::Object& object) {
                           std::vector<runtime::Request> out;
                           const auto* claim = object.as<NodeClaim>();
                           if (claim == nullptr) {
                             return out;
                           }
                           const std::string& name = claim->spec.nodeClassRef.name;
                           auto cached = nodeClasses.cache().get(name);
                           const auto* nodeClass = cached ? cached->as<EC2NodeClass>() : nullptr;
                           if (nodeClass != nullptr && nodeClass->metadata.deletionTimestamp) {
                             out.push_back({"", name});
                           }
                           return out;
                         });
  return controller;
}

bool specChangedSinceStatus(const EC2NodeClass& nodeClass) {
  for (const auto& condition : nodeClass.status.conditions) {
    if (condition.type == nodeclass::kReady) {
      return condition.observedGeneration != nodeClass.metadata.generation;
    }
  }
  return false;
}

std::vector<std::string> claimsReferencing(const std::vector<NodeClaim>& claims,
                                           const std::string& nodeClassName) {
  std::vector<std::string> names;
  for (const auto& claim : claims) {
    const auto& ref = claim.spec.nodeClassRef;
    const bool ours = (ref.group.empty() || ref.group == "karpenter.k8s.aws") &&
                      (ref.kind.empty() || ref.kind == "EC2NodeClass");
    if (ours && ref.name == nodeClassName) {
      names.push_back(claim.metadata.name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace nodewright::cloud::aws
