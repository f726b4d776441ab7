// The AzureMachine controller (src/controllers/capz/azuremachine_controller.h) against the
// embedded API server and the ARM emulator. Reconciles are called directly, one at a time, so
// every step of the infrastructure contract can be looked at; the clock moves by each
// reconcile's requeue time, as the work queue would wait.
#include <spdlog/spdlog.h>

#include <stop_token>

#include "api/capi/cluster.h"
#include "api/capi/conditions.h"
#include "api/capi/machine.h"
#include "api/capz/conditions.h"
#include "api/core/secret.h"
#include "controllers/capz/azuremachine/machine_fixture.h"
#include "controllers/capz/azuremachine/machine_status.h"
#include "controllers/capz/azuremachine_controller.h"
#include "emulators/engine/faults.h"
#include "support/apiserver/test_server.h"
#include "support/kube/rest_config.h"

namespace nodewright::controllers::capz::azuremachine::testing {
namespace {

using api::capi::Cluster;
using api::capi::Machine;
using api::capz::AzureCluster;
using api::capz::AzureMachine;
using api::corev1::Secret;

constexpr const char* kNs = "default";

class AzureMachineControllerTest : public MachineServicesFixture {
 protected:
  void SetUp() override {
    MachineServicesFixture::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    controller_ =
        std::make_unique<AzureMachineController>(*client_kube_, *runner_, *engine_, jumping_);
    createCluster();
  }

  // A new process: its own engine, runner and controller; only ARM and the API survive.
  void restart() {
    controller_.reset();
    runner_.reset();
    boot();
    runner_ = std::make_unique<ServiceRunner>(*engine_, jumping_);
    controller_ =
        std::make_unique<AzureMachineController>(*client_kube_, *runner_, *engine_, jumping_);
  }

  void createCluster() {
    Cluster cluster;
    cluster.apiVersion = "cluster.x-k8s.io/v1beta1";
    cluster.kind = "Cluster";
    cluster.metadata.name = "capz";
    cluster.metadata.namespace_ = kNs;
    api::ObjectReference infra;
    infra.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    infra.kind = "AzureCluster";
    infra.name = "capz";
    infra.namespace_ = kNs;
    cluster.spec.infrastructureRef = infra;
    auto created = kube::Typed<Cluster>(*client_kube_).create(cluster);
    ASSERT_TRUE(created) << created.error().describe();
    AzureCluster azure = cluster_;
    azure.status = {};
    auto stored = kube::Typed<AzureCluster>(*client_kube_).create(azure);
    ASSERT_TRUE(stored) << stored.error().describe();
  }

  void setClusterReady() {
    kube::Typed<AzureCluster> typed(*client_kube_);
    auto got = typed.get(kNs, "capz");
    ASSERT_TRUE(got) << got.error().describe();
    got->status.ready = true;
    auto written = typed.updateStatus(*got);
    ASSERT_TRUE(written) << written.error().describe();
  }

  // A Machine of deployment md-0 and its AzureMachine; `owned`: with the owner reference the
  // Machine controller sets.
  void createMachine(const std::string& name, bool owned = true) {
    Machine machine;
    machine.apiVersion = "cluster.x-k8s.io/v1beta1";
    machine.kind = "Machine";
    machine.metadata.name = name;
    machine.metadata.namespace_ = kNs;
    machine.metadata.labels = {{api::capi::kClusterNameLabel, "capz"},
                               {api::capi::kMachineDeploymentNameLabel, "md-0"}};
    machine.spec.clusterName = "capz";
    api::ObjectReference config;  // the bootstrap provider's; it writes the data secret later
    config.apiVersion = "bootstrap.cluster.x-k8s.io/v1beta1";
    config.kind = "KubeadmConfig";
    config.name = name;
    config.namespace_ = kNs;
    machine.spec.bootstrap.configRef = config;
    machine.spec.infrastructureRef.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    machine.spec.infrastructureRef.kind = "AzureMachine";
    machine.spec.infrastructureRef.name = name;
    auto created = kube::Typed<Machine>(*client_kube_).create(machine);
    ASSERT_TRUE(created) << created.error().describe();
    AzureMachine azure = azureMachine(name);
    azure.metadata.uid.clear();
    azure.metadata.labels = machine.metadata.labels;
    if (owned) {
      api::OwnerReference owner;
      owner.apiVersion = "cluster.x-k8s.io/v1beta1";
      owner.kind = "Machine";
      owner.name = name;
      owner.uid = created->metadata.uid;
      owner.controller = true;
      azure.metadata.ownerReferences = {owner};
    }
    auto stored = kube::Typed<AzureMachine>(*client_kube_).create(azure);
    ASSERT_TRUE(stored) << stored.error().describe();
  }

  void setBootstrapData(const std::string& name) {
    Secret secret;
    secret.apiVersion = "v1";
    secret.kind = "Secret";
    secret.metadata.name = name + "-bootstrap";
    secret.metadata.namespace_ = kNs;
    secret.stringData["value"] = "#cloud-config\n";
    secret.stringData["format"] = "cloud-config";
    auto created = kube::Typed<Secret>(*client_kube_).create(secret);
    ASSERT_TRUE(created) << created.error().describe();
    kube::Typed<Machine> machines(*client_kube_);
    auto got = machines.get(kNs, name);
    ASSERT_TRUE(got) << got.error().describe();
    got->spec.bootstrap.dataSecretName = name + "-bootstrap";
    auto written = machines.update(*got);
    ASSERT_TRUE(written) << written.error().describe();
  }

  runtime::Outcome reconcile(const std::string& name) {
    runtime::Context context(jumping_, clock_.steadyNow() + std::chrono::minutes(3),
                             std::stop_token(), spdlog::default_logger(), name);
    return controller_->reconcile({kNs, name}, context);
  }

  // Reconciles, moving the clock by each requeue, until `until` holds.
  bool reconcileUntil(const std::string& name, const std::function<bool()>& until,
                      int maxReconciles = 30) {
    for (int i = 0; i < maxReconciles; ++i) {
      runtime::Outcome outcome = reconcile(name);
      EXPECT_TRUE(outcome.has_value()) << outcome.error().message();
      if (until()) {
        return true;
      }
      const auto wait =
          outcome && outcome->requeueAfter.count() > 0
              ? std::chrono::duration_cast<std::chrono::microseconds>(outcome->requeueAfter)
              : std::chrono::microseconds(10s);
      clock_.advance(wait);
    }
    return false;
  }

  std::optional<AzureMachine> stored(const std::string& name) {
    auto got = kube::Typed<AzureMachine>(*client_kube_).get(kNs, name);
    if (!got) {
      EXPECT_TRUE(got.error().is(kube::Reason::NotFound)) << got.error().describe();
      return std::nullopt;
    }
    return *got;
  }

  std::string vmRunningReason(const std::string& name) {
    auto machine = stored(name);
    const auto* c = machine ? condition(*machine, kVMRunningCondition) : nullptr;
    return c == nullptr ? "" : c->status == "True" ? "True" : c->reason;
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_kube_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  std::unique_ptr<AzureMachineController> controller_;
};

TEST_F(AzureMachineControllerTest, WaitsWithoutErrorForTheOwnerMachine) {
  createMachine("m-orphan", /*owned=*/false);
  runtime::Outcome outcome = reconcile("m-orphan");
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message();
  EXPECT_EQ(outcome->requeueAfter.count(), 0);
  auto machine = stored("m-orphan");
  ASSERT_TRUE(machine);
  EXPECT_TRUE(machine->metadata.finalizers.empty());
  EXPECT_TRUE(machine->status.conditions.empty());
}

TEST_F(AzureMachineControllerTest, FollowsTheInfrastructureContractAndResumesAfterARestart) {
  createMachine("m-1");
  // The AzureCluster is not ready yet.
  ASSERT_TRUE(reconcile("m-1").has_value());
  auto machine = stored("m-1");
  ASSERT_TRUE(machine);
  EXPECT_EQ(machine->metadata.finalizers,
            std::vector<std::string>{"azuremachine.infrastructure.cluster.x-k8s.io"});
  EXPECT_EQ(vmRunningReason("m-1"), kWaitingForClusterInfrastructureReason);

  setClusterReady();
  ASSERT_TRUE(reconcile("m-1").has_value());
  EXPECT_EQ(vmRunningReason("m-1"), kWaitingForBootstrapDataReason);
  EXPECT_EQ(putsOf(id("Microsoft.Network/networkInterfaces", "m-1-nic")), 0);

  setBootstrapData("m-1");
  const std::string vm = kRgId + "/providers/Microsoft.Compute/virtualMachines/m-1";
  // The NIC first, then the VM's PUT, which outlasts a reconcile: its future is stored.
  runtime::Outcome creating;
  for (int i = 0; i < 5 && putsOf(vm) == 0; ++i) {
    creating = reconcile("m-1");
    ASSERT_TRUE(creating.has_value()) << creating.error().message();
    EXPECT_EQ(vmRunningReason("m-1"), kVMCreatingReason);
    if (putsOf(vm) == 0) {
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(
          std::max<std::chrono::nanoseconds>(creating->requeueAfter, 1s)));
    }
  }
  ASSERT_EQ(putsOf(vm), 1);
  EXPECT_GT(creating->requeueAfter.count(), 0);
  EXPECT_TRUE(creating->inProgress);
  machine = stored("m-1");
  bool vmFuture = false;
  for (const auto& f : machine->status.longRunningOperationStates) {
    vmFuture = vmFuture || (f.serviceName == "virtualmachine" && f.type == "PUT");
  }
  EXPECT_TRUE(vmFuture) << "the VM's future is stored";
  EXPECT_FALSE(machine->status.ready);

  // Another process takes over from the stored futures: the VM is not PUT again.
  restart();
  ASSERT_TRUE(reconcileUntil("m-1", [&] {
    auto m = stored("m-1");
    return m && m->status.ready;
  }));
  machine = stored("m-1");
  EXPECT_EQ(putsOf(vm), 1);
  EXPECT_EQ(machine->spec.providerID, "azure://" + vm);
  EXPECT_EQ(machine->status.vmState, "Succeeded");
  EXPECT_EQ(vmRunningReason("m-1"), "True");
  const auto* ready = condition(*machine, api::capi::kReadyCondition);
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "True");
  EXPECT_TRUE(machine->status.longRunningOperationStates.empty());
  bool internalIP = false;
  for (const auto& a : machine->status.addresses) {
    internalIP = internalIP || (a.type == "InternalIP" && a.address.starts_with("10.1.0."));
  }
  EXPECT_TRUE(internalIP);

  // Delete: the finalizer holds the object until the VM and its NIC are gone.
  auto removed = kube::Typed<AzureMachine>(*client_kube_).remove(kNs, "m-1");
  ASSERT_TRUE(removed) << removed.error().describe();
  runtime::Outcome deleting = reconcile("m-1");
  ASSERT_TRUE(deleting.has_value()) << deleting.error().message();
  machine = stored("m-1");
  ASSERT_TRUE(machine) << "held by the finalizer";
  EXPECT_EQ(vmRunningReason("m-1"), api::capz::kDeletingReason);
  EXPECT_EQ(machine->status.vmState, "Deleting");
  clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(deleting->requeueAfter));
  ASSERT_TRUE(reconcileUntil("m-1", [&] { return !stored("m-1").has_value(); }));
  EXPECT_FALSE(exists(vm));
  EXPECT_FALSE(exists(id("Microsoft.Network/networkInterfaces", "m-1-nic")));
  EXPECT_FALSE(exists(id("Microsoft.Compute/availabilitySets", "capz_md-0-as")));
}

TEST_F(AzureMachineControllerTest, DeleteKeepsTheFinalizerUntilTheAzureClusterIsKnownGone) {
  createMachine("m-2");
  ASSERT_TRUE(reconcile("m-2").has_value());
  ASSERT_FALSE(stored("m-2")->metadata.finalizers.empty());
  // The Cluster no longer says which AzureCluster is its: the VM's group is unknown.
  kube::Typed<Cluster> clusters(*client_kube_);
  auto cluster = clusters.get(kNs, "capz");
  ASSERT_TRUE(cluster) << cluster.error().describe();
  cluster->spec.infrastructureRef.reset();
  ASSERT_TRUE(clusters.update(*cluster));
  ASSERT_TRUE(kube::Typed<AzureMachine>(*client_kube_).remove(kNs, "m-2"));

  runtime::Outcome unknown = reconcile("m-2");

  ASSERT_TRUE(unknown.has_value()) << unknown.error().message();
  EXPECT_GT(unknown->requeueAfter.count(), 0);
  auto held = stored("m-2");
  ASSERT_TRUE(held) << "the finalizer stays while the AzureCluster cannot be resolved";
  EXPECT_FALSE(held->metadata.finalizers.empty());

  // The whole cluster is gone (its managed group with it): nothing is left to delete.
  ASSERT_TRUE(clusters.remove(kNs, "capz"));
  ASSERT_TRUE(reconcileUntil(
      "m-2", [&] { return !stored("m-2").has_value(); }, 3));
}

// The VM's operation runs and ends Failed (no capacity): CAPZ reports it and PUTs again on a
// later reconcile, never in a tight loop; once the region has capacity the machine is Ready.
TEST_F(AzureMachineControllerTest, FailedProvisioningIsReportedThenRetriedUntilReady) {
  emulators::FaultConfig faults;
  emulators::ErrorRule rule;
  rule.code = "AllocationFailed";
  rule.message = "no capacity for the size";
  rule.probability = 1;
  faults.errors["VirtualMachines_CreateOrUpdate"] = {rule};
  server_->emulator().engine().faults().replace(faults);
  createMachine("m-fail");
  setClusterReady();
  setBootstrapData("m-fail");
  ASSERT_TRUE(reconcileUntil(
      "m-fail", [&] { return vmRunningReason("m-fail") == kVMProvisionFailedReason; }));
  auto machine = stored("m-fail");
  ASSERT_TRUE(machine);
  const auto* vmRunning = condition(*machine, kVMRunningCondition);
  ASSERT_NE(vmRunning, nullptr);
  EXPECT_NE(vmRunning->message.find("AllocationFailed"), std::string::npos) << vmRunning->message;
  EXPECT_EQ(vmRunning->severity, api::capi::kSeverityWarning);
  EXPECT_FALSE(machine->status.failureReason) << "a failed operation is not terminal";
  EXPECT_FALSE(machine->status.ready);
  EXPECT_TRUE(machine->status.longRunningOperationStates.empty())
      << "the failed operation's future is dropped";

  // Retried after a wait, not at once: the requeue is the controller's, not the queue's backoff.
  const std::string vm = kRgId + "/providers/Microsoft.Compute/virtualMachines/m-fail";
  const int64_t puts = putsOf(vm);
  runtime::Outcome again = reconcile("m-fail");
  ASSERT_TRUE(again.has_value()) << again.error().message();
  EXPECT_GT(again->requeueAfter.count(), 0);
  EXPECT_EQ(putsOf(vm), puts + 1) << "the Failed VM is PUT again";

  server_->emulator().engine().faults().replace(emulators::FaultConfig{});
  ASSERT_TRUE(reconcileUntil("m-fail", [&] {
    auto m = stored("m-fail");
    return m && m->status.ready;
  }));
  EXPECT_EQ(vmRunningReason("m-fail"), "True");
  EXPECT_FALSE(stored("m-fail")->status.failureReason);
}

// ARM refuses the VM's PUT (an invalid parameter): no retry can help, so the machine fails
// for good with failureReason and failureMessage, and nothing more is sent.
TEST_F(AzureMachineControllerTest, RefusedVmIsATerminalFailure) {
  emulators::FaultConfig faults;
  emulators::ErrorRule rule;
  rule.code = "InvalidParameter";
  rule.message = "The value of parameter vmSize is invalid.";
  rule.status = 400;
  rule.probability = 1;
  faults.errors["VirtualMachines_CreateOrUpdate"] = {rule};
  server_->emulator().engine().faults().replace(faults);
  createMachine("m-bad");
  setClusterReady();
  setBootstrapData("m-bad");
  ASSERT_TRUE(reconcileUntil("m-bad", [&] {
    auto m = stored("m-bad");
    return m && m->status.failureReason.has_value();
  }));
  auto machine = stored("m-bad");
  EXPECT_EQ(machine->status.failureReason, std::optional<std::string>(kCreateMachineError));
  ASSERT_TRUE(machine->status.failureMessage);
  EXPECT_NE(machine->status.failureMessage->find("InvalidParameter"), std::string::npos)
      << *machine->status.failureMessage;
  EXPECT_EQ(vmRunningReason("m-bad"), kVMProvisionFailedReason);
  EXPECT_FALSE(machine->status.ready);
  // Terminal: nothing more is sent.
  const std::string vm = kRgId + "/providers/Microsoft.Compute/virtualMachines/m-bad";
  const int64_t puts = putsOf(vm);
  runtime::Outcome again = reconcile("m-bad");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->requeueAfter.count(), 0);
  EXPECT_EQ(putsOf(vm), puts);
}

}  // namespace
}  // namespace nodewright::controllers::capz::azuremachine::testing
