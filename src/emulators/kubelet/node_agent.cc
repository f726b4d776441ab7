#include "emulators/kubelet/node_agent.h"

namespace nodewright::emulators::kubelet {

NodeAgent::NodeAgent(kube::Client& client, cloud::CloudProvider& cloud, const core::Clock& clock,
                     NodeAgentOptions options)
    : options_(std::move(options)),
      machines_(client, cloud, clock, options_),
      nodes_(client, clock, options_),
      pods_(client, clock, options_),
      binder_(client, clock) {}

void NodeAgent::setup(runtime::Manager& manager) {
  machines_.setup(manager);
  nodes_.setup(manager);
  pods_.setup(manager);
  if (options_.bindPods) {
    binder_.setup(manager);
  }
}

WorkloadControllers::WorkloadControllers(kube::Client& client, const core::Clock& clock)
    : deployments_(client, clock), replicaSets_(client, clock), daemonSets_(client, clock) {}

void WorkloadControllers::setup(runtime::Manager& manager) {
  deployments_.setup(manager);
  replicaSets_.setup(manager);
  daemonSets_.setup(manager);
}

std::unique_ptr<NodeAgent> setupNodeAgent(runtime::Manager& manager, cloud::CloudProvider& cloud,
                                          NodeAgentOptions options) {
  auto agent =
      std::make_unique<NodeAgent>(manager.client(), cloud, manager.clock(), std::move(options));
  agent->setup(manager);
  return agent;
}

std::unique_ptr<WorkloadControllers> setupWorkloadControllers(runtime::Manager& manager) {
  auto controllers = std::make_unique<WorkloadControllers>(manager.client(), manager.clock());
  controllers->setup(manager);
  return controllers;
}

}  // namespace nodewright::emulators::kubelet
