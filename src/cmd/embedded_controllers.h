#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "aws/transport.h"
#include "cmd/azure_controller_set.h"
#include "cmd/controller_set.h"
#include "core/error.h"
#include "emulators/kubelet/node_agent.h"
#include "kube/client.h"
#include "runtime/manager.h"

// What `nodewright up` runs beside the embedded API server and the EC2 emulator: the node agent
// (kubelet, kube-scheduler and the workload controllers for machines that are not real) and the
// Karpenter controllers, on one manager, in this process, until stopped.
namespace nodewright::cmd {

struct EmbeddedControllersOptions {
  std::string kubeconfig;  // the embedded API server's
  std::string ec2Endpoint;
  std::string region = "us-east-1";
  std::string clusterName = "nodewright";
  // The SQS queue of interruption events at ec2Endpoint (the emulator serves SQS too); empty:
  // no interruption controller.
  std::string interruptionQueue;
  // The emulators' --time-scale: node repair's tolerations pass as fast as their latencies.
  double timeScale = 1;
  // Cluster API on Azure against this ARM endpoint; none without one.
  std::optional<AzureControllerSetOptions> azure;
  // Where /metrics is served; none without it.
  std::optional<runtime::EndpointsOptions> metrics;
};

class EmbeddedControllers {
 public:
  static core::Result<std::unique_ptr<EmbeddedControllers>> start(
      const EmbeddedControllersOptions& options);
  // Stops the manager (waits for reconciles in flight) and everything it ran.
  ~EmbeddedControllers();

  // Whether every informer has listed the cluster once, so the controllers see it.
  bool cachesSynced() const { return manager_->cachesSynced(); }
  // The port /metrics is served on, once the manager has started its endpoints.
  std::optional<uint16_t> metricsPort() const { return manager_->metricsPort(); }

 private:
  EmbeddedControllers() = default;

  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<nodewright::aws::Transport> transport_;
  std::unique_ptr<runtime::Manager> manager_;
  std::unique_ptr<ControllerSet> controllers_;
  std::unique_ptr<AzureControllerSet> azure_;
  std::unique_ptr<emulators::kubelet::NodeAgent> agent_;
  std::unique_ptr<emulators::kubelet::WorkloadControllers> workloads_;
  std::jthread thread_;  // last: stopped first
};

}  // namespace nodewright::cmd
