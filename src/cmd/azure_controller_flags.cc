#include "cmd/azure_controller_flags.h"

#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include <CLI/CLI.hpp>

#include "cloud/azure/credentials.h"
#include "core/duration.h"

namespace nodewright::cmd {
namespace {

struct ConcurrencyFlag {
  const char* name;
  int AzureControllerFlags::*field;
  const char* what;
};

constexpr ConcurrencyFlag kConcurrencyFlags[] = {
    {"--azurecluster-concurrency", &AzureControllerFlags::azureClusterConcurrency, "AzureClusters"},
    {"--azuremachine-concurrency", &AzureControllerFlags::azureMachineConcurrency, "AzureMachines"},
    {"--azuremachinepool-concurrency", &AzureControllerFlags::azureMachinePoolConcurrency,
     "AzureMachinePools"},
    {"--azuremachinepoolmachine-concurrency",
     &AzureControllerFlags::azureMachinePoolMachineConcurrency, "AzureMachinePoolMachines"},
    {"--cluster-concurrency", &AzureControllerFlags::clusterConcurrency, "Clusters"},
    {"--machinedeployment-concurrency", &AzureControllerFlags::machineDeploymentConcurrency,
     "MachineDeployments"},
    {"--machineset-concurrency", &AzureControllerFlags::machineSetConcurrency, "MachineSets"},
    {"--machine-concurrency", &AzureControllerFlags::machineConcurrency, "Machines"},
    {"--machinepool-concurrency", &AzureControllerFlags::machinePoolConcurrency, "MachinePools"},
};

core::Result<std::chrono::milliseconds> duration(const std::string& flag, const std::string& text,
                                                 bool zeroAllowed) {
  auto parsed = core::Duration::parse(text);
  if (!parsed || parsed->isNever()) {
    return core::fail(core::Error::invalid(flag + ": \"" + text +
                                           "\" is not a duration (like 500ms, 10s or 10m)"));
  }
  auto value = std::chrono::duration_cast<std::chrono::milliseconds>(parsed->value());
  if (value < std::chrono::milliseconds::zero() ||
      (!zeroAllowed && value == std::chrono::milliseconds::zero())) {
    return core::fail(core::Error::invalid(flag + ": must be " +
                                           (zeroAllowed ? "0 or more" : "at least 1ms") +
                                           ", got \"" + text + "\""));
  }
  return value;
}

core::Result<std::string> required(const cloud::azure::EnvLookup& env, const char* name) {
  std::optional<std::string> value = env(name);
  if (!value || value->empty()) {
    return core::fail(core::Error::invalid(std::string(name) +
                                           ": required in the environment with --cloud azure "
                                           "(the service principal, as azidentity reads it)"));
  }
  return std::move(*value);
}

core::Result<std::string> https(const std::string& flag, const std::string& url) {
  if (!url.starts_with("https://") || url.size() == 8) {
    return core::fail(core::Error::invalid(flag + ": \"" + url + "\" is not an https:// URL"));
  }
  // The clients append paths that start with '/'.
  return url.ends_with('/') ? url.substr(0, url.size() - 1) : url;
}

}  // namespace

void addAzureControllerFlags(CLI::App& sub, AzureControllerFlags& flags) {
  sub.add_option("--azure-resource-manager-endpoint", flags.resourceManagerEndpoint,
                 "Azure Resource Manager (with --cloud azure)")
      ->capture_default_str();
  sub.add_option("--azure-authority-host", flags.authorityHost,
                 "The Entra ID authority (default: $AZURE_AUTHORITY_HOST, else "
                 "https://login.microsoftonline.com)");
  sub.add_option("--azure-ca-file", flags.caFile,
                 "PEM certificates trusted for ARM and Entra instead of the system store (an "
                 "emulator's CA)");
  for (const ConcurrencyFlag& flag : kConcurrencyFlags) {
    sub.add_option(flag.name, flags.*flag.field,
                   std::string("Number of ") + flag.what + " to reconcile at once")
        ->capture_default_str();
  }
  sub.add_option("--sync-period", flags.syncPeriod,
                 "How often every watched object is reconciled even without a change")
      ->capture_default_str();
  sub.add_option("--debouncing-timer", flags.debouncingTimer,
                 "After a settled reconcile, repeats within this window wait for its end unless "
                 "the object itself changed: its spec, a delete, its owners, labels or annotations "
                 "(0s: off)")
      ->capture_default_str();
}

core::Result<AzureControllerSettings> azureControllerSettings(const AzureControllerFlags& flags,
                                                              const LroFlags& lro,
                                                              const cloud::azure::EnvLookup& env) {
  for (const ConcurrencyFlag& flag : kConcurrencyFlags) {
    if (flags.*flag.field < 1) {
      return core::fail(core::Error::invalid(std::string(flag.name) + ": must be at least 1, got " +
                                             std::to_string(flags.*flag.field)));
    }
  }
  auto engine = lroOptions(lro);
  if (!engine) {
    return core::fail(engine.error());
  }
  auto syncPeriod = duration("--sync-period", flags.syncPeriod, false);
  if (!syncPeriod) {
    return core::fail(syncPeriod.error());
  }
  auto debouncing = duration("--debouncing-timer", flags.debouncingTimer, true);
  if (!debouncing) {
    return core::fail(debouncing.error());
  }
  auto arm = https("--azure-resource-manager-endpoint", flags.resourceManagerEndpoint);
  if (!arm) {
    return core::fail(arm.error());
  }
  std::string authorityFlag = "--azure-authority-host";
  std::string authority = flags.authorityHost;
  if (authority.empty()) {
    authorityFlag = "AZURE_AUTHORITY_HOST";
    authority = env("AZURE_AUTHORITY_HOST").value_or("");
  }
  if (authority.empty()) {
    authority = cloud::azure::kPublicAuthorityHost;
  }
  auto authorityHost = https(authorityFlag, authority);
  if (!authorityHost) {
    return core::fail(authorityHost.error());
  }
  AzureControllerSettings settings;
  AzureControllerSetOptions& options = settings.controllers;
  if (!flags.caFile.empty()) {
    std::ifstream in(flags.caFile, std::ios::binary);
    std::ostringstream pem;
    pem << in.rdbuf();
    if (!in || pem.str().find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
      return core::fail(core::Error::invalid("--azure-ca-file: " + flags.caFile +
                                             ": not a readable PEM certificate file"));
    }
    options.caPem = pem.str();
  }
  for (auto [name, target] : {std::pair{"AZURE_TENANT_ID", &options.tenantId},
                              std::pair{"AZURE_CLIENT_ID", &options.clientId}}) {
    auto value = required(env, name);
    if (!value) {
      return core::fail(value.error());
    }
    *target = std::move(*value);
  }
  // A client secret, else the federated token the workload identity webhook projects.
  if (std::optional<std::string> file = env("AZURE_FEDERATED_TOKEN_FILE");
      file && !file->empty() && !env("AZURE_CLIENT_SECRET")) {
    options.federatedTokenFile = std::move(*file);
  } else {
    auto secret = required(env, "AZURE_CLIENT_SECRET");
    if (!secret) {
      return core::fail(core::Error::invalid(
          secret.error().message() + "; or AZURE_FEDERATED_TOKEN_FILE for workload identity"));
    }
    options.clientSecret = std::move(*secret);
  }
  options.armEndpoint = std::move(*arm);
  options.authorityHost = std::move(*authorityHost);
  options.lro = *engine;
  // What the controllers wait when nothing tells them when to look again.
  const std::chrono::milliseconds requeue = engine->timeouts.requeue;
  options.azureClusters.waitRequeue = requeue;
  options.azureMachines.waitRequeue = requeue;
  options.azureMachinePools.requeue = requeue;
  options.azureMachinePoolMachines.requeue = requeue;
  options.azureClusters.workers = flags.azureClusterConcurrency;
  options.azureMachines.workers = flags.azureMachineConcurrency;
  options.azureMachinePools.workers = flags.azureMachinePoolConcurrency;
  options.azureMachinePoolMachines.workers = flags.azureMachinePoolMachineConcurrency;
  options.capi.clusterConcurrency = flags.clusterConcurrency;
  options.capi.machineDeploymentConcurrency = flags.machineDeploymentConcurrency;
  options.capi.machineSetConcurrency = flags.machineSetConcurrency;
  options.capi.machineConcurrency = flags.machineConcurrency;
  options.capi.machinePoolConcurrency = flags.machinePoolConcurrency;
  options.debouncingTimer = *debouncing;
  settings.syncPeriod = *syncPeriod;
  return settings;
}

}  // namespace nodewright::cmd
