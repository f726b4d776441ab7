// CAPZ manifests as the quickstart flavors generate them and as the CAPZ controllers leave them
// decode through the builtin registry without errors, with the CAPZ webhook defaults applied.
#include <gtest/gtest.h>

#include "api/capi/manifest_helpers.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_machine.h"
#include "api/capz/azure_machine_pool.h"
#include "api/capz/conditions.h"
#include "api/capz/manifests.h"

namespace nodewright::api::capz {
namespace {

using capi::testing::decode;
using capi::testing::decodeValid;
using capi::testing::document;
using capi::testing::documents;
using capi::testing::errorStrings;

TEST(AzureClusterManifestTest, PublicClusterWithFullNetworkSpecDecodes) {
  AzureCluster cluster = decodeValid<AzureCluster>(document(testing::kPublicCluster));
  const NetworkSpec& net = cluster.spec.networkSpec;
  ASSERT_EQ(net.subnets.size(), 2u);
  const SecurityGroup& nsg = *net.subnets[0].securityGroup;
  ASSERT_EQ(nsg.securityRules.size(), 3u);
  EXPECT_EQ(nsg.securityRules[1].action, "Allow");  // defaulted
  EXPECT_EQ(nsg.securityRules[2].destination, "Internet");
  EXPECT_EQ(net.subnets[1].natGateway->ip->name, "pip-node-natgw");
  EXPECT_EQ(net.subnets[1].serviceEndpoints[0].locations.size(), 2u);
  EXPECT_EQ(net.subnets[1].privateEndpoints[0].privateLinkServiceConnections[0].groupIDs[0],
            "blob");
  EXPECT_EQ(net.vnet.peerings[0].forwardPeeringProperties.allowForwardedTraffic, true);
  EXPECT_EQ(net.apiServerLB->frontendIPs[0].publicIP->dnsName,
            "capz-demo-7f3a.westeurope.cloudapp.azure.com");
  EXPECT_EQ(cluster.spec.cloudProviderConfigOverrides["backOffs"]["cloudProviderBackoffRetries"],
            1);
  EXPECT_TRUE(cluster.spec.failureDomains.at("1").controlPlane);
}

TEST(AzureClusterManifestTest, PrivateClusterWithInternalLoadBalancerDecodes) {
  AzureCluster cluster = decodeValid<AzureCluster>(document(testing::kPrivateCluster));
  const NetworkSpec& net = cluster.spec.networkSpec;
  EXPECT_EQ(net.apiServerLB->type, "Internal");
  EXPECT_EQ(net.apiServerLB->name, "capz-private-internal-lb");
  EXPECT_EQ(net.privateDNSZoneName, "capz-private.internal.example.com");
  // IPv6 subnets get no NAT gateway; NAT gateways are IPv4-only.
  EXPECT_FALSE(net.subnets[1].natGateway.has_value());
  EXPECT_FALSE(net.nodeOutboundLB.has_value());
  ASSERT_TRUE(net.controlPlaneOutboundLB.has_value());
  EXPECT_EQ(net.controlPlaneOutboundLB->name, "capz-private-outbound-lb");
  EXPECT_EQ(net.controlPlaneOutboundLB->frontendIPs[0].publicIP->name,
            "pip-capz-private-controlplane-outbound");
}

TEST(AzureClusterDefaultsTest, DerivesTheNetworkFromTheClusterName) {
  AzureCluster cluster = decodeValid<AzureCluster>(document(R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureCluster
metadata:
  name: demo
spec:
  location: westus2
  identityRef:
    kind: AzureClusterIdentity
    name: cluster-identity
  bastionSpec:
    azureBastion: {}
)"));
  const AzureClusterSpec& spec = cluster.spec;
  EXPECT_EQ(spec.resourceGroup, "demo");
  EXPECT_EQ(spec.azureEnvironment, "AzurePublicCloud");
  EXPECT_EQ(spec.networkSpec.vnet.name, "demo-vnet");
  EXPECT_EQ(spec.networkSpec.vnet.resourceGroup, "demo");
  EXPECT_EQ(spec.networkSpec.vnet.cidrBlocks, std::vector<std::string>{"10.0.0.0/8"});

  ASSERT_EQ(spec.networkSpec.subnets.size(), 2u);
  const SubnetSpec& cp = spec.networkSpec.subnets[0];
  EXPECT_EQ(cp.role, "control-plane");
  EXPECT_EQ(cp.name, "demo-controlplane-subnet");
  EXPECT_EQ(cp.cidrBlocks, std::vector<std::string>{"10.0.0.0/16"});
  EXPECT_EQ(cp.securityGroup->name, "demo-controlplane-nsg");
  const SubnetSpec& node = spec.networkSpec.subnets[1];
  EXPECT_EQ(node.role, "node");
  EXPECT_EQ(node.name, "demo-node-subnet");
  EXPECT_EQ(node.cidrBlocks, std::vector<std::string>{"10.1.0.0/16"});
  EXPECT_EQ(node.securityGroup->name, "demo-node-nsg");
  EXPECT_EQ(node.routeTable->name, "demo-node-routetable");
  EXPECT_EQ(node.natGateway->name, "demo-node-natgw");
  EXPECT_EQ(node.natGateway->ip->name, "pip-demo-node-natgw");

  const LoadBalancerSpec& lb = *spec.networkSpec.apiServerLB;
  EXPECT_EQ(lb.type, "Public");
  EXPECT_EQ(lb.sku, "Standard");
  EXPECT_EQ(lb.idleTimeoutInMinutes, 4);
  EXPECT_EQ(lb.name, "demo-public-lb");
  ASSERT_EQ(lb.frontendIPs.size(), 1u);
  EXPECT_EQ(lb.frontendIPs[0].name, "demo-public-lb-frontEnd");
  EXPECT_EQ(lb.frontendIPs[0].publicIP->name, "pip-demo-apiserver");
  EXPECT_EQ(lb.backendPool.name, "demo-public-lb-backendPool");

  const AzureBastion& bastion = *spec.bastionSpec.azureBastion;
  EXPECT_EQ(bastion.name, "demo-azure-bastion");
  EXPECT_EQ(bastion.sku, "Basic");
  EXPECT_EQ(bastion.subnet.name, "AzureBastionSubnet");
  EXPECT_EQ(bastion.subnet.role, "bastion");
  EXPECT_EQ(bastion.subnet.cidrBlocks, std::vector<std::string>{"10.255.255.224/27"});
  EXPECT_EQ(bastion.publicIP.name, "pip-demo-bastion");
}

TEST(AzureClusterDefaultsTest, NumbersNodeSubnetsAndOutboundFrontends) {
  AzureCluster cluster = decodeValid<AzureCluster>(document(testing::kPublicCluster));
  const NetworkSpec& net = cluster.spec.networkSpec;
  EXPECT_EQ(net.subnets[1].name, "node-subnet");  // given names stay
  ASSERT_TRUE(net.nodeOutboundLB.has_value());
  EXPECT_EQ(net.nodeOutboundLB->name, "capz-demo");
  ASSERT_EQ(net.nodeOutboundLB->frontendIPs.size(), 2u);
  EXPECT_EQ(net.nodeOutboundLB->frontendIPs[1].name, "capz-demo-frontEnd-2");
  EXPECT_EQ(net.nodeOutboundLB->frontendIPs[1].publicIP->name, "pip-capz-demo-node-outbound-2");
  EXPECT_EQ(net.nodeOutboundLB->backendPool.name, "capz-demo-outboundBackendPool");
  EXPECT_EQ(net.vnet.peerings[0].resourceGroup, "hub-rg");
}

TEST(AzureClusterDefaultsTest, DefaultingTwiceChangesNothing) {
  DecodedObject once = decode(document(testing::kPublicCluster));
  ASSERT_TRUE(once.object.has_value());
  Json encoded = once.object->toJson();
  DecodedObject twice = decode(encoded);
  ASSERT_EQ(errorStrings(twice.errors), std::vector<std::string>{});
  EXPECT_EQ(twice.object->toJson(), encoded);
}

TEST(AzureMachineTemplateManifestTest, QuickstartTemplatesDecode) {
  std::vector<Json> docs = documents(testing::kMachineTemplates);
  ASSERT_EQ(docs.size(), 2u);
  AzureMachineTemplate cp = decodeValid<AzureMachineTemplate>(docs[0]);
  const AzureMachineSpec& cpSpec = cp.spec.template_.spec;
  EXPECT_EQ(cpSpec.image->marketplace->offer, "capi");
  EXPECT_EQ(cpSpec.identity, "None");
  EXPECT_EQ(cpSpec.osDisk.cachingType, "None");
  EXPECT_EQ(cpSpec.dataDisks[0].cachingType, "ReadWrite");

  AzureMachineTemplate md = decodeValid<AzureMachineTemplate>(docs[1]);
  const AzureMachineSpec& mdSpec = md.spec.template_.spec;
  EXPECT_EQ(md.spec.template_.metadata.labels.at("nodepool"), "md-0");
  EXPECT_EQ(mdSpec.spotVMOptions->maxPrice->toString(), "50m");
  EXPECT_EQ(mdSpec.spotVMOptions->evictionPolicy, "Delete");
  EXPECT_EQ(mdSpec.securityProfile->uefiSettings->vTpmEnabled, true);
  EXPECT_EQ(mdSpec.diagnostics->boot->userManaged->storageAccountURI,
            "https://capzdemodiag.blob.core.windows.net/");
  EXPECT_EQ(mdSpec.vmExtensions[0].settings.at("commandToExecute"), "echo hello");
}

TEST(AzureMachineManifestTest, CarriesLongRunningOperationsAndConditions) {
  AzureMachine machine = decodeValid<AzureMachine>(document(testing::kCreatingMachine));
  ASSERT_EQ(machine.status.longRunningOperationStates.size(), 2u);
  const Future& vm = machine.status.longRunningOperationStates[0];
  EXPECT_EQ(vm.type, kPutFuture);
  EXPECT_EQ(vm.serviceName, "virtualmachine");
  EXPECT_EQ(vm.resourceGroup, "capz-demo-rg");
  EXPECT_EQ(vm.name, "capz-demo-md-0-x2kqp");
  EXPECT_FALSE(vm.data.empty());
  EXPECT_TRUE(machine.status.longRunningOperationStates[1].data.empty());
  ASSERT_EQ(machine.status.conditions.size(), 3u);
  EXPECT_EQ(machine.status.conditions[0].reason, kCreatingReason);
  EXPECT_EQ(machine.status.conditions[0].severity, "Info");
  EXPECT_EQ(machine.status.vmState, "Creating");
  // The disk without a LUN gets the lowest free one.
  EXPECT_EQ(machine.spec.dataDisks[1].lun, 0);
  EXPECT_EQ(machine.spec.networkInterfaces[1].privateIPConfigs, 2);
}

TEST(AzureMachinePoolManifestTest, PoolAndInstanceDecodeWithStatus) {
  std::vector<Json> docs = documents(testing::kMachinePool);
  ASSERT_EQ(docs.size(), 2u);
  AzureMachinePool pool = decodeValid<AzureMachinePool>(docs[0]);
  EXPECT_EQ(pool.spec.orchestrationMode, "Flexible");
  EXPECT_EQ(pool.spec.strategy.rollingUpdate->maxSurge, IntOrString::ofString("25%"));
  EXPECT_EQ(pool.spec.template_.spotVMOptions->maxPrice->toString(), "-1");
  EXPECT_EQ(pool.spec.template_.spotVMOptions->evictionPolicy, "Deallocate");
  EXPECT_EQ(pool.spec.template_.dataDisks[0].lun, 0);
  EXPECT_EQ(pool.status.instances[0].instanceName, "capz-demo-mp-0_0");
  EXPECT_EQ(pool.status.longRunningOperationStates[0].type, kPatchFuture);

  AzureMachinePoolMachine instance = decodeValid<AzureMachinePoolMachine>(docs[1]);
  EXPECT_EQ(instance.spec.instanceID, "0");
  EXPECT_EQ(instance.status.provisioningState, "Deleting");
  EXPECT_EQ(instance.status.longRunningOperationStates[0].type, kDeleteFuture);
}

TEST(AzureMachinePoolDefaultsTest, FillsStrategyOrchestrationAndIdentity) {
  AzureMachinePool pool = decodeValid<AzureMachinePool>(document(R"(
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachinePool
metadata:
  name: mp-0
spec:
  location: westus2
  template:
    vmSize: Standard_D2s_v3
    osDisk:
      osType: Linux
)"));
  EXPECT_EQ(pool.spec.orchestrationMode, "Uniform");
  EXPECT_EQ(pool.spec.identity, "None");
  EXPECT_EQ(pool.spec.strategy.type, "RollingUpdate");
  ASSERT_TRUE(pool.spec.strategy.rollingUpdate.has_value());
  EXPECT_EQ(pool.spec.strategy.rollingUpdate->maxSurge, IntOrString::ofInt(1));
  EXPECT_EQ(pool.spec.strategy.rollingUpdate->maxUnavailable, IntOrString::ofInt(0));
  EXPECT_EQ(pool.spec.strategy.rollingUpdate->deletePolicy, "Oldest");
}

TEST(AzureManifestRoundTripTest, DecodeEncodeDecodeKeepsEveryDocument) {
  for (const char* stream :
       {testing::kPublicCluster, testing::kPrivateCluster, testing::kMachineTemplates,
        testing::kMachinePool, testing::kCreatingMachine}) {
    for (const Json& doc : documents(stream)) {
      DecodedObject first = decode(doc);
      ASSERT_TRUE(first.object.has_value());
      Json encoded = first.object->toJson();
      DecodedObject second = decode(encoded);
      ASSERT_EQ(errorStrings(second.errors), std::vector<std::string>{});
      EXPECT_EQ(second.object->toJson(), encoded) << doc["kind"];
    }
  }
}

TEST(AzureRegistryTest, RegistersKindsWithUpstreamNames) {
  const Registry& r = builtinRegistry();
  const std::string v = "infrastructure.cluster.x-k8s.io/v1beta1";
  for (const char* kind : {"AzureCluster", "AzureMachine", "AzureMachineTemplate",
                           "AzureMachinePool", "AzureMachinePoolMachine"}) {
    const KindInfo* info = r.find(v, kind);
    ASSERT_NE(info, nullptr) << kind;
    EXPECT_TRUE(info->namespaced);
    EXPECT_EQ(info->categories, std::vector<std::string>{"cluster-api"});
  }
  EXPECT_FALSE(r.find(v, "AzureMachineTemplate")->statusSubresource);
  EXPECT_TRUE(r.find(v, "AzureMachine")->statusSubresource);
  EXPECT_EQ(r.lookup("amp")->kind, "AzureMachinePool");
  EXPECT_EQ(r.lookup("ampm")->kind, "AzureMachinePoolMachine");
  EXPECT_EQ(r.find(v, "AzureCluster")->printerColumns[0].jsonPath,
            ".metadata.labels.cluster\\.x-k8s\\.io/cluster-name");
}

}  // namespace
}  // namespace nodewright::api::capz
