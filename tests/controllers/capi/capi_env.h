#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "api/capi/cluster.h"
#include "api/capi/machine.h"
#include "api/capi/machine_deployment.h"
#include "api/capi/machine_pool.h"
#include "api/capi/machine_set.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "api/capz/azure_machine_pool.h"
#include "api/core/secret.h"
#include "api/object.h"
#include "api/yaml.h"
#include "controllers/capi/controllers.h"
#include "controllers/capi/well_known.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

// The Cluster API core controllers in a Manager against the embedded API server. No provider
// runs: tests play CAPZ by writing the infrastructure objects' status (status.ready,
// spec.providerID) themselves.
namespace nodewright::controllers::capi::testing {

using api::capi::Cluster;
using api::capi::Machine;
using api::capi::MachineDeployment;
using api::capi::MachinePool;
using api::capi::MachineSet;
using api::capz::AzureCluster;
using api::capz::AzureMachine;
using api::capz::AzureMachinePool;
using api::corev1::Secret;
using kube::testing::eventually;

inline constexpr const char* kNamespace = "default";
inline constexpr const char* kClusterName = "capz-demo";
inline constexpr const char* kInfraApiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";

inline std::string providerIdOf(const std::string& name) {
  return "azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
         "capz-demo-rg/providers/Microsoft.Compute/virtualMachines/" +
         name;
}

inline bool ownedBy(const api::ObjectMeta& meta, const std::string& kind, const std::string& uid,
                    bool controller = true) {
  for (const auto& ref : meta.ownerReferences) {
    if (ref.kind == kind && ref.uid == uid && ref.controller.value_or(false) == controller) {
      return true;
    }
  }
  return false;
}

inline bool isReady(const Machine& machine) {
  if (machine.metadata.deletionTimestamp) {
    return false;
  }
  for (const auto& condition : machine.status.conditions) {
    if (condition.type == "Ready") {
      return condition.status == "True";
    }
  }
  return false;
}

class CapiEnv : public ::testing::Test {
 protected:
  void SetUp() override { start(); }
  void TearDown() override { stop(); }

  void start() {
    runtime::ManagerOptions options;
    options.clock = &clock_;
    options.metrics = &registry_;
    manager_ = std::make_unique<runtime::Manager>(*client_, options);
    controllers_ = setupCapiControllers(*manager_, *client_, clock_);
    runner_ = std::jthread([this](std::stop_token stop) { (void)manager_->run(stop); });
    ASSERT_TRUE(eventually([this] { return manager_->cachesSynced(); }));
  }
  void stop() {
    if (runner_.joinable()) {
      runner_.request_stop();
      runner_.join();
    }
    manager_.reset();
    controllers_.reset();
  }

  // Creates the objects of a YAML manifest, as kubectl apply would.
  void apply(const std::string& yaml) {
    auto documents = api::parseDocuments(yaml);
    ASSERT_TRUE(documents) << documents.error().message();
    for (const api::Document& document : *documents) {
      api::DecodedObject decoded = api::decodeObject(document.value, client_->registry());
      ASSERT_TRUE(decoded.object.has_value());
      ASSERT_TRUE(decoded.errors.empty())
          << decoded.errors.front().path << ": " << decoded.errors.front().message;
      auto created = client_->create(*decoded.object);
      ASSERT_TRUE(created) << created.error().describe();
    }
  }

  void createMachineTemplate(const std::string& name, const std::string& vmSize) {
    apply(R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachineTemplate
metadata:
  name: )" +
          name + R"(
  namespace: default
spec:
  template:
    metadata:
      labels:
        nodepool: md-0
    spec:
      vmSize: )" +
          vmSize + R"(
      osDisk:
        osType: Linux
        diskSizeGB: 128
)");
  }

  void createAzureMachine(const std::string& name) {
    apply(R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachine
metadata:
  name: )" +
          name + R"(
  namespace: default
spec:
  vmSize: Standard_D2s_v3
  osDisk:
    osType: Linux
    diskSizeGB: 128
)");
  }

  void createAzureCluster(const std::string& name) {
    apply(R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureCluster
metadata:
  name: )" +
          name + R"(
  namespace: default
spec:
  identityRef:
    apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
    kind: AzureClusterIdentity
    name: cluster-identity
  location: westeurope
  resourceGroup: capz-demo-rg
  subscriptionID: 00000000-0000-0000-0000-000000000000
)");
  }

  void createAzureMachinePool(const std::string& name) {
    apply(R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachinePool
metadata:
  name: )" +
          name + R"(
  namespace: default
spec:
  location: westeurope
  template:
    vmSize: Standard_D2s_v3
    osDisk:
      osType: Linux
      diskSizeGB: 30
)");
  }

  static api::ObjectReference infraRef(const std::string& kind, const std::string& name) {
    api::ObjectReference ref;
    ref.apiVersion = kInfraApiVersion;
    ref.kind = kind;
    ref.name = name;
    return ref;
  }
  static api::ObjectReference kubeadmConfigRef(const std::string& kind, const std::string& name) {
    api::ObjectReference ref;
    ref.apiVersion = "bootstrap.cluster.x-k8s.io/v1beta1";
    ref.kind = kind;
    ref.name = name;
    return ref;
  }

  MachineDeployment createDeployment(const std::string& name, int32_t replicas,
                                     const std::string& machineTemplate) {
    MachineDeployment deployment;
    deployment.apiVersion = "cluster.x-k8s.io/v1beta1";
    deployment.kind = "MachineDeployment";
    deployment.metadata.name = name;
    deployment.metadata.namespace_ = kNamespace;
    deployment.spec.clusterName = kClusterName;
    deployment.spec.replicas = replicas;
    deployment.spec.template_.spec.clusterName = kClusterName;
    deployment.spec.template_.spec.version = "v1.30.2";
    deployment.spec.template_.spec.bootstrap.configRef =
        kubeadmConfigRef("KubeadmConfigTemplate", name);
    deployment.spec.template_.spec.infrastructureRef =
        infraRef("AzureMachineTemplate", machineTemplate);
    auto created = deployments_.create(deployment);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(deployment);
  }

  template <class T>
  std::vector<T> listOf(kube::Typed<T>& typed, const std::string& selector = "") {
    kube::ListOptions options;
    options.labelSelector = selector;
    auto listed = typed.list(kNamespace, options);
    EXPECT_TRUE(listed) << listed.error().describe();
    return listed.value_or(std::vector<T>{});
  }
  std::vector<Machine> machinesOf(const std::string& deployment) {
    return listOf(machines_,
                  std::string(api::capi::kMachineDeploymentNameLabel) + "=" + deployment);
  }
  template <class T>
  bool gone(kube::Typed<T>& typed, const std::string& name) {
    auto got = typed.get(kNamespace, name);
    return !got && got.error().is(kube::Reason::NotFound);
  }

  // Re-reads and changes an object until the write does not conflict.
  template <class T>
  void mutate(kube::Typed<T>& typed, const std::string& name, const std::function<void(T&)>& edit,
              bool status = false) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      auto got = typed.get(kNamespace, name);
      ASSERT_TRUE(got) << got.error().describe();
      edit(*got);
      auto written = status ? typed.updateStatus(*got) : typed.update(*got);
      if (written) {
        return;
      }
      ASSERT_TRUE(written.error().is(kube::Reason::Conflict)) << written.error().describe();
    }
    FAIL() << name << " kept conflicting";
  }

  // Plays CAPZ: the VM exists and is running. False when the AzureMachine went away meanwhile.
  bool markAzureMachineReady(const std::string& name) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      auto got = azureMachines_.get(kNamespace, name);
      if (!got) {
        return false;
      }
      AzureMachine machine = *got;
      if (!machine.spec.providerID) {
        machine.spec.providerID = providerIdOf(name);
        auto written = azureMachines_.update(machine);
        if (!written) {
          continue;
        }
        machine = *written;
      }
      machine.status.ready = true;
      machine.status.vmState = "Succeeded";
      machine.status.addresses = {{"InternalIP", "10.1.0.4"}, {"Hostname", name}};
      if (azureMachines_.updateStatus(machine)) {
        return true;
      }
    }
    return false;
  }

  core::FakeClock clock_{core::systemClock().now()};
  runtime::Registry registry_;
  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  kube::Typed<Cluster> clusters_{*client_};
  kube::Typed<MachineDeployment> deployments_{*client_};
  kube::Typed<MachineSet> sets_{*client_};
  kube::Typed<Machine> machines_{*client_};
  kube::Typed<MachinePool> pools_{*client_};
  kube::Typed<AzureCluster> azureClusters_{*client_};
  kube::Typed<AzureMachine> azureMachines_{*client_};
  kube::Typed<AzureMachinePool> azureMachinePools_{*client_};
  kube::Typed<Secret> secrets_{*client_};
  std::unique_ptr<runtime::Manager> manager_;
  std::unique_ptr<CapiControllers> controllers_;
  std::jthread runner_;
};

}  // namespace nodewright::controllers::capi::testing
