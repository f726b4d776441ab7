#include <algorithm>

#include "api/capz/azure_cluster.h"
#include "api/codec.h"

// The AzureCluster defaults of the CAPZ webhook. Names follow CAPZ's generators so that the
// Azure resources nodewright creates are the ones CAPZ would create for the same manifest.
namespace nodewright::api::capz {
namespace {

constexpr const char* kDefaultAzureCloud = "AzurePublicCloud";
constexpr const char* kDefaultVnetCidr = "10.0.0.0/8";
constexpr const char* kDefaultControlPlaneSubnetCidr = "10.0.0.0/16";
constexpr const char* kDefaultNodeSubnetCidr = "10.1.0.0/16";
constexpr const char* kDefaultBastionSubnetCidr = "10.255.255.224/27";
constexpr const char* kDefaultBastionSubnetName = "AzureBastionSubnet";
constexpr const char* kDefaultInternalLBIPAddress = "10.0.0.100";

std::string withIndex(const std::string& name, int index) {
  return name + "-" + std::to_string(index);
}

// A load balancer whose fields were never defaulted (created here, not decoded).
LoadBalancerSpec newLoadBalancer(const std::string& type) {
  LoadBalancerSpec lb;
  applyDefaults(lb);
  lb.type = type;
  return lb;
}

void defaultNodeSubnet(SubnetSpec& subnet, const std::string& cluster, int index) {
  if (subnet.name.empty()) {
    subnet.name = withIndex(cluster + "-node-subnet", index);
  }
  if (subnet.cidrBlocks.empty()) {
    subnet.cidrBlocks = {"10." + std::to_string(index) + ".0.0/16"};
  }
  if (!subnet.securityGroup) {
    subnet.securityGroup.emplace();
  }
  if (subnet.securityGroup->name.empty()) {
    subnet.securityGroup->name = cluster + "-node-nsg";
  }
  if (!subnet.routeTable) {
    subnet.routeTable.emplace();
  }
  if (subnet.routeTable->name.empty()) {
    subnet.routeTable->name = cluster + "-node-routetable";
  }
  // NAT gateways give IPv4 subnets outbound access; an existing subnet (id set) keeps its own.
  if (!subnet.isIPv6Enabled() && subnet.id.empty()) {
    if (!subnet.natGateway) {
      subnet.natGateway.emplace();
    }
    if (subnet.natGateway->name.empty()) {
      subnet.natGateway->name = withIndex(cluster + "-node-natgw", index);
    }
    if (!subnet.natGateway->ip) {
      subnet.natGateway->ip.emplace();
    }
    if (subnet.natGateway->ip->name.empty()) {
      subnet.natGateway->ip->name = "pip-" + subnet.natGateway->name;
    }
  }
}

void defaultControlPlaneSubnet(SubnetSpec& subnet, const std::string& cluster) {
  if (subnet.name.empty()) {
    subnet.name = cluster + "-controlplane-subnet";
  }
  if (subnet.cidrBlocks.empty()) {
    subnet.cidrBlocks = {kDefaultControlPlaneSubnetCidr};
  }
  if (!subnet.securityGroup) {
    subnet.securityGroup.emplace();
  }
  if (subnet.securityGroup->name.empty()) {
    subnet.securityGroup->name = cluster + "-controlplane-nsg";
  }
}

void defaultSubnets(NetworkSpec& net, const std::string& cluster) {
  // A "cluster"/"all" subnet serves both roles, so no separate ones are added next to it.
  bool shared = net.subnetWithRole("cluster") != nullptr || net.subnetWithRole("all") != nullptr;
  bool hasControlPlane = false;
  int nodeIndex = 0;
  for (SubnetSpec& subnet : net.subnets) {
    if (subnet.role == "control-plane") {
      hasControlPlane = true;
      defaultControlPlaneSubnet(subnet, cluster);
    } else if (subnet.role == "node") {
      defaultNodeSubnet(subnet, cluster, ++nodeIndex);
    }
  }
  if (!hasControlPlane && !shared) {
    SubnetSpec subnet;
    subnet.role = "control-plane";
    defaultControlPlaneSubnet(subnet, cluster);
    net.subnets.push_back(std::move(subnet));
  }
  if (nodeIndex == 0 && !shared) {
    SubnetSpec subnet;
    subnet.role = "node";
    subnet.name = cluster + "-node-subnet";
    subnet.cidrBlocks = {kDefaultNodeSubnetCidr};
    subnet.natGateway.emplace();
    subnet.natGateway->name = cluster + "-node-natgw";
    defaultNodeSubnet(subnet, cluster, 1);
    net.subnets.push_back(std::move(subnet));
  }
}

void defaultAPIServerLB(NetworkSpec& net, const std::string& cluster) {
  if (!net.apiServerLB) {
    net.apiServerLB = newLoadBalancer("Public");
  }
  LoadBalancerSpec& lb = *net.apiServerLB;
  bool internal = lb.type == "Internal";
  if (lb.name.empty()) {
    lb.name = cluster + (internal ? "-internal-lb" : "-public-lb");
  }
  if (lb.frontendIPs.empty()) {
    FrontendIP frontend;
    frontend.name = lb.name + "-frontEnd";
    if (internal) {
      frontend.privateIP = kDefaultInternalLBIPAddress;
    } else {
      frontend.publicIP = PublicIPSpec{"pip-" + cluster + "-apiserver", "", {}};
    }
    lb.frontendIPs.push_back(std::move(frontend));
  }
  if (lb.backendPool.name.empty()) {
    lb.backendPool.name = lb.name + "-backendPool";
  }
}

// Outbound balancers get one public frontend per requested IP.
void defaultOutboundLB(LoadBalancerSpec& lb, const std::string& name, const std::string& cluster,
                       const std::string& ipName) {
  if (lb.name.empty()) {
    lb.name = name;
  }
  if (!lb.frontendIPsCount) {
    lb.frontendIPsCount = 1;
  }
  if (lb.frontendIPs.empty()) {
    int count = *lb.frontendIPsCount;
    for (int i = 1; i <= count; ++i) {
      FrontendIP frontend;
      frontend.name = count == 1 ? lb.name + "-frontEnd" : withIndex(lb.name + "-frontEnd", i);
      std::string pip = "pip-" + cluster + "-" + ipName;
      frontend.publicIP = PublicIPSpec{count == 1 ? pip : withIndex(pip, i), "", {}};
      lb.frontendIPs.push_back(std::move(frontend));
    }
  }
  if (lb.backendPool.name.empty()) {
    lb.backendPool.name = lb.name + "-outboundBackendPool";
  }
}

void defaultBastion(BastionSpec& bastion, const std::string& cluster) {
  if (!bastion.azureBastion) {
    return;
  }
  AzureBastion& b = *bastion.azureBastion;
  if (b.name.empty()) {
    b.name = cluster + "-azure-bastion";
  }
  if (b.subnet.name.empty()) {
    b.subnet.name = kDefaultBastionSubnetName;
  }
  if (b.subnet.cidrBlocks.empty()) {
    b.subnet.cidrBlocks = {kDefaultBastionSubnetCidr};
  }
  if (b.subnet.role.empty()) {
    b.subnet.role = "bastion";
  }
  if (b.publicIP.name.empty()) {
    b.publicIP.name = "pip-" + cluster + "-bastion";
  }
}

}  // namespace

void applyAzureClusterDefaults(AzureCluster& cluster) {
  AzureClusterSpec& spec = cluster.spec;
  NetworkSpec& net = spec.networkSpec;
  const std::string& name = cluster.metadata.name;
  if (spec.azureEnvironment.empty()) {
    spec.azureEnvironment = kDefaultAzureCloud;
  }
  if (net.vnet.cidrBlocks.empty()) {
    net.vnet.cidrBlocks = {kDefaultVnetCidr};
  }
  // Everything below derives Azure resource names from the cluster's name.
  if (name.empty()) {
    return;
  }
  if (spec.resourceGroup.empty()) {
    spec.resourceGroup = name;
  }
  if (net.vnet.resourceGroup.empty()) {
    net.vnet.resourceGroup = spec.resourceGroup;
  }
  if (net.vnet.name.empty()) {
    net.vnet.name = name + "-vnet";
  }
  for (VnetPeeringSpec& peering : net.vnet.peerings) {
    if (peering.resourceGroup.empty()) {
      peering.resourceGroup = spec.resourceGroup;
    }
  }
  defaultBastion(spec.bastionSpec, name);
  defaultSubnets(net, name);
  defaultAPIServerLB(net, name);
  // Public clusters with IPv6 nodes need an outbound balancer: NAT gateways are IPv4-only.
  bool ipv6Nodes = std::any_of(net.subnets.begin(), net.subnets.end(), [](const SubnetSpec& s) {
    return (s.role == "node" || s.role == "cluster" || s.role == "all") && s.isIPv6Enabled();
  });
  if (!net.nodeOutboundLB && ipv6Nodes && net.apiServerLB->type != "Internal") {
    net.nodeOutboundLB = newLoadBalancer("Public");
  }
  if (net.nodeOutboundLB) {
    defaultOutboundLB(*net.nodeOutboundLB, name, name, "node-outbound");
  }
  if (net.controlPlaneOutboundLB) {
    defaultOutboundLB(*net.controlPlaneOutboundLB, name + "-outbound-lb", name,
                      "controlplane-outbound");
  }
}

}  // namespace nodewright::api::capz
