#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "aws/transport.h"
#include "cloud/aws/stack.h"
#include "deploy_support.h"
#include "emulators/ec2/emulator.h"
#include "emulators/kubelet/node_agent.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"
#include "support/emulators/ec2_fixture.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// deploy/overlays/aws grants the controller's ServiceAccount every request the real
// `nodewright controller` makes through a whole Karpenter lifecycle (launch, register, drift,
// delete with drain), and deploy/aws/iam-policy.json every EC2/SSM action it calls. The API
// server logs each request with its user agent; the controller's say "nodewright", the test's
// own clients and the node agent say something else.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using apiserver::testing::Child;
using kube::testing::eventually;

constexpr const char* kWorkload = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 4
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      terminationGracePeriodSeconds: 0
      containers:
        - name: pause
          image: registry.k8s.io/pause:3.9
          resources:
            requests:
              cpu: 500m
              memory: 512Mi
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: default
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app: web
)";

kube::RestConfig configAs(const apiserver::testing::TestApiServer& api, const char* userAgent) {
  kube::RestConfig config = kube::testing::restConfigFor(api);
  config.userAgent = userAgent;
  return config;
}

class DeployRbacAwsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ec2 = emulators::testing::startEc2(core::systemClock(), emulators::testing::fastOptions());
    ASSERT_TRUE(ec2) << ec2.error().message();
    ec2_ = std::move(*ec2);
    client_ = kube::testing::clientFor(configAs(api_, "deploy-rbac-test"));
    transport_ = nodewright::aws::makeCurlTransport();
    startNodeAgent();
  }

  void TearDown() override {
    controller_.reset();
    agentThread_ = {};
    agentManager_.reset();
    if (ec2_) {
      ec2_->stop();
    }
  }

  // The node agent (kubelet, scheduler, Deployment and ReplicaSet controllers) in this process,
  // as EmbeddedCluster runs it, under its own user agent.
  void startNodeAgent() {
    cloud::aws::AwsStackOptions options;
    options.ec2Endpoint = ec2_->url();
    options.ssmEndpoint = ec2_->url();
    options.credentials = [] {
      return nodewright::aws::ApiResult<nodewright::aws::sigv4::Credentials>(
          nodewright::aws::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    options.cluster.name = "nodewright";
    options.nodeClasses = [](const std::string& name) {
      return core::Result<api::karpenter::EC2NodeClass>(
          core::fail(core::Error::notFound("the node agent resolves no EC2NodeClass " + name)));
    };
    auto stack = cloud::aws::AwsStack::create(core::systemClock(), *transport_, std::move(options));
    ASSERT_TRUE(stack) << stack.error().message();
    agentStack_ = std::move(*stack);
    agentClient_ = kube::testing::clientFor(configAs(api_, "node-agent"));
    runtime::ManagerOptions managerOptions;
    managerOptions.component = "kubelet";
    agentManager_ = std::make_unique<runtime::Manager>(*agentClient_, managerOptions);
    emulators::kubelet::NodeAgentOptions agent;
    agent.readyDelay = 300ms;
    agent.startupTaintDelay = 200ms;
    agent.pollInterval = 200ms;
    agent_ = emulators::kubelet::setupNodeAgent(*agentManager_, agentStack_->provider(), agent);
    workloads_ = emulators::kubelet::setupWorkloadControllers(*agentManager_);
    agentThread_ = std::jthread([this](std::stop_token stop) {
      auto ran = agentManager_->run(stop);
      EXPECT_TRUE(ran) << "node agent: " << ran.error().message();
    });
  }

  // The real binary with leader election, so its Lease requests are checked too.
  void startController() {
    setenv("AWS_ACCESS_KEY_ID", "nodewright", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "nodewright", 1);
    setenv("AWS_CONFIG_FILE", "/dev/null", 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null", 1);
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
    controller_ = std::make_unique<Child>(
        std::vector<std::string>{NW_BINARY,
                                 "--log-level",
                                 "warn",
                                 "controller",
                                 "--leader-elect",
                                 "--kubeconfig",
                                 api_.kubeconfig(),
                                 "--cluster-name",
                                 "nodewright",
                                 "--cluster-endpoint",
                                 "https://127.0.0.1:" + std::to_string(api_.port()),
                                 "--region",
                                 "us-east-1",
                                 "--ec2-endpoint",
                                 ec2_->url(),
                                 "--ssm-endpoint",
                                 ec2_->url(),
                                 "--pending",
                                 "unbound",
                                 "--batch-idle-duration",
                                 "0.3",
                                 "--batch-max-duration",
                                 "3",
                                 "--disruption-poll-interval",
                                 "1",
                                 "--drift-recheck",
                                 "1",
                                 "--metrics-bind-address",
                                 "127.0.0.1:0",
                                 "--health-probe-bind-address",
                                 "127.0.0.1:0"});
    ASSERT_NE(controller_->waitForLine("nodewright controller:", 30s), "")
        << "the controller did not start";
  }

  std::string kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    auto ran = apiserver::testing::kubectl(api_, args, input);
    EXPECT_EQ(ran.code, 0) << fmt::format("kubectl {}: {}", fmt::join(args, " "), ran.err);
    return ran.out;
  }

  std::vector<api::karpenter::NodeClaim> claims() {
    return kube::Typed<api::karpenter::NodeClaim>(*client_).list("").value_or(
        std::vector<api::karpenter::NodeClaim>{});
  }

  bool podsRunning(size_t count) {
    auto pods = kube::Typed<api::corev1::Pod>(*client_).list("default");
    return pods && pods->size() == count &&
           std::all_of(pods->begin(), pods->end(), [](const api::corev1::Pod& p) {
             return p.status.phase == "Running" && !p.spec.nodeName.empty() &&
                    !p.metadata.deletionTimestamp;
           });
  }

  std::set<std::string> claimNames() {
    std::set<std::string> names;
    for (const auto& claim : claims()) {
      names.insert(claim.metadata.name);
    }
    return names;
  }

  apiserver::testing::TempDir logDir_;
  const std::string logPath_ = logDir_.path().native() + "/requests.jsonl";
  apiserver::testing::TestApiServer api_{deploy::loggingTo(logPath_)};
  std::unique_ptr<emulators::ec2::Ec2Server> ec2_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<nodewright::aws::Transport> transport_;
  std::unique_ptr<cloud::aws::AwsStack> agentStack_;
  std::unique_ptr<kube::Client> agentClient_;
  std::unique_ptr<runtime::Manager> agentManager_;
  std::unique_ptr<emulators::kubelet::NodeAgent> agent_;
  std::unique_ptr<emulators::kubelet::WorkloadControllers> workloads_;
  std::jthread agentThread_;
  std::unique_ptr<Child> controller_;
};

// Every "ec2:X" / "ssm:X" action of the policy's statements.
std::set<std::string> policyActions(const std::string& path) {
  std::ifstream in(path);
  const api::Json policy = api::Json::parse(in, nullptr, false);
  EXPECT_FALSE(policy.is_discarded()) << path << " is not JSON";
  std::set<std::string> actions;
  for (const api::Json& statement : policy.value("Statement", api::Json::array())) {
    if (statement.value("Effect", "") != "Allow") {
      continue;
    }
    const api::Json& action = statement.value("Action", api::Json::array());
    for (const api::Json& a : action.is_array() ? action : api::Json::array({action})) {
      actions.insert(a.get<std::string>());
    }
  }
  return actions;
}

TEST_F(DeployRbacAwsTest, OverlayAndIamPolicyCoverEveryCallOfALifecycle) {
  ASSERT_NO_FATAL_FAILURE(startController());
  kubectl({"apply", "-f", std::string(NW_SOURCE_DIR) + "/tests/e2e/testdata/ec2nodeclass.yaml"});
  kubectl({"apply", "-f", std::string(NW_SOURCE_DIR) + "/tests/e2e/testdata/nodepool.yaml"});
  kubectl({"apply", "-f", "-"}, kWorkload);
  ASSERT_TRUE(eventually([&] { return podsRunning(4); }, 120s)) << "the pods never ran";
  const std::set<std::string> launched = claimNames();
  ASSERT_FALSE(launched.empty());

  // Drift: a new template label changes the NodePool's hash; every claim is replaced.
  kubectl({"patch", "nodepool", "default", "--type", "merge", "-p",
           R"({"spec":{"template":{"metadata":{"labels":{"team":"storage"}}}}})"});
  ASSERT_TRUE(eventually(
      [&] {
        const auto now = claimNames();
        return !now.empty() && std::none_of(now.begin(), now.end(), [&](const std::string& n) {
          return launched.count(n) > 0;
        }) && podsRunning(4);
      },
      180s))
      << "the drifted claims were not all replaced";

  // Deletion: the claim's node is drained (evictions) and its instance terminated.
  const std::string victim = *claimNames().begin();
  kubectl({"delete", "nodeclaim", victim, "--wait=false"});
  ASSERT_TRUE(eventually([&] { return claimNames().count(victim) == 0 && podsRunning(4); }, 120s))
      << "the deleted NodeClaim was never released";
  controller_.reset();

  const auto docs = deploy::render("overlays/aws");
  const auto grants = deploy::grantsFor(docs, "nodewright", "nodewright");
  const auto requests = deploy::loggedRequests(logPath_, "nodewright");
  ASSERT_FALSE(requests.empty()) << "the request log holds nothing from the controller";
  const auto missing = deploy::uncovered(grants, requests);
  EXPECT_TRUE(missing.empty()) << missing.size()
                               << " requests deploy/overlays/aws does not allow:\n"
                               << fmt::format("{}", fmt::join(missing, "\n"));
  const auto pairs = deploy::verbResourcePairs(requests);
  RecordProperty("verbResourcePairs", static_cast<int>(pairs.size()));
  fmt::print("aws: {} controller requests, {} distinct (verb, resource) pairs:\n  {}\n",
             requests.size(), pairs.size(), fmt::join(pairs, "\n  "));

  // Every EC2 and SSM action the emulator served is in the IAM policy.
  emulators::testing::QueryClient admin(ec2_->url(), core::systemClock());
  auto stats = emulators::testing::adminStats(admin);
  ASSERT_TRUE(stats) << stats.error().message();
  const auto allowedActions = policyActions(deploy::deployDir("aws/iam-policy.json"));
  std::set<std::string> called;
  std::set<std::string> notInPolicy;
  const api::Json served = stats->value("requests", api::Json::object());
  for (const auto& [action, counts] : served.items()) {
    const std::string qualified =
        action.find(':') != std::string::npos
            ? action
            : (action == "GetParameter" || action == "GetParameters" ? "ssm:" : "ec2:") + action;
    called.insert(qualified);
    if (allowedActions.count(qualified) == 0) {
      notInPolicy.insert(qualified);
    }
  }
  EXPECT_TRUE(notInPolicy.empty())
      << "actions the policy lacks: " << fmt::format("{}", fmt::join(notInPolicy, ", "));
  fmt::print("aws: {} EC2/SSM actions called: {}\n", called.size(), fmt::join(called, ", "));
}

}  // namespace
}  // namespace nodewright::e2e
