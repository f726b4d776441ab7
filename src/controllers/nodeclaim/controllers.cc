#include "controllers/nodeclaim/controllers.h"

#include "api/core/pod.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/well_known.h"

namespace nodewright::controllers::nodeclaim {
namespace {

using api::karpenter::NodeClaim;

std::vector<runtime::Request> requestsFor(const std::vector<api::Object>& claims,
                                          bool deletingOnly) {
  std::vector<runtime::Request> out;
  for (const auto& object : claims) {
    if (!deletingOnly || object.metadata().deletionTimestamp) {
      out.push_back({"", object.metadata().name});
    }
  }
  return out;
}

}  // namespace

Controllers::Controllers(runtime::Manager& manager, cloud::CloudProvider& cloud, Options options)
    : options_(options),
      metrics_(manager.metrics()),
      drainer_(manager.client(), manager.clock(), &manager.events(), metrics_, options_),
      lifecycle_(manager.client(), cloud, manager.informerFor<api::corev1::Node>().cache(),
                 manager.clock(), &manager.events(), metrics_, drainer_, options_),
      nodes_(manager.client(), manager.informerFor<NodeClaim>().cache(), &manager.events()),
      consolidatable_(manager.client(), manager.informerFor<NodeClaim>().cache(),
                      manager.informerFor<api::karpenter::NodePool>().cache(),
                      manager.informerFor<api::corev1::Pod>().cache(), manager.clock()) {}

std::unique_ptr<Controllers> setup(runtime::Manager& manager, cloud::CloudProvider& cloud,
                                   Options options) {
  auto controllers = std::make_unique<Controllers>(manager, cloud, options);
  kube::Informer& claims = manager.informerFor<NodeClaim>();
  kube::Informer& nodes = manager.informerFor<api::corev1::Node>();
  kube::Informer& pods = manager.informerFor<api::corev1::Pod>();

  runtime::ControllerOptions lifecycleOptions;
  lifecycleOptions.workers = options.workers;
  runtime::Controller& lifecycle =
      manager.addController(LifecycleController::kName, controllers->lifecycle(), lifecycleOptions);
  lifecycle.watchFor(claims);
  // A Node registering, turning Ready, losing a startup taint or being deleted moves its claim.
  lifecycle.watchMapped(nodes, [&claims](const api::Object& object) {
    const auto* node = object.as<api::corev1::Node>();
    if (node == nullptr || node->spec.providerID.empty()) {
      return std::vector<runtime::Request>{};
    }
    return requestsFor(claims.cache().byIndex(kube::kByProviderId, node->spec.providerID), false);
  });
  // A drain waits for pods to leave; only terminating claims care.
  lifecycle.watchMapped(pods, [&claims](const api::Object& object) {
    const auto* pod = object.as<api::corev1::Pod>();
    if (pod == nullptr || pod->spec.nodeName.empty()) {
      return std::vector<runtime::Request>{};
    }
    return requestsFor(claims.cache().byIndex(kube::kByNodeName, pod->spec.nodeName), true);
  });

  manager.addController(NodeController::kName, controllers->nodes()).watchFor(nodes);

  runtime::Controller& consolidatable =
      manager.addController(ConsolidatableController::kName, controllers->consolidatable());
  consolidatable.watchFor(claims);
  consolidatable.watchMapped(pods, [&claims](const api::Object& object) {
    const auto* pod = object.as<api::corev1::Pod>();
    if (pod == nullptr || pod->spec.nodeName.empty()) {
      return std::vector<runtime::Request>{};
    }
    return requestsFor(claims.cache().byIndex(kube::kByNodeName, pod->spec.nodeName), false);
  });
  // consolidateAfter changed: every claim of the pool.
  consolidatable.watchMapped(
      manager.informerFor<api::karpenter::NodePool>(), [&claims](const api::Object& object) {
        std::vector<api::Object> members;
        for (const api::Object& claim : claims.cache().list()) {
          auto it = claim.metadata().labels.find(api::karpenter::kNodePoolLabel);
          if (it != claim.metadata().labels.end() && it->second == object.metadata().name) {
            members.push_back(claim);
          }
        }
        return requestsFor(members, false);
      });
  return controllers;
}

}  // namespace nodewright::controllers::nodeclaim
