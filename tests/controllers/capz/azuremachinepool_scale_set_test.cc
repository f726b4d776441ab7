// An AzureMachinePool's scale set and the delete of one of its instances
// (src/controllers/capz/azuremachinepool) against the ARM emulator.
#include "api/capz/conditions.h"
#include "controllers/capz/azuremachine/machine_fixture.h"
#include "controllers/capz/azuremachinepool/scale_set.h"

namespace nodewright::controllers::capz::azuremachine::testing {
namespace {

namespace amp = azuremachinepool;

class AzureMachinePoolScaleSetTest : public MachineServicesFixture {
 protected:
  void SetUp() override {
    MachineServicesFixture::SetUp();
    pool_.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    pool_.kind = "AzureMachinePool";
    pool_.metadata.name = "pool0";
    pool_.metadata.namespace_ = "default";
    pool_.spec.location = "eastus";
    pool_.spec.template_.vmSize = "Standard_D2s_v3";
    pool_.spec.template_.sshPublicKey = kSshKey;
    pool_.spec.template_.osDisk.osType = "Linux";
    pool_.spec.template_.osDisk.diskSizeGB = 30;
  }

  amp::PoolScope scope(int32_t replicas) {
    amp::PoolScope s;
    s.pool = &pool_;
    s.cluster = &cluster_;
    s.clusterName = "capz";
    s.replicas = replicas;
    s.bootstrapData = "#cloud-config\n";
    return s;
  }

  std::vector<Service> setServices(int32_t replicas) {
    auto built = amp::scaleSetServices(scope(replicas));
    EXPECT_TRUE(built.has_value()) << built.error().message();
    return built.value_or(std::vector<Service>{});
  }

  Pass run(const std::vector<Service>& list, bool deleting = false) {
    auto& status = pool_.status;
    Pass pass;
    for (int i = 0; i < 20; ++i) {
      pass = deleting
                 ? runner_->remove(list, status.longRunningOperationStates, status.conditions)
                 : runner_->reconcile(list, status.longRunningOperationStates, status.conditions);
      if (pass.done || pass.failed) {
        return pass;
      }
      clock_.advance(pass.requeueAfter.value_or(10s));
    }
    ADD_FAILURE() << "not done";
    return pass;
  }

  api::capz::AzureMachinePool pool_;
};

TEST_F(AzureMachinePoolScaleSetTest, ScaleSetRunsReplicasInstancesAndScalesWithOnePutEach) {
  const std::string set = amp::scaleSetId(scope(2));
  Pass created = run(setServices(2));
  ASSERT_TRUE(created.done) << created.failureMessage;
  EXPECT_EQ(putsOf(set), 1);
  EXPECT_TRUE(exists(set + "/virtualMachines/0"));
  EXPECT_TRUE(exists(set + "/virtualMachines/1"));
  EXPECT_FALSE(exists(set + "/virtualMachines/2"));
  auto instance = client_->get(ref(set + "/virtualMachines/1", "check"), kCall);
  ASSERT_TRUE(instance) << instance.error().message;
  api::capz::AzureMachinePoolInstanceStatus status = amp::instanceStatus(*instance);
  EXPECT_EQ(status.providerID, "azure://" + set + "/virtualMachines/1");
  EXPECT_EQ(status.instanceID, "1");
  EXPECT_TRUE(status.instanceName.starts_with("pool0"));
  EXPECT_TRUE(status.latestModelApplied);

  // Up to date: no PUT; more replicas: one.
  ASSERT_TRUE(run(setServices(2)).done);
  EXPECT_EQ(putsOf(set), 1);
  ASSERT_TRUE(run(setServices(3)).done);
  EXPECT_EQ(putsOf(set), 2);
  EXPECT_TRUE(exists(set + "/virtualMachines/2"));
}

TEST_F(AzureMachinePoolScaleSetTest, ScaleSetIsUpToDateWithoutTheSecretsArmNeverReturns) {
  std::vector<Service> services = setServices(2);
  ASSERT_FALSE(services.empty());
  ASSERT_FALSE(services.front().specs.empty());
  const lro::ResourceSpec& spec = *services.front().specs.front();
  auto desired = spec.parameters(api::Json());
  ASSERT_TRUE(desired && *desired);
  // What ARM answers a GET with: no custom data, no admin password, no protected settings.
  api::Json returned = **desired;
  api::Json& profile = returned["properties"]["virtualMachineProfile"];
  profile["osProfile"].erase("customData");
  profile["osProfile"].erase("adminPassword");
  bool hadProtected = false;
  for (api::Json& extension : profile["extensionProfile"]["extensions"]) {
    hadProtected |= extension["properties"].erase("protectedSettings") > 0;
  }
  ASSERT_TRUE(hadProtected) << "the bootstrap extension carries its command as protected";
  auto again = spec.parameters(returned);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->has_value()) << "no PUT on the next pass";
}

TEST_F(AzureMachinePoolScaleSetTest, DeletingAPoolMachineShowsDeletingAtOnceAndRemovesItsInstance) {
  const std::string set = amp::scaleSetId(scope(2));
  ASSERT_TRUE(run(setServices(2)).done);
  api::capz::AzureMachinePoolMachine machine;
  machine.metadata.name = "pool0-1";
  machine.spec.instanceID = "1";
  std::vector<Service> removal = amp::poolMachineDeleteServices(scope(2), machine);
  api::capz::Futures futures;
  std::vector<api::capi::CapiCondition> conditions;
  Pass first = runner_->remove(removal, futures, conditions);
  EXPECT_FALSE(first.done);
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0].type, amp::kVMRunningCondition);
  EXPECT_EQ(conditions[0].status, "False");
  EXPECT_EQ(conditions[0].reason, api::capz::kDeletingReason);
  ASSERT_EQ(futures.size(), 1u);
  EXPECT_EQ(futures[0].type, "DELETE");

  clock_.advance(first.requeueAfter.value_or(30s));
  Pass done;
  for (int i = 0; i < 10 && !done.done; ++i) {
    done = runner_->remove(removal, futures, conditions);
    if (!done.done) {
      clock_.advance(done.requeueAfter.value_or(10s));
    }
  }
  ASSERT_TRUE(done.done) << done.failureMessage;
  EXPECT_FALSE(exists(set + "/virtualMachines/1"));
  EXPECT_TRUE(exists(set + "/virtualMachines/0"));
  auto scaleSet = client_->get(ref(set, "check"), kCall);
  ASSERT_TRUE(scaleSet) << scaleSet.error().message;
  EXPECT_EQ((*scaleSet)["sku"]["capacity"], 1) << "ARM runs one instance fewer";
}

}  // namespace
}  // namespace nodewright::controllers::capz::azuremachine::testing
