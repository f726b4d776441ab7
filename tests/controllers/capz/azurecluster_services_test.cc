#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "api/capz/azure_cluster.h"
#include "api/capz/conditions.h"
#include "api/codec.h"
#include "controllers/capz/arm_resource.h"
#include "controllers/capz/azurecluster/services.h"
#include "controllers/capz/capz_emulator_fixture.h"

// An AzureCluster's services, as clusterServices builds them from a defaulted cluster, run by
// the ServiceRunner against the ARM emulator (median latencies, fixed): every body is accepted,
// every service ends Done in both orders, and deletes leave nothing behind.
namespace nodewright::controllers::capz::testing {
namespace {

namespace capz = api::capz;
using azurecluster::clusterServices;

constexpr const char* kSubscription = "22222222-2222-2222-2222-222222222222";

capz::AzureCluster defaultedCluster(const std::string& name) {
  capz::AzureCluster c;
  c.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
  c.kind = "AzureCluster";
  c.metadata.name = name;
  c.metadata.namespace_ = "default";
  c.spec.subscriptionID = kSubscription;
  c.spec.location = "eastus";
  c.spec.additionalTags = {{"team", "capz"}};
  capz::applyAzureClusterDefaults(c);
  return c;
}

class AzureClusterServicesTest : public CapzEmulatorFixture {
 protected:
  // CAPZ's call window (seed 004's AzureClientTimeout): most operations outlast it, so a pass
  // begins what may start and parks it, and the passes follow the dependency graph.
  void SetUp() override { startEmulator(medianLatencies(), 2s); }

  ServiceRunner runner(Order order) {
    RunnerOptions options;
    options.order = order;
    return ServiceRunner(*engine_, clock_, options);
  }

  // Creates the cluster's services to the end; returns the passes and the simulated time.
  std::vector<Pass> create(const capz::AzureCluster& cluster, Order order, bool managed,
                           std::chrono::steady_clock::duration* took = nullptr) {
    ServiceRunner r = runner(order);
    const auto began = clock_.steadyNow();
    std::vector<Pass> passes =
        runToEnd(r, clusterServices(cluster, managed), futures_, conditions_, false);
    if (took != nullptr) {
      *took = clock_.steadyNow() - began;
    }
    EXPECT_TRUE(passes.back().done) << passes.back().failureMessage;
    return passes;
  }

  std::vector<Pass> remove(const capz::AzureCluster& cluster, bool managed) {
    ServiceRunner r = runner(Order::Graph);
    // As the controller: only what carries the cluster's owned tag is deleted.
    std::vector<Service> services = clusterServices(cluster, managed);
    auto ours = azurecluster::keepOwnedForDelete(services, cluster, *arm_, 5s);
    EXPECT_TRUE(ours) << ours.error().message();
    std::vector<Pass> passes = runToEnd(r, services, futures_, conditions_, true);
    std::string outcomes;
    for (const auto& [name, outcome] : passes.back().outcomes) {
      outcomes += name + ": " + outcome.message + "; ";
    }
    EXPECT_TRUE(passes.back().done) << passes.back().failureMessage << outcomes;
    return passes;
  }

  int64_t requests(const std::string& action) {
    const api::Json stats = adminStats();
    const api::Json entry = stats["requests"].value(action, api::Json::object());
    return entry.value("count", int64_t{0});
  }

  void expectAllTrue(const std::vector<std::string>& types) {
    for (const std::string& type : types) {
      const auto* c = find(conditions_, type);
      ASSERT_NE(c, nullptr) << type;
      EXPECT_EQ(c->status, "True") << type << ": " << c->message;
    }
  }

  api::capz::Futures futures_;
  std::vector<api::capi::CapiCondition> conditions_;
};

TEST_F(AzureClusterServicesTest, GraphCreatesEveryServiceAndStartsIndependentOnesTogether) {
  const capz::AzureCluster cluster = defaultedCluster("graph");
  std::vector<Pass> passes = create(cluster, Order::Graph, true);

  const std::vector<std::string> first = namesOf(passes.front());
  for (const char* s :
       {"resourcegroups", "virtualnetworks", "securitygroups", "routetables", "publicips"}) {
    EXPECT_NE(std::find(first.begin(), first.end(), s), first.end()) << s;
  }
  expectAllTrue({capz::kResourceGroupReadyCondition, capz::kVNetReadyCondition,
                 capz::kSecurityGroupsReadyCondition, capz::kRouteTablesReadyCondition,
                 capz::kPublicIPsReadyCondition, capz::kNATGatewaysReadyCondition,
                 capz::kSubnetsReadyCondition, capz::kLoadBalancersReadyCondition});
  EXPECT_EQ(find(conditions_, capz::kPrivateDNSReadyCondition), nullptr);
  EXPECT_TRUE(futures_.empty());

  // What CAPZ's defaults name, where CAPZ puts it.
  const std::string rg = "graph";
  EXPECT_TRUE(
      exists(resourceId(kSubscription, rg, "Microsoft.Network/loadBalancers", "graph-public-lb")));
  EXPECT_TRUE(
      exists(resourceId(kSubscription, rg, "Microsoft.Network/virtualNetworks/graph-vnet/subnets",
                        "graph-node-subnet")));
  EXPECT_TRUE(
      exists(resourceId(kSubscription, rg, "Microsoft.Network/natGateways", "graph-node-natgw")));

  // A second run finds everything up to date: no PUT at all.
  const int64_t vnetPuts = requests("VirtualNetworks_CreateOrUpdate");
  const int64_t lbPuts = requests("LoadBalancers_CreateOrUpdate");
  Pass again =
      runner(Order::Graph).reconcile(clusterServices(cluster, true), futures_, conditions_);
  EXPECT_TRUE(again.done);
  EXPECT_EQ(requests("VirtualNetworks_CreateOrUpdate"), vnetPuts);
  EXPECT_EQ(requests("LoadBalancers_CreateOrUpdate"), lbPuts);
}

TEST_F(AzureClusterServicesTest, SerialCreatesEveryServiceInCapzOrder) {
  std::vector<Pass> passes = create(defaultedCluster("serial"), Order::Serial, true);

  EXPECT_EQ(namesOf(passes.back()),
            (std::vector<std::string>{"resourcegroups", "virtualnetworks", "securitygroups",
                                      "routetables", "publicips", "natgateways", "subnets",
                                      "loadbalancers"}));
  expectAllTrue({capz::kResourceGroupReadyCondition, capz::kSubnetsReadyCondition,
                 capz::kLoadBalancersReadyCondition});
}

TEST_F(AzureClusterServicesTest, GraphCreatesTheClusterFasterThanSerial) {
  std::chrono::steady_clock::duration graph{};
  std::chrono::steady_clock::duration serial{};
  create(defaultedCluster("fast"), Order::Graph, true, &graph);
  create(defaultedCluster("slow"), Order::Serial, true, &serial);

  const auto seconds = [](auto d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count() / 1000.0;
  };
  std::cout << "simulated cluster creation: graph " << seconds(graph) << " s, serial "
            << seconds(serial) << " s\n";
  RecordProperty("graph_ms", std::to_string(seconds(graph) * 1000));
  RecordProperty("serial_ms", std::to_string(seconds(serial) * 1000));
  EXPECT_LT(graph, serial);
}

TEST_F(AzureClusterServicesTest, DeletingAManagedGroupDeletesOnlyTheGroup) {
  const capz::AzureCluster cluster = defaultedCluster("managed");
  create(cluster, Order::Graph, true);
  auto group = client_->get(
      cloud::azure::armtest::ref(resourceGroupId(kSubscription, "managed"), "resourcegroups"),
      cloud::azure::armtest::kCall);
  ASSERT_TRUE(group.has_value());
  ASSERT_TRUE(azurecluster::isManagedResourceGroup(*group, "managed"));
  ASSERT_GT(liveResources(), 10u);

  remove(cluster, true);

  EXPECT_EQ(liveResources(), 0u);
  EXPECT_EQ(requests("ResourceGroups_Delete"), 1);
  EXPECT_EQ(requests("VirtualNetworks_Delete"), 0);
  EXPECT_EQ(requests("LoadBalancers_Delete"), 0);
  const auto* rg = find(conditions_, capz::kResourceGroupReadyCondition);
  ASSERT_NE(rg, nullptr);
  EXPECT_EQ(rg->reason, capz::kDeletedReason);
}

TEST_F(AzureClusterServicesTest, AnUnmanagedGroupIsNeitherTakenOverNorDeleted) {
  const std::string groupId = resourceGroupId(kSubscription, "theirs");
  ASSERT_NO_FATAL_FAILURE((void)ArmEmulatorFixture::create(
      groupId, "resourcegroups", {{"location", "eastus"}, {"tags", {{"a", "b"}}}}));
  capz::AzureCluster cluster = defaultedCluster("unmanaged");
  cluster.spec.resourceGroup = "theirs";
  cluster.spec.networkSpec.vnet.resourceGroup = "theirs";
  auto group = client_->get(cloud::azure::armtest::ref(groupId, "resourcegroups"),
                            cloud::azure::armtest::kCall);
  ASSERT_TRUE(group.has_value());
  ASSERT_FALSE(azurecluster::isManagedResourceGroup(*group, "unmanaged"));

  create(cluster, Order::Graph, false);
  EXPECT_EQ(putsOf(groupId), 1) << "an existing group is left as it is";

  remove(cluster, false);

  EXPECT_TRUE(exists(groupId));
  EXPECT_EQ(liveResources(), 1u) << "everything but the group is gone";
  EXPECT_EQ(requests("ResourceGroups_Delete"), 0);
  const auto* lb = find(conditions_, capz::kLoadBalancersReadyCondition);
  ASSERT_NE(lb, nullptr);
  EXPECT_EQ(lb->reason, capz::kDeletedReason);
}

TEST_F(AzureClusterServicesTest, AnUnmanagedGroupKeepsTheVnetTheUserBrought) {
  const std::string groupId = resourceGroupId(kSubscription, "theirs");
  ASSERT_NO_FATAL_FAILURE((void)ArmEmulatorFixture::create(
      groupId, "resourcegroups", {{"location", "eastus"}, {"tags", {{"a", "b"}}}}));
  capz::AzureCluster cluster = defaultedCluster("byo");
  cluster.spec.resourceGroup = "theirs";
  auto& vnet = cluster.spec.networkSpec.vnet;
  vnet.resourceGroup = "theirs";
  const std::string vnetId =
      resourceId(kSubscription, "theirs", "Microsoft.Network/virtualNetworks", vnet.name);
  ASSERT_NO_FATAL_FAILURE((void)ArmEmulatorFixture::create(
      vnetId, "virtualnetworks",
      {{"location", "eastus"},
       {"properties", {{"addressSpace", {{"addressPrefixes", vnet.cidrBlocks}}}}},
       {"tags", {{"team", "network"}}}}));

  create(cluster, Order::Graph, false);
  EXPECT_EQ(putsOf(vnetId), 1) << "the user's vnet is not updated";
  ASSERT_FALSE(cluster.spec.networkSpec.subnets.empty());
  const std::string subnetId = vnetId + "/subnets/" + cluster.spec.networkSpec.subnets[0].name;
  ASSERT_TRUE(exists(subnetId));

  remove(cluster, false);

  EXPECT_TRUE(exists(vnetId)) << "not tagged owned: not ours to delete";
  EXPECT_TRUE(exists(subnetId)) << "a subnet goes with its vnet's ownership";
  EXPECT_EQ(requests("VirtualNetworks_Delete"), 0);
  EXPECT_EQ(requests("Subnets_Delete"), 0);
  const auto* lb = find(conditions_, capz::kLoadBalancersReadyCondition);
  ASSERT_NE(lb, nullptr);
  EXPECT_EQ(lb->reason, capz::kDeletedReason) << "what we created still goes";
}

TEST_F(AzureClusterServicesTest, AManagedGroupStillDeletesOurVnetInAnotherGroup) {
  const std::string vnetGroupId = resourceGroupId(kSubscription, "vnets");
  ASSERT_NO_FATAL_FAILURE(
      (void)ArmEmulatorFixture::create(vnetGroupId, "resourcegroups", {{"location", "eastus"}}));
  capz::AzureCluster cluster = defaultedCluster("split");
  cluster.spec.networkSpec.vnet.resourceGroup = "vnets";
  const std::string vnetId = resourceId(kSubscription, "vnets", "Microsoft.Network/virtualNetworks",
                                        cluster.spec.networkSpec.vnet.name);
  create(cluster, Order::Graph, true);
  ASSERT_TRUE(exists(vnetId));

  remove(cluster, true);

  EXPECT_FALSE(exists(vnetId)) << "ours, outside the managed group";
  EXPECT_FALSE(exists(resourceGroupId(kSubscription, "split")));
  EXPECT_TRUE(exists(vnetGroupId));
}

TEST_F(AzureClusterServicesTest, PrivateClusterWithBastionGetsDnsAndBastion) {
  capz::AzureCluster cluster;
  cluster.metadata.name = "private";
  cluster.spec.subscriptionID = kSubscription;
  cluster.spec.location = "eastus";
  cluster.spec.networkSpec.apiServerLB.emplace();
  api::applyDefaults(*cluster.spec.networkSpec.apiServerLB);
  cluster.spec.networkSpec.apiServerLB->type = "Internal";
  cluster.spec.bastionSpec.azureBastion.emplace();
  capz::applyAzureClusterDefaults(cluster);
  EXPECT_EQ(azurecluster::privateDNSZoneName(cluster), "private.capz.io");

  std::vector<Pass> passes = create(cluster, Order::Graph, true);

  expectAllTrue({capz::kPrivateDNSReadyCondition, capz::kBastionHostReadyCondition,
                 capz::kLoadBalancersReadyCondition, capz::kSubnetsReadyCondition});
  const std::string zone =
      resourceId(kSubscription, "private", "Microsoft.Network/privateDnsZones", "private.capz.io");
  EXPECT_TRUE(exists(zone + "/A/apiserver"));
  EXPECT_TRUE(exists(zone + "/virtualNetworkLinks/private-vnet-link"));
  EXPECT_TRUE(exists(resourceId(kSubscription, "private", "Microsoft.Network/bastionHosts",
                                "private-azure-bastion")));
  EXPECT_FALSE(exists(resourceId(kSubscription, "private", "Microsoft.Network/publicIPAddresses",
                                 "pip-private-apiserver")))
      << "an internal API server has no public IP";

  remove(cluster, true);
  EXPECT_EQ(liveResources(), 0u);
}

}  // namespace
}  // namespace nodewright::controllers::capz::testing
