#include "emulators/kubelet/machine_sync.h"

#include "api/karpenter/nodeclaim.h"
#include "core/log.h"
#include "emulators/kubelet/node_builder.h"
#include "emulators/kubelet/objects.h"

namespace nodewright::emulators::kubelet {
namespace {

using api::corev1::Node;
using runtime::Outcome;
using runtime::Result;

bool gone(const cloud::Machine& machine) {
  return machine.state == "shutting-down" || machine.state == "terminated";
}

}  // namespace

MachineSync::MachineSync(kube::Client& client, cloud::CloudProvider& cloud,
                         const core::Clock& clock, const NodeAgentOptions& options)
    : client_(client), cloud_(cloud), clock_(clock), options_(options) {}

Outcome MachineSync::reconcile(const runtime::Request&, runtime::Context& context) {
  NW_CHECK(nodes_ != nullptr && claims_ != nullptr);
  auto machines = cloud_.list();
  if (!machines) {
    return core::fail(machines.error().wrap("listing machines"));
  }
  std::set<std::string> live;
  std::vector<const cloud::Machine*> running;
  for (const cloud::Machine& machine : *machines) {
    if (gone(machine) || (options_.adopt && !options_.adopt(machine))) {
      continue;
    }
    live.insert(machine.providerID);
    if (machine.state == "running") {
      running.push_back(&machine);
    }
  }
  if (auto deleted = deleteGoneNodes(live, context); !deleted) {
    return core::fail(deleted.error());
  }
  for (const cloud::Machine* machine : running) {
    if (auto registered = registerNode(*machine, context); !registered) {
      return core::fail(registered.error());
    }
  }
  {
    // Forget machines that are gone, so the set stays as large as the fleet.
    std::lock_guard lock(mu_);
    std::erase_if(registered_, [&](const std::string& id) { return !live.contains(id); });
  }
  return Result::after(options_.pollInterval);
}

core::Status MachineSync::deleteGoneNodes(const std::set<std::string>& live,
                                          runtime::Context& context) {
  const auto& kind = kube::kindOf<Node>(client_.registry());
  for (const api::Object& object : nodes_->list()) {
    const Node& node = typedOf<Node>(object);
    if (!isManaged(node) || node.metadata.deletionTimestamp ||
        live.contains(node.spec.providerID)) {
      continue;
    }
    kube::DeleteOptions options;
    options.preconditionUid = node.metadata.uid;
    auto removed = client_.remove(kind, "", node.metadata.name, options);
    if (!removed && !removed.error().is(kube::Reason::NotFound) &&
        !removed.error().is(kube::Reason::Conflict)) {
      return core::fail(removed.error().toError().wrap("deleting node " + node.metadata.name));
    }
    core::logInfo(context.log(), "machine gone, node deleted",
                  {{"node", node.metadata.name}, {"provider-id", node.spec.providerID}});
  }
  return core::ok();
}

core::Status MachineSync::registerNode(const cloud::Machine& machine, runtime::Context& context) {
  {
    std::lock_guard lock(mu_);
    if (registered_.contains(machine.providerID)) {
      return core::ok();
    }
  }
  // A Node already there (registered before a restart of the agent) counts as registered.
  if (!nodes_->byIndex(kube::kByProviderId, machine.providerID).empty() ||
      nodes_->get(nodeNameOf(machine.providerID))) {
    std::lock_guard lock(mu_);
    registered_.insert(machine.providerID);
    return core::ok();
  }
  std::optional<api::karpenter::NodeClaim> claim;
  if (!machine.nodeClaimName.empty()) {
    if (auto cached = claims_->get(machine.nodeClaimName)) {
      claim = typedOf<api::karpenter::NodeClaim>(*cached);
    }
  }
  auto node = nodeFor(machine, claim ? &*claim : nullptr, options_.kubeletVersion, clock_.now());
  if (!node) {
    core::logDebug(context.log(), "capacity unknown, node waits",
                   {{"provider-id", machine.providerID}});
    return core::ok();
  }
  const auto& kind = kube::kindOf<Node>(client_.registry());
  auto created = client_.create(objectOf(kind, std::move(*node)));
  if (!created && !created.error().is(kube::Reason::AlreadyExists)) {
    return core::fail(created.error().toError().wrap("registering node for " + machine.providerID));
  }
  std::lock_guard lock(mu_);
  registered_.insert(machine.providerID);
  core::logInfo(context.log(), "node registered",
                {{"node", nodeNameOf(machine.providerID)},
                 {"provider-id", machine.providerID},
                 {"instance-type", machine.instanceType}});
  return core::ok();
}

runtime::Controller& MachineSync::setup(runtime::Manager& manager) {
  nodes_ = &manager.informerFor<Node>().cache();
  claims_ = &manager.informerFor<api::karpenter::NodeClaim>().cache();
  runtime::Controller& controller = manager.addController(kName, *this);
  controller.enqueue({"", kKey});
  return controller;
}

}  // namespace nodewright::emulators::kubelet
