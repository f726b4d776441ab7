#pragma once

// A cluster and an EC2 for the read-only commands (`drift explain`, `disruption plan`): the
// embedded API server and the EC2 emulator on loopback ports, with an EC2NodeClass resolved
// against the emulator's world and a NodePool. Claims are launched through the real AWS
// provider, so the cloud's drift checks run against real instances; the commands run as the
// built binary. Header-only: tests/cmd/ compiles *_test.cc files only.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/well_known.h"
#include "aws/transport.h"
#include "cloud/aws/stack.h"
#include "controllers/nodeclaim/conditions.h"
#include "core/clock.h"
#include "emulators/ec2/emulator.h"
#include "kube/client.h"
#include "kube/config.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"

namespace nodewright::cmd::testing {

using api::corev1::Node;
using api::corev1::Pod;
using api::karpenter::EC2NodeClass;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;

inline constexpr const char* kCluster = "nodewright";

class InspectEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    emulators::ec2::Ec2EmulatorOptions options;
    options.engine.timeScale = 2000;  // an instance runs within milliseconds
    auto server = emulators::ec2::Ec2Server::start(core::systemClock(), std::move(options));
    ASSERT_TRUE(server) << server.error().message();
    ec2_ = std::move(*server);
    auto config = kube::loadConfig(apiServer_.kubeconfig());
    ASSERT_TRUE(config) << config.error().message();
    auto client = kube::Client::create(*config);
    ASSERT_TRUE(client) << client.error().message();
    client_ = std::move(*client);
    curl_ = nodewright::aws::makeCurlTransport();
    cloud::aws::AwsStackOptions stack;
    stack.ec2Endpoint = ec2_->url();
    stack.ssmEndpoint = ec2_->url();
    stack.credentials = [] {
      return nodewright::aws::ApiResult<nodewright::aws::sigv4::Credentials>(
          nodewright::aws::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    stack.cluster.name = kCluster;
    stack.cluster.endpoint = "https://127.0.0.1:6443";
    stack.cluster.caBundle = "Y2E=";
    stack.nodeClasses = [this](const std::string&) -> core::Result<EC2NodeClass> {
      return nodeClass_;
    };
    auto created = cloud::aws::AwsStack::create(core::systemClock(), *curl_, std::move(stack));
    ASSERT_TRUE(created) << created.error().message();
    stack_ = std::move(*created);
    addNodeClass();
  }

  // The EC2NodeClass "default" over the emulator's discovery-tagged world, its status resolved
  // as the node class controller writes it.
  void addNodeClass() {
    EC2NodeClass nc;
    nc.apiVersion = "karpenter.k8s.aws/v1";
    nc.kind = "EC2NodeClass";
    nc.metadata.name = "default";
    api::karpenter::SubnetSelectorTerm subnets;
    subnets.tags = {{"karpenter.sh/discovery", "nodewright"}};
    nc.spec.subnetSelectorTerms = {subnets};
    api::karpenter::SecurityGroupSelectorTerm groups;
    groups.tags = {{"karpenter.sh/discovery", "nodewright"}};
    nc.spec.securityGroupSelectorTerms = {groups};
    api::karpenter::AMISelectorTerm ami;
    ami.alias = "al2023@latest";
    nc.spec.amiSelectorTerms = {ami};
    nc.spec.role = "KarpenterNodeRole-nodewright";
    auto stored = kube::Typed<EC2NodeClass>(*client_).create(nc);
    ASSERT_TRUE(stored) << stored.error().describe();
    auto resolved = stack_->resolver().resolve(*stored);
    ASSERT_TRUE(resolved) << resolved.error().message();
    stored->status = resolved->status;
    auto withStatus = kube::Typed<EC2NodeClass>(*client_).updateStatus(*stored);
    ASSERT_TRUE(withStatus) << withStatus.error().describe();
    nodeClass_ = *withStatus;
  }

  // The NodePool "default": template label team=a, drift-only disruption (never empty), with
  // these budgets.
  NodePool addPool(const std::vector<std::string>& budgetNodes = {"10%"}) {
    NodePool pool;
    pool.apiVersion = "karpenter.sh/v1";
    pool.kind = "NodePool";
    pool.metadata.name = "default";
    pool.spec.template_.metadata.labels = {{"team", "a"}};
    pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    pool.spec.disruption.consolidationPolicy = "WhenEmpty";
    pool.spec.disruption.consolidateAfter = core::Duration::never();
    for (const std::string& nodes : budgetNodes) {
      api::karpenter::Budget budget;
      budget.nodes = nodes;
      pool.spec.disruption.budgets.push_back(budget);
    }
    auto stored = kube::Typed<NodePool>(*client_).create(pool);
    EXPECT_TRUE(stored) << stored.error().describe();
    return stored.value_or(pool);
  }

  // A claim of `pool` as the provisioner and the lifecycle leave it: launched through the AWS
  // provider (stamped with the node class hash), stamped with the pool's hash, Initialized,
  // with a Ready Node "node-<name>".
  void launch(const std::string& name, const NodePool& pool) {
    NodeClaim claim = newClaim(name);
    auto machine = stack_->provider().create(claim);
    ASSERT_TRUE(machine) << machine.error().message();
    for (const auto& [key, value] : machine->labels) {
      claim.metadata.labels[key] = value;
    }
    claim.metadata.annotations = machine->annotations;
    api::karpenter::stampNodePool(pool, api::karpenter::defaultHashPolicy(),
                                  claim.metadata.annotations);
    store(claim, machine->providerID, machine->imageID, false);
  }

  // A claim with no instance behind it (provider ID `providerID`), stamped from `pool`;
  // `drifted` gives it the Drifted condition the drift controller would have set.
  void addClaim(const std::string& name, const NodePool& pool, const std::string& providerID,
                bool drifted, std::map<std::string, std::string> annotations = {}) {
    NodeClaim claim = newClaim(name);
    claim.metadata.annotations = std::move(annotations);
    api::karpenter::stampNodePool(pool, api::karpenter::defaultHashPolicy(),
                                  claim.metadata.annotations);
    store(claim, providerID, "", drifted);
  }

  // A running pod of `cpu` on node `node`.
  void bindPod(const std::string& name, const std::string& cpu, const std::string& node) {
    Pod pod;
    pod.apiVersion = "v1";
    pod.kind = "Pod";
    pod.metadata.name = name;
    pod.metadata.namespace_ = "default";
    api::corev1::Container container;
    container.name = "app";
    container.image = "registry.k8s.io/pause:3.9";
    container.resources.requests = {{"cpu", *core::Quantity::parse(cpu)},
                                    {"memory", *core::Quantity::parse("512Mi")}};
    pod.spec.containers.push_back(container);
    pod.spec.nodeName = node;
    auto made = kube::Typed<Pod>(*client_).create(pod);
    ASSERT_TRUE(made) << made.error().describe();
    made->status.phase = "Running";
    auto running = kube::Typed<Pod>(*client_).updateStatus(*made);
    ASSERT_TRUE(running) << running.error().describe();
  }

  // `nodewright ARGS...` against this cluster and EC2, as the built binary.
  apiserver::testing::Ran run(std::vector<std::string> args) {
    std::vector<std::string> argv{NW_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const std::vector<std::string> flags{
        "--kubeconfig", apiServer_.kubeconfig(), "--cluster-name", kCluster,         "--region",
        "us-east-1",    "--ec2-endpoint",        ec2_->url(),      "--ssm-endpoint", ec2_->url()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return apiserver::testing::runProcess(argv, "",
                                          {{"AWS_ACCESS_KEY_ID", "nodewright"},
                                           {"AWS_SECRET_ACCESS_KEY", "nodewright"},
                                           {"AWS_CONFIG_FILE", "/dev/null"},
                                           {"AWS_SHARED_CREDENTIALS_FILE", "/dev/null"},
                                           {"AWS_EC2_METADATA_DISABLED", "true"}});
  }

  // name -> resourceVersion of every object of kind T.
  template <class T>
  std::map<std::string, std::string> versions() {
    auto listed = client_->list(kube::kindOf<T>(client_->registry()), "", {});
    EXPECT_TRUE(listed) << listed.error().describe();
    std::map<std::string, std::string> out;
    for (const api::Object& object : listed ? listed->items : std::vector<api::Object>{}) {
      const auto* typed = object.as<T>();
      out[typed->metadata.namespace_ + "/" + typed->metadata.name] =
          typed->metadata.resourceVersion;
    }
    return out;
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<emulators::ec2::Ec2Server> ec2_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<nodewright::aws::Transport> curl_;
  std::unique_ptr<cloud::aws::AwsStack> stack_;
  EC2NodeClass nodeClass_;

 private:
  NodeClaim newClaim(const std::string& name) {
    NodeClaim claim;
    claim.apiVersion = "karpenter.sh/v1";
    claim.kind = "NodeClaim";
    claim.metadata.name = name;
    claim.metadata.labels = {{api::karpenter::kNodePoolLabel, "default"}, {"team", "a"}};
    claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
    claim.spec.requirements.push_back(
        {"node.kubernetes.io/instance-type", "In", {"m5.large"}, std::nullopt});
    claim.spec.requirements.push_back(
        {"karpenter.sh/capacity-type", "In", {"on-demand"}, std::nullopt});
    return claim;
  }

  void store(const NodeClaim& claim, const std::string& providerID, const std::string& imageID,
             bool drifted) {
    auto made = kube::Typed<NodeClaim>(*client_).create(claim);
    ASSERT_TRUE(made) << made.error().describe();
    const std::string node = "node-" + claim.metadata.name;
    made->status.providerID = providerID;
    made->status.imageID = imageID;
    made->status.nodeName = node;
    const auto now = core::systemClock().now();
    for (const char* type : {api::karpenter::kLaunched, api::karpenter::kRegistered,
                             api::karpenter::kInitialized, api::karpenter::kReady}) {
      controllers::nodeclaim::setCondition(made->status.conditions, type, "True", type, "", 1, now);
    }
    if (drifted) {
      controllers::nodeclaim::setCondition(made->status.conditions, api::karpenter::kDrifted,
                                           "True", "NodeClassDrifted",
                                           "NodeClass: spec.userData changed", 1, now);
    }
    auto updated = kube::Typed<NodeClaim>(*client_).updateStatus(*made);
    ASSERT_TRUE(updated) << updated.error().describe();
    Node n;
    n.apiVersion = "v1";
    n.kind = "Node";
    n.metadata.name = node;
    n.metadata.labels = claim.metadata.labels;
    n.metadata.labels[api::karpenter::kInitializedLabel] = "true";
    n.spec.providerID = providerID;
    n.status.allocatable = {{"cpu", *core::Quantity::parse("2")},
                            {"memory", *core::Quantity::parse("8Gi")},
                            {"pods", *core::Quantity::parse("30")}};
    api::corev1::NodeCondition ready;
    ready.type = "Ready";
    ready.status = "True";
    n.status.conditions.push_back(ready);
    auto created = kube::Typed<Node>(*client_).create(n);
    ASSERT_TRUE(created) << created.error().describe();
    created->status = n.status;
    auto status = kube::Typed<Node>(*client_).updateStatus(*created);
    ASSERT_TRUE(status) << status.error().describe();
  }
};

}  // namespace nodewright::cmd::testing
