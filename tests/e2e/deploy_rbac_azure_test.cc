#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "api/capi/cluster.h"
#include "api/capi/machine.h"
#include "api/capz/azure_machine.h"
#include "core/text.h"
#include "deploy_support.h"
#include "emulators/arm/model.h"
#include "emulators/arm/server.h"
#include "kube/client.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// deploy/overlays/azure grants the controller's ServiceAccount every request the real
// `nodewright controller --cloud azure` makes while a Cluster with an AzureCluster and a
// MachineDeployment of 2 comes up and is deleted again, and deploy/azure/role-definition.json
// has a write and a delete action for every resource type it PUTs and DELETEs in ARM.
namespace nodewright::e2e {
namespace {

using namespace std::chrono_literals;
using apiserver::testing::Child;
using kube::testing::eventually;

constexpr const char* kClientId = "00000000-0000-0000-0000-00000000de91";
constexpr const char* kClientSecret = "deploy-rbac-test-secret";

// "microsoft.compute/virtualmachines/extensions" for an ARM resource id (lower case).
std::string resourceType(const std::string& id) {
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= id.size()) {
    const size_t slash = std::min(id.find('/', start), id.size());
    parts.push_back(core::lowerAscii(id.substr(start, slash - start)));
    start = slash + 1;
  }
  auto providers = std::find(parts.rbegin(), parts.rend(), "providers");
  if (providers == parts.rend()) {
    // /subscriptions/S/resourceGroups/G: a resource group.
    return parts.size() == 4 ? "microsoft.resources/subscriptions/resourcegroups" : "";
  }
  const size_t at = static_cast<size_t>(parts.rend() - providers);  // index after "providers"
  std::string type = at < parts.size() ? parts[at] : "";
  for (size_t i = at + 1; i < parts.size(); i += 2) {
    type += "/" + parts[i];
  }
  return type;
}

std::set<std::string> roleActions(const std::string& path) {
  std::ifstream in(path);
  const api::Json role = api::Json::parse(in, nullptr, false);
  EXPECT_FALSE(role.is_discarded()) << path << " is not JSON";
  std::set<std::string> actions;
  for (const api::Json& a : role.value("Actions", api::Json::array())) {
    actions.insert(core::lowerAscii(a.get<std::string>()));
  }
  for (const api::Json& p : role.value("permissions", api::Json::array())) {
    for (const api::Json& a : p.value("actions", api::Json::array())) {
      actions.insert(core::lowerAscii(a.get<std::string>()));
    }
  }
  return actions;
}

class DeployRbacAzureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    emulators::arm::ArmEmulatorOptions options;
    options.engine.timeScale = 50;
    options.clientSecrets = {{kClientId, kClientSecret}};
    auto arm = emulators::arm::ArmServer::start(core::systemClock(), std::move(options));
    ASSERT_TRUE(arm) << arm.error().message();
    arm_ = std::move(*arm);
    kube::RestConfig config = kube::testing::restConfigFor(api_);
    config.userAgent = "deploy-rbac-test";
    client_ = kube::testing::clientFor(config);
    caFile_ = logDir_.write("arm-ca.pem", arm_->caPem());
  }

  void TearDown() override {
    controller_.reset();
    if (arm_) {
      arm_->stop();
    }
  }

  void startController() {
    setenv("AZURE_TENANT_ID", arm_->emulator().options().tenantId.c_str(), 1);
    setenv("AZURE_CLIENT_ID", kClientId, 1);
    setenv("AZURE_CLIENT_SECRET", kClientSecret, 1);
    unsetenv("AZURE_AUTHORITY_HOST");
    controller_ =
        std::make_unique<Child>(std::vector<std::string>{NW_BINARY,
                                                         "--log-level",
                                                         "warn",
                                                         "controller",
                                                         "--cloud",
                                                         "azure",
                                                         "--leader-elect",
                                                         "--kubeconfig",
                                                         api_.kubeconfig(),
                                                         "--azure-resource-manager-endpoint",
                                                         arm_->url(),
                                                         "--azure-authority-host",
                                                         arm_->url(),
                                                         "--azure-ca-file",
                                                         caFile_,
                                                         "--azure-call-timeout",
                                                         "500ms",
                                                         "--azure-requeue-after",
                                                         "1s",
                                                         "--metrics-bind-address",
                                                         "127.0.0.1:0",
                                                         "--health-probe-bind-address",
                                                         "127.0.0.1:0"});
    unsetenv("AZURE_CLIENT_SECRET");
    ASSERT_NE(controller_->waitForLine("nodewright controller:", 30s), "")
        << "the controller did not start";
  }

  std::string kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    auto ran = apiserver::testing::kubectl(api_, args, input);
    EXPECT_EQ(ran.code, 0) << fmt::format("kubectl {}: {}", fmt::join(args, " "), ran.err);
    return ran.out;
  }

  template <class T>
  std::vector<T> list() {
    return kube::Typed<T>(*client_).list("default").value_or(std::vector<T>{});
  }

  apiserver::testing::TempDir logDir_;
  const std::string logPath_ = logDir_.path().native() + "/requests.jsonl";
  apiserver::testing::TestApiServer api_{deploy::loggingTo(logPath_)};
  std::unique_ptr<emulators::arm::ArmServer> arm_;
  std::unique_ptr<kube::Client> client_;
  std::string caFile_;
  std::unique_ptr<Child> controller_;
};

TEST_F(DeployRbacAzureTest, OverlayAndRoleDefinitionCoverEveryCallOfALifecycle) {
  std::ifstream example(std::string(NW_SOURCE_DIR) + "/examples/capz/cluster.yaml");
  std::string manifest((std::istreambuf_iterator<char>(example)), {});
  const size_t replicas = manifest.find("replicas: 20");
  ASSERT_NE(replicas, std::string::npos) << "examples/capz/cluster.yaml changed its pool";
  manifest.replace(replicas, 12, "replicas: 2");
  kubectl({"create", "secret", "generic", "prod-westeurope-md-0-bootstrap",
           "--from-literal=value=#cloud-config"});
  kubectl({"apply", "-f", "-"}, manifest);
  ASSERT_NO_FATAL_FAILURE(startController());
  ASSERT_TRUE(eventually(
      [&] {
        const auto machines = list<api::capi::Machine>();
        const auto azureMachines = list<api::capz::AzureMachine>();
        return machines.size() == 2 && azureMachines.size() == 2 &&
               std::all_of(machines.begin(), machines.end(),
                           [](const auto& m) { return m.status.phase == "Running"; }) &&
               std::all_of(azureMachines.begin(), azureMachines.end(),
                           [](const auto& m) { return m.status.ready; });
      },
      120s))
      << "the two machines never ran";
  kubectl({"delete", "cluster", "prod-westeurope", "--wait=false"});
  ASSERT_TRUE(eventually(
      [&] {
        return list<api::capi::Cluster>().empty() && list<api::capi::Machine>().empty() &&
               list<api::capz::AzureMachine>().empty();
      },
      120s))
      << "the Cluster was never deleted";
  controller_.reset();

  const auto docs = deploy::render("overlays/azure");
  const auto grants = deploy::grantsFor(docs, "nodewright", "nodewright");
  const auto requests = deploy::loggedRequests(logPath_, "nodewright");
  ASSERT_FALSE(requests.empty()) << "the request log holds nothing from the controller";
  const auto missing = deploy::uncovered(grants, requests);
  EXPECT_TRUE(missing.empty()) << missing.size()
                               << " requests deploy/overlays/azure does not allow:\n"
                               << fmt::format("{}", fmt::join(missing, "\n"));
  const auto pairs = deploy::verbResourcePairs(requests);
  RecordProperty("verbResourcePairs", static_cast<int>(pairs.size()));
  fmt::print("azure: {} controller requests, {} distinct (verb, resource) pairs:\n  {}\n",
             requests.size(), pairs.size(), fmt::join(pairs, "\n  "));

  // Every resource type the controllers PUT (and, the Cluster gone, deleted again) has its read,
  // write and delete actions.
  size_t live = 0;
  for (const auto& [type, count] : arm_->emulator().engine().store().liveCounts()) {
    live += type == emulators::arm::kOperationTable ? 0 : count;
  }
  EXPECT_EQ(live, 0u) << "ARM resources outlived their Cluster";
  const api::Json stats = arm_->emulator().stats();
  const auto actions = roleActions(deploy::deployDir("azure/role-definition.json"));
  std::set<std::string> needed;
  const api::Json puts = stats.value("puts", api::Json::object());
  for (const auto& [id, count] : puts.items()) {
    const std::string type = resourceType(id);
    if (!type.empty()) {
      for (const char* verb : {"/read", "/write", "/delete"}) {
        needed.insert(type + verb);
      }
    }
  }
  ASSERT_FALSE(needed.empty()) << "the emulator counted no PUT: " << stats.dump();
  std::set<std::string> lacking;
  for (const std::string& action : needed) {
    if (actions.count(action) == 0) {
      lacking.insert(action);
    }
  }
  EXPECT_TRUE(lacking.empty()) << "actions the role lacks: "
                               << fmt::format("{}", fmt::join(lacking, ", "));
  fmt::print("azure: {} ARM actions used: {}\n", needed.size(), fmt::join(needed, ", "));
}

}  // namespace
}  // namespace nodewright::e2e
