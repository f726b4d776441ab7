#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "cloud/azure/engine_fixture.h"
#include "controllers/capz/azuremachine/machine_scope.h"
#include "controllers/capz/azuremachine/services.h"
#include "controllers/capz/service.h"

// An AzureMachine's services against the ARM emulator: the engine fixture's resource group,
// a virtual network with a node subnet (what the AzureCluster services leave behind), and a
// ServiceRunner over the engine. Operation latencies are fixed, so every pass's answer is known.
namespace nodewright::controllers::capz::azuremachine::testing {

using namespace cloud::azure::enginetest;

inline const std::string kSubscription = "22222222-2222-2222-2222-222222222222";
inline const std::string kResourceGroup = "rg-lro";
// Base64 of an OpenSSH public key line, as spec.sshPublicKey carries it.
inline const std::string kSshKey =
    "c3NoLXJzYSBBQUFBQjNOemFDMXljMkVBQUFBREFRQUJBQUFBZ1FDNyBjYXB6QGV4YW1wbGU=";

class MachineServicesFixture : public EngineEmulatorFixture {
 protected:
  static constexpr auto kVmLatency = 45s;

  void SetUp() override {
    ArmEmulatorOptions options;
    options.latencies["arm:VirtualMachines_CreateOrUpdate"] = Latency::fixed(kVmLatency);
    options.latencies["arm:VirtualMachines_Delete"] = Latency::fixed(30s);
    options.latencies["arm:NetworkInterfaces_CreateOrUpdate"] = Latency::fixed(2s);
    options.latencies["arm:NetworkInterfaces_Delete"] = Latency::fixed(3s);
    options.latencies["arm:PublicIPAddresses_CreateOrUpdate"] = Latency::fixed(3s);
    options.latencies["arm:PublicIPAddresses_Delete"] = Latency::fixed(5s);
    options.latencies["arm:VirtualMachineExtensions_CreateOrUpdate"] = Latency::fixed(60s);
    options.latencies["arm:VirtualMachineExtensions_Delete"] = Latency::fixed(30s);
    options.latencies["arm:VirtualMachines_Update"] = Latency::fixed(10s);
    options.latencies["arm:VirtualMachineScaleSets_CreateOrUpdate"] = Latency::fixed(60s);
    options.latencies["arm:VirtualMachineScaleSets_Delete"] = Latency::fixed(45s);
    options.latencies["arm:VirtualMachineScaleSetVMs_Delete"] = Latency::fixed(30s);
    start(std::move(options));
    ASSERT_NO_FATAL_FAILURE(createResourceGroup());
    create(kRgId + "/providers/Microsoft.Network/virtualNetworks/cluster-vnet", "virtualnetworks",
           {{"location", "eastus"},
            {"properties",
             {{"addressSpace", {{"addressPrefixes", {"10.0.0.0/16"}}}},
              {"subnets",
               {{{"name", "node-subnet"}, {"properties", {{"addressPrefix", "10.1.0.0/24"}}}},
                {{"name", "cp-subnet"}, {"properties", {{"addressPrefix", "10.0.0.0/24"}}}}}}}}});
    boot();
    runner_ = std::make_unique<ServiceRunner>(*engine_, jumping_);
    cluster_ = azureCluster();
  }

  static api::capz::AzureCluster azureCluster() {
    api::capz::AzureCluster c;
    c.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    c.kind = "AzureCluster";
    c.metadata.name = "capz";
    c.metadata.namespace_ = "default";
    c.spec.subscriptionID = kSubscription;
    c.spec.resourceGroup = kResourceGroup;
    c.spec.location = "eastus";
    c.spec.additionalTags = {{"env", "test"}};
    api::ObjectReference identity;
    identity.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    identity.kind = "AzureClusterIdentity";
    identity.name = "cluster-identity";
    identity.namespace_ = "default";
    c.spec.identityRef = identity;
    c.spec.networkSpec.vnet.name = "cluster-vnet";
    api::capz::SubnetSpec node;
    node.name = "node-subnet";
    node.role = "node";
    node.cidrBlocks = {"10.1.0.0/24"};
    api::capz::SubnetSpec cp;
    cp.name = "cp-subnet";
    cp.role = "control-plane";
    cp.cidrBlocks = {"10.0.0.0/24"};
    c.spec.networkSpec.subnets = {cp, node};
    c.status.ready = true;
    return c;
  }

  static api::capz::AzureMachine azureMachine(const std::string& name) {
    api::capz::AzureMachine m;
    m.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    m.kind = "AzureMachine";
    m.metadata.name = name;
    m.metadata.namespace_ = "default";
    m.metadata.uid = "uid-" + name;
    m.spec.vmSize = "Standard_D2s_v3";
    m.spec.sshPublicKey = kSshKey;
    m.spec.osDisk.osType = "Linux";
    m.spec.osDisk.diskSizeGB = 128;
    m.spec.osDisk.cachingType = "None";
    api::capz::ManagedDiskParameters managed;
    managed.storageAccountType = "Premium_LRS";
    m.spec.osDisk.managedDisk = managed;
    return m;
  }

  MachineScope scopeFor(const api::capz::AzureMachine& machine,
                        const std::string& deployment = "md-0") {
    MachineScope scope;
    scope.machine = &machine;
    scope.cluster = &cluster_;
    scope.clusterName = "capz";
    scope.machineName = machine.metadata.name;
    if (!deployment.empty()) {
      scope.machineLabels[api::capi::kMachineDeploymentNameLabel] = deployment;
    }
    scope.bootstrapData = "#cloud-config\nruncmd: [echo bootstrap]\n";
    return scope;
  }

  std::vector<Service> services(const MachineScope& scope, Purpose purpose = Purpose::Create) {
    auto built = machineServices(scope, purpose);
    EXPECT_TRUE(built.has_value()) << built.error().message();
    return built.value_or(std::vector<Service>{});
  }

  // Passes until every service is Done, the clock moved to each pass's requeue time between
  // them (as the controller's requeue would); the last pass.
  Pass runUntilDone(const std::vector<Service>& list, api::capz::AzureMachine& machine,
                    bool deleting = false, int maxPasses = 20) {
    Pass pass;
    for (int i = 0; i < maxPasses; ++i) {
      auto& status = machine.status;
      pass = deleting
                 ? runner_->remove(list, status.longRunningOperationStates, status.conditions)
                 : runner_->reconcile(list, status.longRunningOperationStates, status.conditions);
      ++passes_;
      if (pass.done || pass.failed) {
        return pass;
      }
      clock_.advance(pass.requeueAfter.value_or(10s));
    }
    ADD_FAILURE() << "services not done after " << maxPasses << " passes";
    return pass;
  }

  bool exists(const std::string& id) {
    auto got = client_->get(ref(id, "check"), kCall);
    if (!got) {
      EXPECT_TRUE(got.error().is(lro::CallError::Kind::NotFound)) << got.error().message;
    }
    return got.has_value();
  }

  static const api::capi::CapiCondition* condition(const api::capz::AzureMachine& machine,
                                                   const std::string& type) {
    for (const auto& c : machine.status.conditions) {
      if (c.type == type) {
        return &c;
      }
    }
    return nullptr;
  }

  static std::string id(const std::string& type, const std::string& name) {
    return kRgId + "/providers/" + type + "/" + name;
  }

  std::unique_ptr<ServiceRunner> runner_;
  api::capz::AzureCluster cluster_;
  int passes_ = 0;
};

}  // namespace nodewright::controllers::capz::azuremachine::testing
