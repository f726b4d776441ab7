#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "aws/transport.h"
#include "cloud/aws/stack.h"
#include "cmd/controller_set.h"
#include "emulators/ec2/emulator.h"
#include "emulators/kubelet/node_agent.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"

// The whole system on one machine for end-to-end tests, each part speaking its real protocol:
// the embedded API server (HTTPS), a cloud (the EC2 emulator, or moto_server), the node agent
// with the workload controllers (kubelet, kube-scheduler, Deployment, ReplicaSet, DaemonSet),
// and the nodewright controllers, in this process or as a `nodewright controller` child that a
// test may kill.
namespace nodewright::e2e::testing {

struct ClusterOptions {
  // Empty: start the project's EC2 emulator. Otherwise the endpoint of EC2 and SSM (moto).
  std::string awsEndpoint;
  std::chrono::milliseconds readyDelay{300};
  std::chrono::milliseconds startupTaintDelay{200};
  std::chrono::milliseconds batchIdle{300};
  std::chrono::milliseconds batchMax{3000};
};

class EmbeddedCluster {
 public:
  explicit EmbeddedCluster(ClusterOptions options = {});
  ~EmbeddedCluster();

  // The controllers in this process; `customize` adjusts their options (shorter periods, another
  // hash policy).
  void startControllers(const std::function<void(cmd::ControllerSetOptions&)>& customize = {});
  void stopControllers();
  // The controllers as a `nodewright controller` child process; `extraArgs` are appended.
  void startControllerProcess(const std::vector<std::string>& extraArgs = {});
  // SIGKILL, no goodbye.
  void killControllerProcess();

  apiserver::testing::TestApiServer& apiServer() { return *apiServer_; }
  kube::Client& client() { return *client_; }
  const std::string& awsEndpoint() const { return awsEndpoint_; }
  emulators::ec2::Ec2Server* emulator() { return ec2_.get(); }
  // The node agent's view of the cloud (an AwsStack of its own).
  cloud::aws::AwsStack& agentStack() { return *agentStack_; }

  // kubectl against the API server; fails the test on a non-zero exit.
  std::string kubectl(const std::vector<std::string>& args, const std::string& input = "");

  std::vector<api::corev1::Pod> pods(const std::string& ns = "default");
  std::vector<api::corev1::Node> nodes();
  std::vector<api::karpenter::NodeClaim> nodeClaims();

  // The hourly price of the claims' machines (instance type, zone and capacity type from their
  // labels), from the provider's offerings.
  double costPerHour(const std::vector<api::karpenter::NodeClaim>& claims);

 private:
  std::unique_ptr<cloud::aws::AwsStack> makeStack();

  ClusterOptions options_;
  std::unique_ptr<apiserver::testing::TestApiServer> apiServer_;
  std::unique_ptr<emulators::ec2::Ec2Server> ec2_;
  std::string awsEndpoint_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<nodewright::aws::Transport> transport_;

  std::unique_ptr<cloud::aws::AwsStack> agentStack_;
  std::unique_ptr<kube::Client> agentClient_;
  std::unique_ptr<runtime::Registry> agentMetrics_;
  std::unique_ptr<runtime::Manager> agentManager_;
  std::unique_ptr<emulators::kubelet::NodeAgent> agent_;
  std::unique_ptr<emulators::kubelet::WorkloadControllers> workloads_;
  std::jthread agentThread_;

  std::unique_ptr<kube::Client> controllerClient_;
  std::unique_ptr<runtime::Registry> controllerMetrics_;
  std::unique_ptr<runtime::Manager> controllerManager_;
  std::unique_ptr<cmd::ControllerSet> controllers_;
  std::jthread controllerThread_;

  std::unique_ptr<apiserver::testing::Child> controllerProcess_;
};

// tests/e2e/testdata/<name> in the source tree.
std::string testdata(const std::string& name);

// Exactly `count` pods in the default namespace, every one Running and none terminating.
bool allPodsRunning(EmbeddedCluster& cluster, size_t count);

}  // namespace nodewright::e2e::testing
