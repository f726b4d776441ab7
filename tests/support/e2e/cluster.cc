#include "support/e2e/cluster.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "cloud/well_known_labels.h"
#include "support/emulators/ec2_fixture.h"
#include "support/kube/rest_config.h"

namespace nodewright::e2e::testing {
namespace {

using namespace std::chrono_literals;

std::string millisFlag(std::chrono::milliseconds d) {
  return std::to_string(static_cast<double>(d.count()) / 1000.0);
}

}  // namespace

EmbeddedCluster::EmbeddedCluster(ClusterOptions options) : options_(std::move(options)) {
  apiServer_ = std::make_unique<apiserver::testing::TestApiServer>();
  if (options_.awsEndpoint.empty()) {
    auto server =
        emulators::testing::startEc2(core::systemClock(), emulators::testing::fastOptions());
    EXPECT_TRUE(server) << server.error().message();
    if (server) {
      ec2_ = std::move(*server);
      awsEndpoint_ = ec2_->url();
    }
  } else {
    awsEndpoint_ = options_.awsEndpoint;
  }
  client_ = kube::testing::clientFor(kube::testing::restConfigFor(*apiServer_));
  transport_ = nodewright::aws::makeCurlTransport();

  agentStack_ = makeStack();
  agentClient_ = kube::testing::clientFor(kube::testing::restConfigFor(*apiServer_));
  agentMetrics_ = std::make_unique<runtime::Registry>();
  runtime::ManagerOptions managerOptions;
  managerOptions.metrics = agentMetrics_.get();
  managerOptions.component = "kubelet";
  agentManager_ = std::make_unique<runtime::Manager>(*agentClient_, managerOptions);
  emulators::kubelet::NodeAgentOptions agent;
  agent.readyDelay = options_.readyDelay;
  agent.startupTaintDelay = options_.startupTaintDelay;
  agent.pollInterval = 200ms;
  agent_ = emulators::kubelet::setupNodeAgent(*agentManager_, agentStack_->provider(), agent);
  workloads_ = emulators::kubelet::setupWorkloadControllers(*agentManager_);
  agentThread_ = std::jthread([this](std::stop_token stop) {
    auto ran = agentManager_->run(stop);
    EXPECT_TRUE(ran) << "node agent: " << ran.error().message();
  });
}

EmbeddedCluster::~EmbeddedCluster() {
  killControllerProcess();
  stopControllers();
  agentThread_ = {};
  agentManager_.reset();
}

std::unique_ptr<cloud::aws::AwsStack> EmbeddedCluster::makeStack() {
  cloud::aws::AwsStackOptions options;
  options.ec2Endpoint = awsEndpoint_;
  options.ssmEndpoint = awsEndpoint_;
  options.credentials = [] {
    return nodewright::aws::ApiResult<nodewright::aws::sigv4::Credentials>(
        nodewright::aws::sigv4::Credentials{"nodewright", "nodewright", ""});
  };
  options.cluster.name = "nodewright";
  options.cluster.endpoint = "https://127.0.0.1:" + std::to_string(apiServer_->port());
  options.cluster.caBundle = "Y2E=";
  options.cluster.serviceCidr = "10.100.0.0/16";
  options.nodeClasses = [](const std::string& name) -> core::Result<api::karpenter::EC2NodeClass> {
    return core::fail(core::Error::notFound("the node agent resolves no EC2NodeClass " + name));
  };
  auto stack = cloud::aws::AwsStack::create(core::systemClock(), *transport_, std::move(options));
  EXPECT_TRUE(stack) << stack.error().message();
  return stack ? std::move(*stack) : nullptr;
}

void EmbeddedCluster::startControllers(
    const std::function<void(cmd::ControllerSetOptions&)>& customize) {
  controllerClient_ = kube::testing::clientFor(kube::testing::restConfigFor(*apiServer_));
  controllerMetrics_ = std::make_unique<runtime::Registry>();
  runtime::ManagerOptions managerOptions;
  managerOptions.metrics = controllerMetrics_.get();
  managerOptions.component = "karpenter";
  controllerManager_ = std::make_unique<runtime::Manager>(*controllerClient_, managerOptions);
  cmd::ControllerSetOptions options;
  options.aws.ec2Endpoint = awsEndpoint_;
  options.aws.ssmEndpoint = awsEndpoint_;
  options.aws.credentials = [] {
    return nodewright::aws::ApiResult<nodewright::aws::sigv4::Credentials>(
        nodewright::aws::sigv4::Credentials{"nodewright", "nodewright", ""});
  };
  options.aws.cluster.name = "nodewright";
  options.aws.cluster.endpoint = "https://127.0.0.1:" + std::to_string(apiServer_->port());
  options.aws.cluster.caBundle = "Y2E=";
  options.aws.cluster.serviceCidr = "10.100.0.0/16";
  options.provisioner.batch.idle = options_.batchIdle;
  options.provisioner.batch.max = options_.batchMax;
  options.provisioner.pendingRule = controllers::provisioning::PendingRule::Unbound;
  if (customize) {
    customize(options);
  }
  auto set = cmd::ControllerSet::create(*controllerManager_, *transport_, std::move(options));
  ASSERT_TRUE(set) << set.error().message();
  controllers_ = std::move(*set);
  controllerThread_ = std::jthread([this](std::stop_token stop) {
    auto ran = controllerManager_->run(stop);
    EXPECT_TRUE(ran) << "controllers: " << ran.error().message();
  });
}

void EmbeddedCluster::stopControllers() {
  controllerThread_ = {};
  controllerManager_.reset();
  controllers_.reset();
}

void EmbeddedCluster::startControllerProcess(const std::vector<std::string>& extraArgs) {
  // The child inherits the environment: credentials for the emulator or moto, never the
  // user's files or instance metadata.
  setenv("AWS_ACCESS_KEY_ID", "nodewright", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "nodewright", 1);
  setenv("AWS_CONFIG_FILE", "/dev/null", 1);
  setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null", 1);
  setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
  std::vector<std::string> argv = {NW_BINARY,
                                   "--log-level",
                                   "warn",
                                   "controller",
                                   "--kubeconfig",
                                   apiServer_->kubeconfig(),
                                   "--cluster-name",
                                   "nodewright",
                                   "--cluster-endpoint",
                                   "https://127.0.0.1:" + std::to_string(apiServer_->port()),
                                   "--region",
                                   "us-east-1",
                                   "--ec2-endpoint",
                                   awsEndpoint_,
                                   "--ssm-endpoint",
                                   awsEndpoint_,
                                   "--pending",
                                   "unbound",
                                   "--batch-idle-duration",
                                   millisFlag(options_.batchIdle),
                                   "--batch-max-duration",
                                   millisFlag(options_.batchMax),
                                   "--metrics-bind-address",
                                   "",
                                   "--health-probe-bind-address",
                                   ""};
  argv.insert(argv.end(), extraArgs.begin(), extraArgs.end());
  controllerProcess_ = std::make_unique<apiserver::testing::Child>(argv);
  ASSERT_NE(controllerProcess_->waitForLine("nodewright controller:", 30s), "")
      << "the controller process did not start";
}

void EmbeddedCluster::killControllerProcess() {
  if (controllerProcess_) {
    controllerProcess_->kill(SIGKILL);
    controllerProcess_->wait(10s);
    controllerProcess_.reset();
  }
}

std::string EmbeddedCluster::kubectl(const std::vector<std::string>& args,
                                     const std::string& input) {
  auto ran = apiserver::testing::kubectl(*apiServer_, args, input);
  EXPECT_EQ(ran.code, 0) << "kubectl " << args.front() << ": " << ran.err;
  return ran.out;
}

std::vector<api::corev1::Pod> EmbeddedCluster::pods(const std::string& ns) {
  auto got = kube::Typed<api::corev1::Pod>(*client_).list(ns);
  EXPECT_TRUE(got) << got.error().describe();
  return got.value_or(std::vector<api::corev1::Pod>{});
}

std::vector<api::corev1::Node> EmbeddedCluster::nodes() {
  auto got = kube::Typed<api::corev1::Node>(*client_).list("");
  EXPECT_TRUE(got) << got.error().describe();
  return got.value_or(std::vector<api::corev1::Node>{});
}

std::vector<api::karpenter::NodeClaim> EmbeddedCluster::nodeClaims() {
  auto got = kube::Typed<api::karpenter::NodeClaim>(*client_).list("");
  EXPECT_TRUE(got) << got.error().describe();
  return got.value_or(std::vector<api::karpenter::NodeClaim>{});
}

double EmbeddedCluster::costPerHour(const std::vector<api::karpenter::NodeClaim>& claims) {
  double total = 0;
  for (const auto& claim : claims) {
    const auto& labels = claim.metadata.labels;
    auto type = labels.find(cloud::labels::kInstanceType);
    auto zone = labels.find(cloud::labels::kZone);
    auto capacity = labels.find(cloud::labels::kCapacityType);
    if (type == labels.end() || zone == labels.end() || capacity == labels.end()) {
      ADD_FAILURE() << claim.metadata.name << " has no instance type, zone or capacity type label";
      continue;
    }
    auto price = capacity->second == cloud::kCapacityTypeSpot
                     ? agentStack_->pricing().spot(type->second, zone->second)
                     : agentStack_->pricing().onDemand(type->second);
    EXPECT_TRUE(price.has_value()) << "no price for " << type->second;
    total += price.value_or(0);
  }
  return total;
}

std::string testdata(const std::string& name) {
  return std::string(NW_SOURCE_DIR) + "/tests/e2e/testdata/" + name;
}

bool allPodsRunning(EmbeddedCluster& cluster, size_t count) {
  auto pods = cluster.pods();
  return pods.size() == count && std::all_of(pods.begin(), pods.end(), [](const auto& p) {
           return p.status.phase == "Running" && !p.spec.nodeName.empty() &&
                  !p.metadata.deletionTimestamp;
         });
}

}  // namespace nodewright::e2e::testing
