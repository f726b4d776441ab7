#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cmd/azure_controller_flags.h"
#include "cmd_test_util.h"

// `nodewright controller --cloud azure` refuses what it cannot run with, naming the flag or
// the environment variable (and never echoing the client secret), and maps CAPZ's and CAPI's
// flags onto the controllers' options.
namespace nodewright::cmd {
namespace {

using namespace std::chrono_literals;
using testing::runCmd;

constexpr const char* kSecret = "do-not-print-this-secret";

// Sets (or, with nullopt, clears) environment variables for one test, restoring them after.
class ScopedEnv {
 public:
  ScopedEnv(std::vector<std::pair<std::string, std::optional<std::string>>> values) {
    for (auto& [name, value] : values) {
      const char* old = std::getenv(name.c_str());
      saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
      set(name, value);
    }
  }
  ~ScopedEnv() {
    for (auto& [name, value] : saved_) {
      set(name, value);
    }
  }

 private:
  static void set(const std::string& name, const std::optional<std::string>& value) {
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

ScopedEnv credentials(bool tenant, bool client, bool secret) {
  return ScopedEnv(
      {{"AZURE_TENANT_ID", tenant ? std::optional<std::string>("t") : std::nullopt},
       {"AZURE_CLIENT_ID", client ? std::optional<std::string>("c") : std::nullopt},
       {"AZURE_CLIENT_SECRET", secret ? std::optional<std::string>(kSecret) : std::nullopt},
       {"AZURE_AUTHORITY_HOST", std::nullopt},
       {"AZURE_FEDERATED_TOKEN_FILE", std::nullopt}});
}

testing::Ran runAzure(std::vector<std::string> extra) {
  std::vector<std::string> args = {"controller", "--cloud", "azure", "--kubeconfig",
                                   "/nonexistent/kubeconfig"};
  args.insert(args.end(), extra.begin(), extra.end());
  return runCmd(args);
}

TEST(ControllerAzureCommandTest, EachMissingCredentialVariableIsNamed) {
  struct Case {
    bool tenant, client, secret;
    const char* missing;
  };
  for (const Case& c :
       {Case{false, true, true, "AZURE_TENANT_ID"}, Case{true, false, true, "AZURE_CLIENT_ID"},
        Case{true, true, false, "AZURE_CLIENT_SECRET"}}) {
    auto env = credentials(c.tenant, c.client, c.secret);
    auto r = runAzure({});
    EXPECT_EQ(r.code, 2) << c.missing;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(std::string("error: ") + c.missing + ": required"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find(kSecret), std::string::npos) << r.err;
  }
}

// Workload identity: the webhook projects a token file and sets no secret.
TEST(ControllerAzureCommandTest, AFederatedTokenFileStandsInForTheSecret) {
  auto env = credentials(true, true, false);
  ScopedEnv federated({{"AZURE_FEDERATED_TOKEN_FILE", std::optional<std::string>("/var/token")}});
  auto r = runAzure({});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("error: kubeconfig:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("AZURE_CLIENT_SECRET"), std::string::npos) << r.err;
}

TEST(ControllerAzureCommandTest, TheClusterNameIsNotRequiredOnAzure) {
  auto env = credentials(true, true, true);
  auto r = runAzure({});
  EXPECT_EQ(r.code, 2);
  // It got as far as the kubeconfig, and the secret stayed out of the message.
  EXPECT_NE(r.err.find("error: kubeconfig:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--cluster-name"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(kSecret), std::string::npos) << r.err;
}

TEST(ControllerAzureCommandTest, ConcurrencyBelowOneIsRejectedByName) {
  auto env = credentials(true, true, true);
  for (const char* flag :
       {"--azurecluster-concurrency", "--azuremachine-concurrency",
        "--azuremachinepool-concurrency", "--azuremachinepoolmachine-concurrency",
        "--cluster-concurrency", "--machinedeployment-concurrency", "--machineset-concurrency",
        "--machine-concurrency", "--machinepool-concurrency"}) {
    auto r = runAzure({flag, "0"});
    EXPECT_EQ(r.code, 2) << flag;
    EXPECT_NE(r.err.find(std::string("error: ") + flag + ": must be at least 1, got 0"),
              std::string::npos)
        << r.err;
  }
}

TEST(ControllerAzureCommandTest, BadDurationsAndEndpointsAreRejectedByName) {
  auto env = credentials(true, true, true);
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  for (const Case& c : {
           Case{{"--sync-period", "often"}, "--sync-period: \"often\" is not a duration"},
           Case{{"--sync-period", "0s"}, "--sync-period: must be at least 1ms"},
           Case{{"--debouncing-timer", "-1s"}, "--debouncing-timer: must be 0 or more"},
           Case{{"--azure-call-timeout", "100ms"}, "--azure-call-timeout: must be at least 500ms"},
           Case{{"--azure-resource-manager-endpoint", "http://127.0.0.1:1"},
                "--azure-resource-manager-endpoint: \"http://127.0.0.1:1\" is not an https:// URL"},
           Case{{"--azure-authority-host", "login"},
                "--azure-authority-host: \"login\" is not an https:// URL"},
           Case{{"--azure-ca-file", "/nonexistent/ca.pem"}, "--azure-ca-file: /nonexistent/ca.pem"},
       }) {
    auto r = runAzure(c.args);
    EXPECT_EQ(r.code, 2) << c.message;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
}

TEST(ControllerAzureCommandTest, AnUnknownCloudIsRejected) {
  auto r = runCmd({"controller", "--cloud", "gcp"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--cloud"), std::string::npos) << r.err;
}

cloud::azure::EnvLookup envOf(std::map<std::string, std::string> values) {
  return [values](std::string_view name) -> std::optional<std::string> {
    auto it = values.find(std::string(name));
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

const std::map<std::string, std::string> kCredentials = {
    {"AZURE_TENANT_ID", "tenant"}, {"AZURE_CLIENT_ID", "client"}, {"AZURE_CLIENT_SECRET", kSecret}};

TEST(AzureControllerSettingsTest, DefaultsAreCapzs) {
  auto settings = azureControllerSettings({}, {}, envOf(kCredentials));
  ASSERT_TRUE(settings) << settings.error().message();
  const AzureControllerSetOptions& o = settings->controllers;
  EXPECT_EQ(o.armEndpoint, "https://management.azure.com");
  EXPECT_EQ(o.authorityHost, "https://login.microsoftonline.com");
  EXPECT_EQ(o.caPem, "");
  EXPECT_EQ(o.tenantId, "tenant");
  EXPECT_EQ(o.clientId, "client");
  EXPECT_EQ(o.clientSecret, kSecret);
  EXPECT_EQ(settings->syncPeriod, 10min);
  EXPECT_EQ(o.debouncingTimer, 10s);
  EXPECT_EQ(o.azureClusters.workers, 10);
  EXPECT_EQ(o.capi.machineConcurrency, 10);
  EXPECT_EQ(o.lro.timeouts.call, 2s);
  EXPECT_EQ(o.azureMachines.waitRequeue, 15s);
}

TEST(AzureControllerSettingsTest, FlagsReachTheirControllers) {
  AzureControllerFlags flags;
  flags.resourceManagerEndpoint = "https://127.0.0.1:8443/";
  flags.azureClusterConcurrency = 1;
  flags.azureMachineConcurrency = 2;
  flags.azureMachinePoolConcurrency = 3;
  flags.azureMachinePoolMachineConcurrency = 4;
  flags.clusterConcurrency = 5;
  flags.machineDeploymentConcurrency = 6;
  flags.machineSetConcurrency = 7;
  flags.machineConcurrency = 8;
  flags.machinePoolConcurrency = 9;
  flags.syncPeriod = "90s";
  flags.debouncingTimer = "0s";
  LroFlags lro;
  lro.requeueAfter = "3s";
  auto env = kCredentials;
  env["AZURE_AUTHORITY_HOST"] = "https://login.example";
  auto settings = azureControllerSettings(flags, lro, envOf(env));
  ASSERT_TRUE(settings) << settings.error().message();
  const AzureControllerSetOptions& o = settings->controllers;
  EXPECT_EQ(o.armEndpoint, "https://127.0.0.1:8443");
  EXPECT_EQ(o.authorityHost, "https://login.example");
  EXPECT_EQ(o.azureClusters.workers, 1);
  EXPECT_EQ(o.azureMachines.workers, 2);
  EXPECT_EQ(o.azureMachinePools.workers, 3);
  EXPECT_EQ(o.azureMachinePoolMachines.workers, 4);
  EXPECT_EQ(o.capi.clusterConcurrency, 5);
  EXPECT_EQ(o.capi.machineDeploymentConcurrency, 6);
  EXPECT_EQ(o.capi.machineSetConcurrency, 7);
  EXPECT_EQ(o.capi.machineConcurrency, 8);
  EXPECT_EQ(o.capi.machinePoolConcurrency, 9);
  EXPECT_EQ(settings->syncPeriod, 90s);
  EXPECT_EQ(o.debouncingTimer, 0ms);
  EXPECT_EQ(o.lro.timeouts.requeue, 3s);
  EXPECT_EQ(o.azureClusters.waitRequeue, 3s);
  EXPECT_EQ(o.azureMachinePoolMachines.requeue, 3s);
  // The flag wins over the environment.
  flags.authorityHost = "https://login.flag";
  settings = azureControllerSettings(flags, lro, envOf(env));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->controllers.authorityHost, "https://login.flag");
}

}  // namespace
}  // namespace nodewright::cmd
