#include "api/capz/network.h"

#include <regex>
#include <set>

#include "api/capi/cidr.h"

namespace nodewright::api::capz {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

// Azure resource names of subnets, load balancers and private endpoints.
constexpr const char* kResourceNamePattern = R"(^[-\w\._]+$)";

bool isResourceName(const std::string& name) {
  static const std::regex re(kResourceNamePattern);
  return std::regex_match(name, re);
}

void checkCidrs(const std::vector<std::string>& cidrs, const FieldPath& path, FieldErrors& errors) {
  for (size_t i = 0; i < cidrs.size(); ++i) {
    if (!capi::parseCidr(cidrs[i])) {
      errors.push_back(
          {path.index(i).str(), fielderr::invalid(Json(cidrs[i]), "invalid CIDR format")});
    }
  }
}

}  // namespace

const StructSchema& describe(Tag<VnetPeeringProperties>) {
  static const StructSchema s =
      StructBuilder<VnetPeeringProperties>("VnetPeeringProperties",
                                           "Properties of one direction of a vnet peering.")
          .field<&VnetPeeringProperties::allowForwardedTraffic>(
              "allowForwardedTraffic", "Allow traffic forwarded from VMs in the local network.")
          .field<&VnetPeeringProperties::allowGatewayTransit>(
              "allowGatewayTransit", "Let the remote network use this network's gateways.")
          .field<&VnetPeeringProperties::allowVirtualNetworkAccess>(
              "allowVirtualNetworkAccess", "Let VMs of the two networks reach each other.")
          .field<&VnetPeeringProperties::useRemoteGateways>(
              "useRemoteGateways", "Route through the remote network's gateways.")
          .build();
  return s;
}

const StructSchema& describe(Tag<VnetPeeringSpec>) {
  static const StructSchema s =
      StructBuilder<VnetPeeringSpec>("VnetPeeringSpec",
                                     "An existing virtual network to peer the cluster's with.")
          .field<&VnetPeeringSpec::resourceGroup>(
              "resourceGroup", "Resource group of the remote network; defaults to the cluster's.")
          .field<&VnetPeeringSpec::remoteVnetName>("remoteVnetName",
                                                   "Name of the remote virtual network.")
          .required()
          .field<&VnetPeeringSpec::forwardPeeringProperties>(
              "forwardPeeringProperties", "Peering from the cluster's network to the remote one.")
          .field<&VnetPeeringSpec::reversePeeringProperties>(
              "reversePeeringProperties", "Peering from the remote network to the cluster's.")
          .build();
  return s;
}

const StructSchema& describe(Tag<VnetSpec>) {
  static const StructSchema s =
      StructBuilder<VnetSpec>("VnetSpec", "The cluster's Azure virtual network.")
          .field<&VnetSpec::resourceGroup>(
              "resourceGroup", "Resource group of the network; set it to adopt an existing one.")
          .field<&VnetSpec::id>("id", "Azure resource ID of the network; read-only.")
          .field<&VnetSpec::name>("name", "Name of the virtual network.")
          .required()
          .field<&VnetSpec::peerings>("peerings", "Existing networks to peer with.")
          .field<&VnetSpec::cidrBlocks>("cidrBlocks", "Address space of the network, in CIDR form.")
          .field<&VnetSpec::tags>("tags", "Tags of the network.")
          .validate([](const VnetSpec& vnet, const FieldPath& path, FieldErrors& errors) {
            checkCidrs(vnet.cidrBlocks, path.child("cidrBlocks"), errors);
            std::set<std::string> seen;
            for (const VnetPeeringSpec& p : vnet.peerings) {
              std::string id = p.resourceGroup + "/" + p.remoteVnetName;
              if (!seen.insert(id).second) {
                errors.push_back({path.child("peerings").str(), fielderr::duplicate(Json(id))});
              }
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<SecurityRule>) {
  static const StructSchema s =
      StructBuilder<SecurityRule>("SecurityRule", "One rule of a network security group.")
          .field<&SecurityRule::name>("name", "Name of the rule, unique within its group.")
          .required()
          .field<&SecurityRule::description>("description",
                                             "What the rule is for (at most 140 characters).")
          .required()
          .maxLength(140)
          .field<&SecurityRule::protocol>("protocol", "Protocol matched: Tcp, Udp, Icmp or *.")
          .required()
          .enums({"Tcp", "Udp", "Icmp", "*"})
          .field<&SecurityRule::direction>(
              "direction", "Whether the rule applies to Inbound or Outbound traffic.")
          .enums({"Inbound", "Outbound"})
          .defaultsTo("Inbound")
          .field<&SecurityRule::priority>(
              "priority",
              "Order of evaluation, 100 to 4096, lower first; unique per direction in a group.")
          .min(100)
          .max(4096)
          .field<&SecurityRule::sourcePorts>("sourcePorts",
                                             "Source port or range (0-65535), or * for any.")
          .field<&SecurityRule::destinationPorts>(
              "destinationPorts", "Destination port or range (0-65535), or * for any.")
          .field<&SecurityRule::source>(
              "source", "Source CIDR, IP range, service tag (e.g. VirtualNetwork) or *.")
          .field<&SecurityRule::destination>(
              "destination", "Destination CIDR, IP range, service tag (e.g. Internet) or *.")
          .field<&SecurityRule::action>("action", "Whether matching traffic is Allowed or Denied.")
          .enums({"Allow", "Deny"})
          .defaultsTo("Allow")
          .build();
  return s;
}

const StructSchema& describe(Tag<SecurityGroup>) {
  static const StructSchema s =
      StructBuilder<SecurityGroup>("SecurityGroup", "A network security group.")
          .field<&SecurityGroup::id>("id", "Azure resource ID of the group; read-only.")
          .field<&SecurityGroup::name>("name", "Name of the security group.")
          .required()
          .field<&SecurityGroup::securityRules>("securityRules", "Rules of the group.")
          .mapList({"name"})
          .field<&SecurityGroup::tags>("tags", "Tags of the security group.")
          .validate([](const SecurityGroup& group, const FieldPath& path, FieldErrors& errors) {
            // Azure evaluates inbound and outbound rules separately; a priority may repeat
            // across directions but not within one.
            std::set<std::pair<std::string, int32_t>> seen;
            for (size_t i = 0; i < group.securityRules.size(); ++i) {
              const SecurityRule& rule = group.securityRules[i];
              if (rule.priority == 0) {
                continue;
              }
              std::string direction = rule.direction.empty() ? "Inbound" : rule.direction;
              if (!seen.emplace(direction, rule.priority).second) {
                errors.push_back({path.child("securityRules").index(i).child("priority").str(),
                                  fielderr::duplicate(Json(rule.priority))});
              }
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<RouteTable>) {
  static const StructSchema s =
      StructBuilder<RouteTable>("RouteTable", "A route table attached to a subnet.")
          .field<&RouteTable::id>("id", "Azure resource ID of the route table; read-only.")
          .field<&RouteTable::name>("name", "Name of the route table.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<IPTag>) {
  static const StructSchema s = StructBuilder<IPTag>("IPTag", "A tag of a public IP address.")
                                    .field<&IPTag::type>("type", "Tag type, e.g. FirstPartyUsage.")
                                    .required()
                                    .field<&IPTag::tag>("tag", "Tag value, e.g. SQL.")
                                    .required()
                                    .build();
  return s;
}

const StructSchema& describe(Tag<PublicIPSpec>) {
  static const StructSchema s =
      StructBuilder<PublicIPSpec>("PublicIPSpec", "An Azure public IP address to create.")
          .field<&PublicIPSpec::name>("name", "Name of the public IP resource.")
          .required()
          .field<&PublicIPSpec::dnsName>("dnsName", "DNS name to give the address.")
          .field<&PublicIPSpec::ipTags>("ipTags", "Tags of the address.")
          .build();
  return s;
}

const StructSchema& describe(Tag<NatGateway>) {
  static const StructSchema s =
      StructBuilder<NatGateway>("NatGateway", "A NAT gateway giving a subnet outbound access.")
          .field<&NatGateway::id>("id", "Azure resource ID of the NAT gateway; read-only.")
          .field<&NatGateway::ip>("ip", "Public IP address of the NAT gateway.")
          .field<&NatGateway::name>("name", "Name of the NAT gateway.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<ServiceEndpointSpec>) {
  static const StructSchema s =
      StructBuilder<ServiceEndpointSpec>("ServiceEndpointSpec",
                                         "An Azure service endpoint enabled on a subnet.")
          .field<&ServiceEndpointSpec::service>("service", "Service, e.g. Microsoft.Storage.")
          .required()
          .pattern(R"(^Microsoft\.[a-zA-Z]{1,42}[a-zA-Z0-9]{0,42}$)")
          .field<&ServiceEndpointSpec::locations>("locations",
                                                  "Regions the endpoint covers, or * for all.")
          .required()
          .validate([](const ServiceEndpointSpec& e, const FieldPath& path, FieldErrors& errors) {
            static const std::regex service(R"(^Microsoft\.[a-zA-Z]{1,42}[a-zA-Z0-9]{0,42}$)");
            static const std::regex location(R"(^([a-z]{1,42}\d{0,5}|[*])$)");
            if (!e.service.empty() && !std::regex_match(e.service, service)) {
              errors.push_back(
                  {path.child("service").str(),
                   fielderr::invalid(Json(e.service),
                                     "service name of endpoint service doesn't match "
                                     "regex ^Microsoft\\.[a-zA-Z]{1,42}[a-zA-Z0-9]{0,42}$")});
            }
            for (size_t i = 0; i < e.locations.size(); ++i) {
              if (!std::regex_match(e.locations[i], location)) {
                errors.push_back({path.child("locations").index(i).str(),
                                  fielderr::invalid(Json(e.locations[i]),
                                                    "location doesn't match regex "
                                                    "^([a-z]{1,42}\\d{0,5}|[*])$")});
              }
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<PrivateLinkServiceConnection>) {
  static const StructSchema s =
      StructBuilder<PrivateLinkServiceConnection>(
          "PrivateLinkServiceConnection",
          "A private endpoint's connection to a private link service.")
          .field<&PrivateLinkServiceConnection::name>("name", "Name of the connection.")
          .field<&PrivateLinkServiceConnection::privateLinkServiceID>(
              "privateLinkServiceID", "Resource ID of the private link service.")
          .required()
          .field<&PrivateLinkServiceConnection::groupIDs>(
              "groupIDs", "Group IDs of the remote resource to connect to.")
          .field<&PrivateLinkServiceConnection::requestMessage>(
              "requestMessage", "Message sent to the owner of the remote resource.")
          .maxLength(140)
          .build();
  return s;
}

const StructSchema& describe(Tag<PrivateEndpointSpec>) {
  static const StructSchema s =
      StructBuilder<PrivateEndpointSpec>("PrivateEndpointSpec",
                                         "A private endpoint attached to a subnet.")
          .field<&PrivateEndpointSpec::name>("name", "Name of the private endpoint.")
          .required()
          .field<&PrivateEndpointSpec::location>("location", "Region of the private endpoint.")
          .field<&PrivateEndpointSpec::privateLinkServiceConnections>(
              "privateLinkServiceConnections", "Private link services the endpoint connects to.")
          .minItems(1)
          .field<&PrivateEndpointSpec::customNetworkInterfaceName>(
              "customNetworkInterfaceName", "Name of the endpoint's network interface.")
          .field<&PrivateEndpointSpec::privateIPAddresses>(
              "privateIPAddresses", "Fixed IP addresses of the endpoint, inside the subnet.")
          .field<&PrivateEndpointSpec::applicationSecurityGroups>(
              "applicationSecurityGroups", "Application security groups of the endpoint.")
          .field<&PrivateEndpointSpec::manualApproval>(
              "manualApproval", "Whether the connection must be approved by hand.")
          .build();
  return s;
}

bool SubnetSpec::isIPv6Enabled() const {
  for (const std::string& cidr : cidrBlocks) {
    auto net = capi::parseCidr(cidr);
    if (net && net->base.v6) {
      return true;
    }
  }
  return false;
}

const StructSchema& describe(Tag<SubnetSpec>) {
  static const StructSchema s =
      StructBuilder<SubnetSpec>("SubnetSpec", "A subnet of the cluster's virtual network.")
          .field<&SubnetSpec::id>("id", "Azure resource ID of the subnet; read-only.")
          .field<&SubnetSpec::securityGroup>("securityGroup",
                                             "Network security group attached to the subnet.")
          .field<&SubnetSpec::routeTable>("routeTable", "Route table attached to the subnet.")
          .field<&SubnetSpec::natGateway>("natGateway", "NAT gateway for outbound traffic.")
          .field<&SubnetSpec::name>("name", "Name of the subnet.")
          .required()
          .pattern(kResourceNamePattern)
          .field<&SubnetSpec::role>(
              "role", "What the subnet is for: node, control-plane, bastion, or cluster/all.")
          .required()
          .enums({"node", "control-plane", "bastion", "cluster", "all"})
          .field<&SubnetSpec::cidrBlocks>("cidrBlocks",
                                          "Address space of the subnet, in CIDR form.")
          .field<&SubnetSpec::serviceEndpoints>("serviceEndpoints",
                                                "Service endpoints enabled on the subnet.")
          .mapList({"service"})
          .field<&SubnetSpec::privateEndpoints>("privateEndpoints",
                                                "Private endpoints attached to the subnet.")
          .mapList({"name"})
          .validate([](const SubnetSpec& subnet, const FieldPath& path, FieldErrors& errors) {
            if (!subnet.name.empty() && !isResourceName(subnet.name)) {
              errors.push_back(
                  {path.child("name").str(),
                   fielderr::invalid(
                       Json(subnet.name),
                       std::string("name of subnet doesn't match regex ") + kResourceNamePattern)});
            }
            checkCidrs(subnet.cidrBlocks, path.child("cidrBlocks"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<FrontendIP>) {
  static const StructSchema s =
      StructBuilder<FrontendIP>("FrontendIP", "A frontend IP configuration of a load balancer.")
          .field<&FrontendIP::name>("name", "Name of the frontend IP configuration.")
          .required()
          .field<&FrontendIP::publicIP>("publicIP", "Public IP address of a public frontend.")
          .field<&FrontendIP::privateIP>("privateIP", "Private IP address of an internal frontend.")
          .build();
  return s;
}

const StructSchema& describe(Tag<BackendPool>) {
  static const StructSchema s =
      StructBuilder<BackendPool>("BackendPool", "The backend address pool of a load balancer.")
          .field<&BackendPool::name>("name", "Name of the pool; defaulted from the balancer's.")
          .build();
  return s;
}

const StructSchema& describe(Tag<PrivateLinkNATIPConfiguration>) {
  static const StructSchema s =
      StructBuilder<PrivateLinkNATIPConfiguration>("PrivateLinkNATIPConfiguration",
                                                   "A NAT IP configuration of a private link.")
          .field<&PrivateLinkNATIPConfiguration::allocationMethod>(
              "allocationMethod", "Whether the IP is Static (given) or Dynamic (chosen by Azure).")
          .required()
          .enums({"Static", "Dynamic"})
          .field<&PrivateLinkNATIPConfiguration::subnet>("subnet",
                                                         "Subnet the IP is allocated from.")
          .required()
          .field<&PrivateLinkNATIPConfiguration::privateIPAddress>(
              "privateIPAddress", "The IP address, for the Static method.")
          .build();
  return s;
}

const StructSchema& describe(Tag<PrivateLink>) {
  static const StructSchema s =
      StructBuilder<PrivateLink>("PrivateLink", "An Azure Private Link service on a load balancer.")
          .field<&PrivateLink::name>("name", "Name of the private link service.")
          .field<&PrivateLink::natIpConfigurations>("natIpConfigurations",
                                                    "Up to 8 NAT IP configurations.")
          .required()
          .maxItems(8)
          .field<&PrivateLink::lbFrontendIPConfigNames>(
              "lbFrontendIPConfigNames", "Frontend IP configurations the link forwards to.")
          .required()
          .field<&PrivateLink::allowedSubscriptions>(
              "allowedSubscriptions", "Subscriptions allowed to connect to the link.")
          .field<&PrivateLink::autoApprovedSubscriptions>(
              "autoApprovedSubscriptions", "Subscriptions whose connections are auto-approved.")
          .field<&PrivateLink::enableProxyProtocol>("enableProxyProtocol",
                                                    "Whether the link uses the proxy protocol.")
          .build();
  return s;
}

const StructSchema& describe(Tag<LoadBalancerSpec>) {
  static const StructSchema s =
      StructBuilder<LoadBalancerSpec>("LoadBalancerSpec", "An Azure load balancer.")
          .field<&LoadBalancerSpec::id>("id", "Azure resource ID of the balancer; read-only.")
          .field<&LoadBalancerSpec::name>("name", "Name of the load balancer.")
          .pattern(kResourceNamePattern)
          .field<&LoadBalancerSpec::frontendIPs>("frontendIPs",
                                                 "Frontend IP configurations of the balancer.")
          .field<&LoadBalancerSpec::frontendIPsCount>(
              "frontendIPsCount", "Number of outbound frontend IPs to create (at most 16).")
          .min(0)
          .max(16)
          .field<&LoadBalancerSpec::privateLinks>(
              "privateLinks", "Private link services on an internal balancer (at most 8).")
          .maxItems(8)
          .field<&LoadBalancerSpec::backendPool>("backendPool", "The backend address pool.")
          .field<&LoadBalancerSpec::sku>("sku", "SKU of the load balancer; only Standard.")
          .enums({"Standard"})
          .defaultsTo("Standard")
          .field<&LoadBalancerSpec::type>("type", "Whether the balancer is Public or Internal.")
          .enums({"Public", "Internal"})
          .defaultsTo("Public")
          .field<&LoadBalancerSpec::idleTimeoutInMinutes>(
              "idleTimeoutInMinutes", "TCP idle timeout of the balancer, 4 to 30 minutes.")
          .min(4)
          .max(30)
          .defaultsTo(4)
          .field<&LoadBalancerSpec::availabilityZones>(
              "availabilityZones", "Zones (\"1\" to \"3\") an internal balancer's frontend spans.")
          .setList()
          .maxItems(3)
          .validate([](const LoadBalancerSpec& lb, const FieldPath& path, FieldErrors& errors) {
            // CAPZ's CRD: each zone matches ^[1-3]$.
            for (size_t i = 0; i < lb.availabilityZones.size(); ++i) {
              const std::string& zone = lb.availabilityZones[i];
              if (zone.size() != 1 || zone[0] < '1' || zone[0] > '3') {
                std::string at = path.child("availabilityZones").index(i).str();
                errors.push_back({at, fielderr::invalid(Json(zone), at + " in body should match "
                                                                         "'^[1-3]$'")});
              }
            }
            if (!lb.name.empty() && !isResourceName(lb.name)) {
              errors.push_back(
                  {path.child("name").str(),
                   fielderr::invalid(Json(lb.name),
                                     std::string("name of load balancer doesn't match regex ") +
                                         kResourceNamePattern)});
            }
            if (lb.type != "Internal" && !lb.privateLinks.empty()) {
              errors.push_back({path.child("privateLinks").str(),
                                fielderr::forbidden("private links can be added only to an "
                                                    "internal load balancer")});
            }
          })
          .build();
  return s;
}

const SubnetSpec* NetworkSpec::subnetWithRole(const std::string& role) const {
  for (const SubnetSpec& s : subnets) {
    if (s.role == role) {
      return &s;
    }
  }
  return nullptr;
}

const StructSchema& describe(Tag<AzureBastion>) {
  static const StructSchema s =
      StructBuilder<AzureBastion>("AzureBastion", "An Azure Bastion host for SSH access.")
          .field<&AzureBastion::name>("name", "Name of the bastion host.")
          .field<&AzureBastion::subnet>("subnet", "Subnet of the bastion host.")
          .field<&AzureBastion::publicIP>("publicIP", "Public IP address of the bastion host.")
          .field<&AzureBastion::sku>("sku", "Tier of the bastion host: Basic or Standard.")
          .enums({"Basic", "Standard"})
          .defaultsTo("Basic")
          .field<&AzureBastion::enableTunneling>(
              "enableTunneling", "Enables native client support; needs the Standard SKU.")
          .validate([](const AzureBastion& b, const FieldPath& path, FieldErrors& errors) {
            if (b.enableTunneling && b.sku != "Standard") {
              errors.push_back(
                  {path.child("sku").str(),
                   fielderr::invalid(Json(b.sku), "sku must be Standard if tunneling is enabled")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<BastionSpec>) {
  static const StructSchema s =
      StructBuilder<BastionSpec>("BastionSpec", "Bastion hosts of the cluster.")
          .field<&BastionSpec::azureBastion>("azureBastion", "An Azure Bastion host.")
          .build();
  return s;
}

}  // namespace nodewright::api::capz
