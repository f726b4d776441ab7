#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/reflect/schema.h"

// The Azure network an AzureCluster creates or adopts: virtual network, subnets with their
// security groups, route tables and NAT gateways, load balancers and the bastion host.
namespace nodewright::api::capz {

inline constexpr const char* kGroup = "infrastructure.cluster.x-k8s.io";
inline constexpr const char* kVersion = "v1beta1";

// Azure resource tags.
using Tags = std::map<std::string, std::string>;

struct VnetPeeringProperties {
  std::optional<bool> allowForwardedTraffic;
  std::optional<bool> allowGatewayTransit;
  std::optional<bool> allowVirtualNetworkAccess;
  std::optional<bool> useRemoteGateways;
};
const reflect::StructSchema& describe(reflect::Tag<VnetPeeringProperties>);

struct VnetPeeringSpec {
  std::string resourceGroup;
  std::string remoteVnetName;
  VnetPeeringProperties forwardPeeringProperties;
  VnetPeeringProperties reversePeeringProperties;
};
const reflect::StructSchema& describe(reflect::Tag<VnetPeeringSpec>);

struct VnetSpec {
  std::string resourceGroup;
  std::string id;
  std::string name;
  std::vector<VnetPeeringSpec> peerings;
  std::vector<std::string> cidrBlocks;
  Tags tags;
};
const reflect::StructSchema& describe(reflect::Tag<VnetSpec>);

struct SecurityRule {
  std::string name;
  std::string description;
  std::string protocol;   // *, Tcp, Udp, Icmp
  std::string direction;  // Inbound, Outbound
  int32_t priority = 0;
  std::optional<std::string> sourcePorts;
  std::optional<std::string> destinationPorts;
  std::optional<std::string> source;
  std::optional<std::string> destination;
  std::string action;  // Allow, Deny
};
const reflect::StructSchema& describe(reflect::Tag<SecurityRule>);

struct SecurityGroup {
  std::string id;
  std::string name;
  std::vector<SecurityRule> securityRules;
  Tags tags;
};
const reflect::StructSchema& describe(reflect::Tag<SecurityGroup>);

struct RouteTable {
  std::string id;
  std::string name;
};
const reflect::StructSchema& describe(reflect::Tag<RouteTable>);

struct IPTag {
  std::string type;
  std::string tag;
};
const reflect::StructSchema& describe(reflect::Tag<IPTag>);

struct PublicIPSpec {
  std::string name;
  std::string dnsName;
  std::vector<IPTag> ipTags;
};
const reflect::StructSchema& describe(reflect::Tag<PublicIPSpec>);

struct NatGateway {
  std::string id;
  std::optional<PublicIPSpec> ip;  // Go field NatGatewayIP
  std::string name;
};
const reflect::StructSchema& describe(reflect::Tag<NatGateway>);

struct ServiceEndpointSpec {
  std::string service;
  std::vector<std::string> locations;
};
const reflect::StructSchema& describe(reflect::Tag<ServiceEndpointSpec>);

struct PrivateLinkServiceConnection {
  std::string name;
  std::string privateLinkServiceID;
  std::vector<std::string> groupIDs;
  std::string requestMessage;
};
const reflect::StructSchema& describe(reflect::Tag<PrivateLinkServiceConnection>);

struct PrivateEndpointSpec {
  std::string name;
  std::string location;
  std::vector<PrivateLinkServiceConnection> privateLinkServiceConnections;
  std::string customNetworkInterfaceName;
  std::vector<std::string> privateIPAddresses;
  std::vector<std::string> applicationSecurityGroups;
  bool manualApproval = false;
};
const reflect::StructSchema& describe(reflect::Tag<PrivateEndpointSpec>);

struct SubnetSpec {
  std::string id;
  std::optional<SecurityGroup> securityGroup;
  std::optional<RouteTable> routeTable;
  std::optional<NatGateway> natGateway;
  std::string name;
  std::string role;  // node, control-plane, bastion, cluster, all
  std::vector<std::string> cidrBlocks;
  std::vector<ServiceEndpointSpec> serviceEndpoints;
  std::vector<PrivateEndpointSpec> privateEndpoints;

  bool isIPv6Enabled() const;
};
const reflect::StructSchema& describe(reflect::Tag<SubnetSpec>);

struct FrontendIP {
  std::string name;
  std::optional<PublicIPSpec> publicIP;
  std::string privateIP;  // Go field PrivateIPAddress
};
const reflect::StructSchema& describe(reflect::Tag<FrontendIP>);

struct BackendPool {
  std::string name;
};
const reflect::StructSchema& describe(reflect::Tag<BackendPool>);

struct PrivateLinkNATIPConfiguration {
  std::string allocationMethod;  // Static, Dynamic
  std::string subnet;
  std::string privateIPAddress;
};
const reflect::StructSchema& describe(reflect::Tag<PrivateLinkNATIPConfiguration>);

struct PrivateLink {
  std::string name;
  std::vector<PrivateLinkNATIPConfiguration> natIpConfigurations;
  std::vector<std::string> lbFrontendIPConfigNames;
  std::vector<std::string> allowedSubscriptions;
  std::vector<std::string> autoApprovedSubscriptions;
  std::optional<bool> enableProxyProtocol;
};
const reflect::StructSchema& describe(reflect::Tag<PrivateLink>);

struct LoadBalancerSpec {
  std::string id;
  std::string name;
  std::vector<FrontendIP> frontendIPs;
  std::optional<int32_t> frontendIPsCount;
  std::vector<PrivateLink> privateLinks;
  BackendPool backendPool;
  std::string sku;   // Standard
  std::string type;  // Public, Internal
  std::optional<int32_t> idleTimeoutInMinutes;
  // Zones of an internal balancer's frontend ("1".."3"); public balancers take their zones
  // from their public IPs.
  std::vector<std::string> availabilityZones;
};
const reflect::StructSchema& describe(reflect::Tag<LoadBalancerSpec>);

struct NetworkSpec {
  VnetSpec vnet;
  std::vector<SubnetSpec> subnets;
  std::optional<LoadBalancerSpec> apiServerLB;
  std::optional<LoadBalancerSpec> nodeOutboundLB;
  std::optional<LoadBalancerSpec> controlPlaneOutboundLB;
  std::string privateDNSZoneName;

  // The first subnet with the role, or nullptr.
  const SubnetSpec* subnetWithRole(const std::string& role) const;
};
const reflect::StructSchema& describe(reflect::Tag<NetworkSpec>);

struct AzureBastion {
  std::string name;
  SubnetSpec subnet;
  PublicIPSpec publicIP;
  std::string sku;  // Basic, Standard
  bool enableTunneling = false;
};
const reflect::StructSchema& describe(reflect::Tag<AzureBastion>);

struct BastionSpec {
  std::optional<AzureBastion> azureBastion;
};
const reflect::StructSchema& describe(reflect::Tag<BastionSpec>);

}  // namespace nodewright::api::capz
