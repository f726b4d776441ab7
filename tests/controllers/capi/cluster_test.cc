#include "controllers/capi/cluster_controller.h"

#include <gtest/gtest.h>

#include "capi_env.h"

// The Cluster and its AzureCluster; deleting a Cluster takes everything of it down first.
namespace nodewright::controllers::capi {
namespace {

using namespace capi::testing;

class ClusterTest : public CapiEnv {
 protected:
  Cluster createCluster(const std::string& name) {
    Cluster cluster;
    cluster.apiVersion = "cluster.x-k8s.io/v1beta1";
    cluster.kind = "Cluster";
    cluster.metadata.name = name;
    cluster.metadata.namespace_ = kNamespace;
    cluster.spec.infrastructureRef = infraRef("AzureCluster", name);
    auto created = clusters_.create(cluster);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(cluster);
  }
  Cluster cluster(const std::string& name) {
    auto got = clusters_.get(kNamespace, name);
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(Cluster{});
  }
  void markAzureClusterReady(const std::string& name) {
    mutate<AzureCluster>(azureClusters_, name, [](AzureCluster& c) {
      c.spec.controlPlaneEndpoint = {"capz-demo.westeurope.cloudapp.azure.com", 6443};
    });
    mutate<AzureCluster>(
        azureClusters_, name, [](AzureCluster& c) { c.status.ready = true; }, true);
  }
};

TEST_F(ClusterTest, ProvisionedOnceTheAzureClusterIsReady) {
  createAzureCluster(kClusterName);
  const Cluster created = createCluster(kClusterName);
  ASSERT_TRUE(eventually([&] {
    Cluster c = cluster(kClusterName);
    return c.status.phase == "Provisioning" && !c.status.conditions.empty();
  }));
  ASSERT_TRUE(eventually([&] {
    auto infra = azureClusters_.get(kNamespace, kClusterName);
    return infra && ownedBy(infra->metadata, "Cluster", created.metadata.uid);
  }));

  markAzureClusterReady(kClusterName);
  ASSERT_TRUE(eventually([&] { return cluster(kClusterName).status.phase == "Provisioned"; }));
  Cluster c = cluster(kClusterName);
  EXPECT_TRUE(c.status.infrastructureReady);
  EXPECT_EQ(c.spec.controlPlaneEndpoint.host, "capz-demo.westeurope.cloudapp.azure.com");
  EXPECT_EQ(c.spec.controlPlaneEndpoint.port, 6443);
  ASSERT_FALSE(c.status.conditions.empty());
  EXPECT_EQ(c.status.conditions[0].type, "Ready");
  EXPECT_EQ(c.status.conditions[0].status, "True");
}

TEST_F(ClusterTest, DeletionTakesDownMachinesPoolsAndInfrastructureFirst) {
  createAzureCluster(kClusterName);
  createCluster(kClusterName);
  markAzureClusterReady(kClusterName);
  createMachineTemplate("md-0-template", "Standard_D2s_v3");
  createDeployment("md-0", 2, "md-0-template");
  createAzureMachinePool("mp-0");
  MachinePool pool;
  pool.apiVersion = "cluster.x-k8s.io/v1beta1";
  pool.kind = "MachinePool";
  pool.metadata.name = "mp-0";
  pool.metadata.namespace_ = kNamespace;
  pool.spec.clusterName = kClusterName;
  pool.spec.replicas = 1;
  pool.spec.template_.spec.clusterName = kClusterName;
  pool.spec.template_.spec.bootstrap.configRef = kubeadmConfigRef("KubeadmConfig", "mp-0");
  pool.spec.template_.spec.infrastructureRef = infraRef("AzureMachinePool", "mp-0");
  ASSERT_TRUE(pools_.create(pool));
  ASSERT_TRUE(eventually([&] {
    return machinesOf("md-0").size() == 2 && listOf(azureMachines_).size() == 2 &&
           cluster(kClusterName).status.phase == "Provisioned" &&
           pools_.get(kNamespace, "mp-0").value_or(MachinePool{}).status.bootstrapReady;
  }));
  // CAPZ's finalizer holds the AzureCluster while its resource group goes.
  mutate<AzureCluster>(azureClusters_, kClusterName, [](AzureCluster& c) {
    c.metadata.finalizers.push_back("azurecluster.infrastructure.cluster.x-k8s.io");
  });

  ASSERT_TRUE(clusters_.remove(kNamespace, kClusterName));
  // Machines, sets, deployments and pools go first; the AzureCluster only after them.
  ASSERT_TRUE(eventually([&] {
    return listOf(machines_).empty() && listOf(azureMachines_).empty() && listOf(sets_).empty() &&
           listOf(deployments_).empty() && listOf(pools_).empty() &&
           listOf(azureMachinePools_).empty();
  }));
  ASSERT_TRUE(eventually([&] {
    auto infra = azureClusters_.get(kNamespace, kClusterName);
    return infra && infra->metadata.deletionTimestamp;
  }));
  EXPECT_EQ(cluster(kClusterName).status.phase, "Deleting");

  mutate<AzureCluster>(azureClusters_, kClusterName,
                       [](AzureCluster& c) { c.metadata.finalizers.clear(); });
  ASSERT_TRUE(eventually(
      [&] { return gone(azureClusters_, kClusterName) && gone(clusters_, kClusterName); }));
}

}  // namespace
}  // namespace nodewright::controllers::capi
