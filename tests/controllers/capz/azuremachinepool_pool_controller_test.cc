// The AzureMachinePool controller against the embedded API server and the ARM emulator: the
// scale set follows the MachinePool's replicas, one AzureMachinePoolMachine per instance.
#include <spdlog/spdlog.h>

#include <stop_token>

#include "api/capi/cluster.h"
#include "api/capi/machine_pool.h"
#include "api/core/secret.h"
#include "controllers/capz/azuremachine/machine_fixture.h"
#include "controllers/capz/azuremachinepool/pool_controller.h"
#include "support/apiserver/test_server.h"
#include "support/kube/rest_config.h"

namespace nodewright::controllers::capz::azuremachine::testing {
namespace {

namespace amp = azuremachinepool;
using api::capi::MachinePool;
using api::capz::AzureMachinePool;
using api::capz::AzureMachinePoolMachine;

constexpr const char* kNs = "default";

// Lists a scale set's instances by reading instance ids in turn (ARM numbers them from 0 and
// never reuses a number); stops after a run of misses.
class ProbingInstances final : public amp::ScaleSetInstances {
 public:
  explicit ProbingInstances(cloud::azure::ArmClient& arm) : arm_(arm) {}
  core::Result<std::vector<api::Json>> list(const std::string& scaleSetId) override {
    std::vector<api::Json> out;
    for (int id = 0, misses = 0; misses < 8; ++id) {
      auto got =
          arm_.get(ref(scaleSetId + "/virtualMachines/" + std::to_string(id), "probe"), kCall);
      if (got) {
        out.push_back(*got);
        misses = 0;
      } else if (got.error().is(lro::CallError::Kind::NotFound)) {
        ++misses;
      } else {
        return tl::unexpected(core::Error::internal(got.error().message));
      }
    }
    return out;
  }

 private:
  cloud::azure::ArmClient& arm_;
};

class PoolControllerTest : public MachineServicesFixture {
 protected:
  void SetUp() override {
    MachineServicesFixture::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    instances_ = std::make_unique<ProbingInstances>(*client_);
    controller_ = std::make_unique<amp::PoolController>(*kube_, *runner_, *instances_, jumping_);
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
    kube::Typed<api::capz::AzureCluster> clusters(*kube_);
    api::capz::AzureCluster azure = cluster_;
    azure.status = {};
    auto stored = clusters.create(azure);
    ASSERT_TRUE(stored) << stored.error().describe();
    stored->status.ready = true;
    ASSERT_TRUE(clusters.updateStatus(*stored));

    api::corev1::Secret secret;
    secret.apiVersion = "v1";
    secret.kind = "Secret";
    secret.metadata.name = "mp-0-bootstrap";
    secret.metadata.namespace_ = kNs;
    secret.stringData["value"] = "#cloud-config\n";
    ASSERT_TRUE(kube::Typed<api::corev1::Secret>(*kube_).create(secret));

    MachinePool mp;
    mp.apiVersion = "cluster.x-k8s.io/v1beta1";
    mp.kind = "MachinePool";
    mp.metadata.name = "mp-0";
    mp.metadata.namespace_ = kNs;
    mp.spec.clusterName = "capz";
    mp.spec.replicas = 2;
    mp.spec.template_.spec.clusterName = "capz";
    mp.spec.template_.spec.bootstrap.dataSecretName = "mp-0-bootstrap";
    mp.spec.template_.spec.infrastructureRef.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    mp.spec.template_.spec.infrastructureRef.kind = "AzureMachinePool";
    mp.spec.template_.spec.infrastructureRef.name = "pool0";
    auto created = kube::Typed<MachinePool>(*kube_).create(mp);
    ASSERT_TRUE(created) << created.error().describe();

    AzureMachinePool pool;
    pool.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    pool.kind = "AzureMachinePool";
    pool.metadata.name = "pool0";
    pool.metadata.namespace_ = kNs;
    pool.metadata.labels = {{api::capi::kClusterNameLabel, "capz"}};
    api::OwnerReference owner;
    owner.apiVersion = "cluster.x-k8s.io/v1beta1";
    owner.kind = "MachinePool";
    owner.name = "mp-0";
    owner.uid = created->metadata.uid;
    owner.controller = true;
    pool.metadata.ownerReferences = {owner};
    pool.spec.location = "eastus";
    pool.spec.template_.vmSize = "Standard_D2s_v3";
    pool.spec.template_.sshPublicKey = kSshKey;
    pool.spec.template_.osDisk.osType = "Linux";
    pool.spec.template_.osDisk.diskSizeGB = 30;
    auto poolCreated = kube::Typed<AzureMachinePool>(*kube_).create(pool);
    ASSERT_TRUE(poolCreated) << poolCreated.error().describe();
  }

  bool reconcileUntil(const std::function<bool()>& until) {
    for (int i = 0; i < 30; ++i) {
      runtime::Context context(jumping_, clock_.steadyNow() + std::chrono::minutes(3),
                               std::stop_token(), spdlog::default_logger(), "pool0");
      auto outcome = controller_->reconcile({kNs, "pool0"}, context);
      EXPECT_TRUE(outcome.has_value()) << outcome.error().message();
      if (until()) {
        return true;
      }
      clock_.advance(
          outcome && outcome->requeueAfter.count() > 0
              ? std::chrono::duration_cast<std::chrono::microseconds>(outcome->requeueAfter)
              : std::chrono::microseconds(10s));
    }
    return false;
  }

  AzureMachinePool pool() {
    auto got = kube::Typed<AzureMachinePool>(*kube_).get(kNs, "pool0");
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(AzureMachinePool{});
  }
  std::vector<AzureMachinePoolMachine> poolMachines() {
    auto got = kube::Typed<AzureMachinePoolMachine>(*kube_).list(kNs);
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(std::vector<AzureMachinePoolMachine>{});
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> kube_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  std::unique_ptr<ProbingInstances> instances_;
  std::unique_ptr<amp::PoolController> controller_;
};

TEST_F(PoolControllerTest, ScaleSetFollowsReplicasWithOnePoolMachinePerInstance) {
  ASSERT_TRUE(reconcileUntil([&] { return pool().status.ready; }));
  AzureMachinePool stored = pool();
  EXPECT_EQ(stored.metadata.finalizers,
            std::vector<std::string>{"azuremachinepool.infrastructure.cluster.x-k8s.io"});
  EXPECT_EQ(stored.status.replicas, 2);
  ASSERT_EQ(stored.spec.providerIDList.size(), 2u);
  const std::string set = kRgId + "/providers/Microsoft.Compute/virtualMachineScaleSets/pool0";
  EXPECT_EQ(stored.spec.providerID, "azure://" + set);
  EXPECT_EQ(stored.spec.providerIDList[0], "azure://" + set + "/virtualMachines/0");
  std::vector<AzureMachinePoolMachine> machines = poolMachines();
  ASSERT_EQ(machines.size(), 2u);
  for (const auto& m : machines) {
    ASSERT_EQ(m.metadata.ownerReferences.size(), 1u);
    EXPECT_EQ(m.metadata.ownerReferences[0].kind, "AzureMachinePool");
    EXPECT_EQ(m.metadata.ownerReferences[0].name, "pool0");
    EXPECT_EQ(m.spec.providerID, "azure://" + set + "/virtualMachines/" + m.spec.instanceID);
  }
  EXPECT_EQ(putsOf(set), 1);

  kube::Typed<MachinePool> pools(*kube_);
  auto mp = pools.get(kNs, "mp-0");
  ASSERT_TRUE(mp);
  mp->spec.replicas = 3;
  ASSERT_TRUE(pools.update(*mp));
  ASSERT_TRUE(reconcileUntil([&] { return pool().status.replicas == 3 && pool().status.ready; }));
  EXPECT_EQ(poolMachines().size(), 3u);
  EXPECT_EQ(putsOf(set), 2);
}

TEST_F(PoolControllerTest, DeletingThePoolDeletesTheScaleSetThenDropsTheFinalizer) {
  ASSERT_TRUE(reconcileUntil([&] { return pool().status.ready; }));
  const std::string set = kRgId + "/providers/Microsoft.Compute/virtualMachineScaleSets/pool0";
  ASSERT_TRUE(kube::Typed<AzureMachinePool>(*kube_).remove(kNs, "pool0"));
  ASSERT_TRUE(reconcileUntil(
      [&] { return !kube::Typed<AzureMachinePool>(*kube_).get(kNs, "pool0").has_value(); }));
  EXPECT_FALSE(exists(set));
  EXPECT_FALSE(exists(set + "/virtualMachines/0"));
}

}  // namespace
}  // namespace nodewright::controllers::capz::azuremachine::testing
