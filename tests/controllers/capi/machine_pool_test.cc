#include "controllers/capi/machine_pool_controller.h"

#include <gtest/gtest.h>

#include "capi_env.h"

// A MachinePool and its AzureMachinePool: bootstrap data and the machine-pool contract.
namespace nodewright::controllers::capi {
namespace {

using namespace capi::testing;

class MachinePoolTest : public CapiEnv {
 protected:
  MachinePool createPool(const std::string& name, int32_t replicas) {
    MachinePool pool;
    pool.apiVersion = "cluster.x-k8s.io/v1beta1";
    pool.kind = "MachinePool";
    pool.metadata.name = name;
    pool.metadata.namespace_ = kNamespace;
    pool.spec.clusterName = kClusterName;
    pool.spec.replicas = replicas;
    pool.spec.template_.spec.clusterName = kClusterName;
    pool.spec.template_.spec.bootstrap.configRef = kubeadmConfigRef("KubeadmConfig", name);
    pool.spec.template_.spec.infrastructureRef = infraRef("AzureMachinePool", name);
    auto created = pools_.create(pool);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(pool);
  }
  MachinePool pool(const std::string& name) {
    auto got = pools_.get(kNamespace, name);
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(MachinePool{});
  }
};

TEST_F(MachinePoolTest, CopiesProviderIdsAndReplicasFromTheAzureMachinePool) {
  createAzureMachinePool("mp-0");
  const MachinePool created = createPool("mp-0", 2);
  ASSERT_TRUE(eventually([&] {
    MachinePool p = pool("mp-0");
    return p.status.bootstrapReady && p.status.phase == "Provisioning" &&
           p.spec.template_.spec.bootstrap.dataSecretName == "mp-0-bootstrap";
  }));
  auto secret = secrets_.get(kNamespace, "mp-0-bootstrap");
  ASSERT_TRUE(secret);
  EXPECT_TRUE(ownedBy(secret->metadata, "MachinePool", created.metadata.uid));
  ASSERT_TRUE(eventually([&] {
    auto infra = azureMachinePools_.get(kNamespace, "mp-0");
    return infra && ownedBy(infra->metadata, "MachinePool", created.metadata.uid);
  }));

  // CAPZ scaled the VMSS to two instances.
  const std::vector<std::string> ids = {providerIdOf("mp-0_0"), providerIdOf("mp-0_1")};
  mutate<AzureMachinePool>(azureMachinePools_, "mp-0",
                           [&](AzureMachinePool& p) { p.spec.providerIDList = ids; });
  mutate<AzureMachinePool>(
      azureMachinePools_, "mp-0",
      [](AzureMachinePool& p) {
        p.status.ready = true;
        p.status.replicas = 2;
      },
      true);
  ASSERT_TRUE(eventually([&] { return pool("mp-0").status.phase == "Running"; }));
  MachinePool p = pool("mp-0");
  EXPECT_EQ(p.spec.providerIDList, ids);
  EXPECT_EQ(p.status.replicas, 2);
  EXPECT_EQ(p.status.readyReplicas, 2);
  EXPECT_TRUE(p.status.infrastructureReady);

  // Scaling up shows until the provider catches up.
  mutate<MachinePool>(pools_, "mp-0", [](MachinePool& p) { p.spec.replicas = 3; });
  ASSERT_TRUE(eventually([&] { return pool("mp-0").status.phase == "ScalingUp"; }));
}

TEST_F(MachinePoolTest, DeletionRemovesTheAzureMachinePoolAndBootstrapSecret) {
  createAzureMachinePool("mp-0");
  createPool("mp-0", 1);
  ASSERT_TRUE(eventually([&] { return pool("mp-0").status.bootstrapReady; }));
  ASSERT_TRUE(pools_.remove(kNamespace, "mp-0"));
  ASSERT_TRUE(eventually([&] {
    return gone(azureMachinePools_, "mp-0") && gone(secrets_, "mp-0-bootstrap") &&
           gone(pools_, "mp-0");
  }));
}

}  // namespace
}  // namespace nodewright::controllers::capi
