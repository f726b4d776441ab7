// The AzureMachinePoolMachine controller against the embedded API server and the ARM emulator:
// seed 004's story 3, deleting one machine-pool machine shows "Deleting" at once.
#include <spdlog/spdlog.h>

#include <stop_token>

#include "api/capi/cluster.h"
#include "api/capz/conditions.h"
#include "controllers/capz/azuremachine/machine_fixture.h"
#include "controllers/capz/azuremachinepool/pool_machine_controller.h"
#include "support/apiserver/test_server.h"
#include "support/kube/rest_config.h"

namespace nodewright::controllers::capz::azuremachine::testing {
namespace {

namespace amp = azuremachinepool;
using api::capz::AzureMachinePool;
using api::capz::AzureMachinePoolMachine;

constexpr const char* kNs = "default";

class PoolMachineControllerTest : public MachineServicesFixture {
 protected:
  void SetUp() override {
    MachineServicesFixture::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    controller_ =
        std::make_unique<amp::PoolMachineController>(*kube_, *runner_, *engine_, jumping_);
    api::capi::Cluster cluster;
    cluster.apiVersion = "cluster.x-k8s.io/v1beta1";
    cluster.kind = "Cluster";
    cluster.metadata.name = "capz";
    cluster.metadata.namespace_ = kNs;
    api::ObjectReference infra;
    infra.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    infra.kind = "AzureCluster";
    infra.name = "capz";
    cluster.spec.infrastructureRef = infra;
    ASSERT_TRUE(kube::Typed<api::capi::Cluster>(*kube_).create(cluster));
    api::capz::AzureCluster azure = cluster_;
    azure.status = {};
    auto stored = kube::Typed<api::capz::AzureCluster>(*kube_).create(azure);
    ASSERT_TRUE(stored) << stored.error().describe();

    pool_.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    pool_.kind = "AzureMachinePool";
    pool_.metadata.name = "pool0";
    pool_.metadata.namespace_ = kNs;
    pool_.metadata.labels = {{api::capi::kClusterNameLabel, "capz"}};
    pool_.spec.location = "eastus";
    pool_.spec.template_.vmSize = "Standard_D2s_v3";
    pool_.spec.template_.sshPublicKey = kSshKey;
    pool_.spec.template_.osDisk.osType = "Linux";
    pool_.spec.template_.osDisk.diskSizeGB = 30;
    auto created = kube::Typed<AzureMachinePool>(*kube_).create(pool_);
    ASSERT_TRUE(created) << created.error().describe();
    // The scale set with two instances, as the AzureMachinePool's scalesets service leaves it.
    amp::PoolScope scope;
    scope.pool = &pool_;
    scope.cluster = &cluster_;
    scope.clusterName = "capz";
    scope.replicas = 2;
    scope.bootstrapData = "#cloud-config\n";
    set_ = amp::scaleSetId(scope);
    auto services = amp::scaleSetServices(scope);
    ASSERT_TRUE(services) << services.error().message();
    for (int i = 0; i < 20; ++i) {
      Pass pass = runner_->reconcile(*services, pool_.status.longRunningOperationStates,
                                     pool_.status.conditions);
      if (pass.done) {
        break;
      }
      clock_.advance(pass.requeueAfter.value_or(10s));
    }
    ASSERT_TRUE(exists(set_ + "/virtualMachines/1"));

    AzureMachinePoolMachine machine;
    machine.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    machine.kind = "AzureMachinePoolMachine";
    machine.metadata.name = "pool0-1";
    machine.metadata.namespace_ = kNs;
    machine.metadata.labels = {{api::capi::kClusterNameLabel, "capz"}};
    api::OwnerReference owner;
    owner.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    owner.kind = "AzureMachinePool";
    owner.name = "pool0";
    owner.uid = created->metadata.uid;
    owner.controller = true;
    machine.metadata.ownerReferences = {owner};
    machine.spec.instanceID = "1";
    machine.spec.providerID = "azure://" + set_ + "/virtualMachines/1";
    auto stored2 = kube::Typed<AzureMachinePoolMachine>(*kube_).create(machine);
    ASSERT_TRUE(stored2) << stored2.error().describe();
  }

  runtime::Outcome reconcile() {
    runtime::Context context(jumping_, clock_.steadyNow() + std::chrono::minutes(3),
                             std::stop_token(), spdlog::default_logger(), "pool0-1");
    return controller_->reconcile({kNs, "pool0-1"}, context);
  }

  std::optional<AzureMachinePoolMachine> stored() {
    auto got = kube::Typed<AzureMachinePoolMachine>(*kube_).get(kNs, "pool0-1");
    return got ? std::optional<AzureMachinePoolMachine>(*got) : std::nullopt;
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> kube_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  std::unique_ptr<amp::PoolMachineController> controller_;
  AzureMachinePool pool_;
  std::string set_;
};

TEST_F(PoolMachineControllerTest, ReportsItsInstanceThenDeletesItShowingDeletingAtOnce) {
  auto first = reconcile();
  ASSERT_TRUE(first.has_value()) << first.error().message();
  auto machine = stored();
  ASSERT_TRUE(machine);
  EXPECT_EQ(machine->metadata.finalizers,
            std::vector<std::string>{"azuremachinepoolmachine.infrastructure.cluster.x-k8s.io"});
  EXPECT_TRUE(machine->status.ready);
  EXPECT_EQ(machine->status.provisioningState, std::optional<std::string>("Succeeded"));
  EXPECT_TRUE(machine->status.instanceName.starts_with("pool0"));

  ASSERT_TRUE(kube::Typed<AzureMachinePoolMachine>(*kube_).remove(kNs, "pool0-1"));
  auto deleting = reconcile();
  ASSERT_TRUE(deleting.has_value()) << deleting.error().message();
  EXPECT_TRUE(deleting->inProgress);
  machine = stored();
  ASSERT_TRUE(machine) << "held by the finalizer while the instance goes";
  ASSERT_EQ(machine->status.conditions.size(), 1u);
  EXPECT_EQ(machine->status.conditions[0].type, "VMRunning");
  EXPECT_EQ(machine->status.conditions[0].reason, api::capz::kDeletingReason);
  ASSERT_EQ(machine->status.longRunningOperationStates.size(), 1u);
  EXPECT_EQ(machine->status.longRunningOperationStates[0].type, "DELETE");

  for (int i = 0; i < 10 && stored(); ++i) {
    clock_.advance(30s);
    ASSERT_TRUE(reconcile().has_value());
  }
  EXPECT_FALSE(stored().has_value());
  EXPECT_FALSE(exists(set_ + "/virtualMachines/1"));
  EXPECT_TRUE(exists(set_ + "/virtualMachines/0"));
}

}  // namespace
}  // namespace nodewright::controllers::capz::azuremachine::testing
