#pragma once

#include <chrono>
#include <string>

#include "cloud/azure/entra_credentials.h"
#include "cmd/azure_controller_set.h"
#include "cmd/lro_flags.h"
#include "core/error.h"

namespace CLI {
class App;
}  // namespace CLI

// `nodewright controller --cloud azure`'s settings under CAPZ's and CAPI's flag names: the ARM
// and Entra endpoints, a CA for the emulator, per-kind concurrency, the sync period and the
// debouncing timer. The service principal comes from the environment as azidentity's
// EnvironmentCredential reads it (AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET), never
// from a flag, so it shows in no process listing.
namespace nodewright::cmd {

struct AzureControllerFlags {
  std::string resourceManagerEndpoint = "https://management.azure.com";
  std::string authorityHost;  // empty: $AZURE_AUTHORITY_HOST, else the public cloud's
  std::string caFile;         // empty: the system store
  int azureClusterConcurrency = 10;
  int azureMachineConcurrency = 10;
  int azureMachinePoolConcurrency = 10;
  int azureMachinePoolMachineConcurrency = 10;
  int clusterConcurrency = 10;
  int machineDeploymentConcurrency = 10;
  int machineSetConcurrency = 10;
  int machineConcurrency = 10;
  int machinePoolConcurrency = 10;
  std::string syncPeriod = "10m";
  std::string debouncingTimer = "10s";
};

// Registers the flags above on `sub`; `flags` must outlive the parse.
void addAzureControllerFlags(CLI::App& sub, AzureControllerFlags& flags);

struct AzureControllerSettings {
  AzureControllerSetOptions controllers;
  // Every informer relists its objects to the controllers this often (0: never).
  std::chrono::milliseconds syncPeriod{0};
};

// The settings, or Invalid naming the flag or environment variable at fault. The client
// secret is never part of a message.
core::Result<AzureControllerSettings> azureControllerSettings(const AzureControllerFlags& flags,
                                                              const LroFlags& lro,
                                                              const cloud::azure::EnvLookup& env);

}  // namespace nodewright::cmd
