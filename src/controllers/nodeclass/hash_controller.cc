#include "controllers/nodeclass/hash_controller.h"

#include <vector>

#include "controllers/nodepool/restamp.h"
#include "core/log.h"

namespace nodewright::controllers::nodeclass {
namespace {

using api::karpenter::EC2NodeClass;
using api::karpenter::NodeClaim;
using nodepool::HashAnnotations;
using runtime::Outcome;
using runtime::Result;

constexpr HashAnnotations kKeys{api::karpenter::kNodeClassHashAnnotation,
                                api::karpenter::kNodeClassHashVersionAnnotation};

std::string versionOf(const EC2NodeClass& nodeClass) {
  auto it = nodeClass.metadata.annotations.find(kKeys.version);
  return it == nodeClass.metadata.annotations.end() ? "" : it->second;
}

}  // namespace

bool references(const NodeClaim& claim, const std::string& name) {
  const auto& ref = claim.spec.nodeClassRef;
  return (ref.group.empty() || ref.group == "karpenter.k8s.aws") &&
         (ref.kind.empty() || ref.kind == "EC2NodeClass") && ref.name == name;
}

HashController::HashController(kube::Client& client, const kube::Cache& nodeClasses,
                               api::karpenter::HashPolicy policy)
    : client_(client), nodeClaims_(client), nodeClasses_(nodeClasses), policy_(std::move(policy)) {}

Outcome HashController::reconcile(const runtime::Request& request, runtime::Context& context) {
  // The cache, not a GET: most events are status writes and this controller's own, which need
  // nothing.
  auto cached = nodeClasses_.get(request.name);
  const EC2NodeClass* nodeClass = cached ? cached->as<EC2NodeClass>() : nullptr;
  if (nodeClass == nullptr) {
    return Result::done();
  }
  if (versionOf(*nodeClass) != policy_.version) {
    if (auto stop = restampClaims(*nodeClass, context)) {
      return *stop;
    }
  }
  if (nodepool::stamped(nodeClass->metadata.annotations, kKeys,
                        api::karpenter::nodeClassHash(*nodeClass, policy_), policy_.version)) {
    return Result::done();
  }
  auto written = nodepool::annotateOwner<EC2NodeClass>(
      client_, request.name, kKeys,
      [this](const EC2NodeClass& c) { return api::karpenter::nodeClassHash(c, policy_); },
      policy_.version, context);
  if (!written) {
    return nodepool::apiFailure(written.error(), "annotating EC2NodeClass " + request.name);
  }
  return Result::done();
}

// Claims are listed from the server, as nodepool.hash does; no label names the node class, so
// all are listed and filtered. Only a version change pays for it.
std::optional<Outcome> HashController::restampClaims(const EC2NodeClass& nodeClass,
                                                     runtime::Context& context) {
  const std::string& name = nodeClass.metadata.name;
  auto all = nodeClaims_.list("");
  if (!all) {
    return nodepool::apiFailure(all.error(), "listing NodeClaims");
  }
  std::vector<NodeClaim> claims;
  for (auto& claim : *all) {
    if (references(claim, name)) {
      claims.push_back(std::move(claim));
    }
  }
  // The class as cached: claims stamped with an older spec drift, as they should.
  auto result = nodepool::restampClaims(
      client_, claims, kKeys, policy_.version,
      [&](auto& annotations) { api::karpenter::stampNodeClass(nodeClass, policy_, annotations); },
      context);
  if (!result) {
    return core::fail(result.error().wrap("re-stamping the NodeClaims of EC2NodeClass " + name));
  }
  if (result->deposed) {
    return Result::done();
  }
  if (!result->restamped.empty()) {
    core::logInfo(context.log(), "re-stamped nodeclaims",
                  {{"ec2nodeclass", name},
                   {"from-version", versionOf(nodeClass).empty() ? "none" : versionOf(nodeClass)},
                   {"to-version", policy_.version},
                   {"count", result->restamped.size()}});
  }
  return std::nullopt;
}

runtime::Controller& HashController::setup(runtime::Manager& manager) {
  runtime::ControllerOptions options;
  options.workers = 10;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.watchFor(manager.informerFor<EC2NodeClass>());
  return controller;
}

}  // namespace nodewright::controllers::nodeclass
