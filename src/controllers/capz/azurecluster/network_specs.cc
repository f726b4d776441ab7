// The network resources of an AzureCluster: security groups, route tables, public IPs, NAT
// gateways and subnets. A resource named by several subnets (a shared security group or NAT
// gateway) is one spec.
#include <set>

#include "controllers/capz/azurecluster/services.h"
#include "controllers/capz/azurecluster/specs.h"

namespace nodewright::controllers::capz::azurecluster {
namespace {

using api::Json;
using api::capz::PublicIPSpec;
using api::capz::SecurityRule;
using api::capz::SubnetSpec;

// Every subnet the cluster creates: the network's, then the bastion's.
std::vector<const SubnetSpec*> allSubnets(const ClusterContext& ctx) {
  std::vector<const SubnetSpec*> out;
  for (const SubnetSpec& s : ctx.network().subnets) {
    out.push_back(&s);
  }
  const auto& bastion = ctx.cluster().spec.bastionSpec.azureBastion;
  if (bastion) {
    out.push_back(&bastion->subnet);
  }
  return out;
}

Json ruleBody(const SecurityRule& rule) {
  Json props = {{"protocol", rule.protocol.empty() ? "*" : rule.protocol},
                {"sourcePortRange", rule.sourcePorts.value_or("*")},
                {"destinationPortRange", rule.destinationPorts.value_or("*")},
                {"sourceAddressPrefix", rule.source.value_or("*")},
                {"destinationAddressPrefix", rule.destination.value_or("*")},
                {"access", rule.action.empty() ? "Allow" : rule.action},
                {"priority", rule.priority},
                {"direction", rule.direction.empty() ? "Inbound" : rule.direction}};
  if (!rule.description.empty()) {
    props["description"] = rule.description;
  }
  return {{"name", rule.name}, {"properties", std::move(props)}};
}

// A public IP, its role for CAPZ's tags.
struct PublicIPUse {
  const PublicIPSpec* ip;
  const char* role;
};

std::vector<PublicIPUse> publicIPUses(const ClusterContext& ctx) {
  std::vector<PublicIPUse> out;
  const auto& net = ctx.network();
  auto frontends = [&](const std::optional<api::capz::LoadBalancerSpec>& lb, const char* role) {
    if (!lb || lb->type == "Internal") {
      return;
    }
    for (const auto& frontend : lb->frontendIPs) {
      if (frontend.publicIP && !frontend.publicIP->name.empty()) {
        out.push_back({&*frontend.publicIP, role});
      }
    }
  };
  frontends(net.apiServerLB, "apiserver");
  frontends(net.nodeOutboundLB, "nodeOutboundLB");
  frontends(net.controlPlaneOutboundLB, "controlPlaneOutboundLB");
  for (const SubnetSpec& s : net.subnets) {
    if (s.natGateway && s.natGateway->ip && !s.natGateway->ip->name.empty()) {
      out.push_back({&*s.natGateway->ip, "natgateway"});
    }
  }
  const auto& bastion = ctx.cluster().spec.bastionSpec.azureBastion;
  if (bastion && !bastion->publicIP.name.empty()) {
    out.push_back({&bastion->publicIP, "bastion"});
  }
  return out;
}

Json publicIPBody(const ClusterContext& ctx, const PublicIPUse& use) {
  Json props = {{"publicIPAllocationMethod", "Static"}, {"publicIPAddressVersion", "IPv4"}};
  const PublicIPSpec& ip = *use.ip;
  if (!ip.dnsName.empty()) {
    props["dnsSettings"] = {{"domainNameLabel", ip.dnsName.substr(0, ip.dnsName.find('.'))},
                            {"fqdn", ip.dnsName}};
  }
  if (!ip.ipTags.empty()) {
    Json tags = Json::array();
    for (const auto& tag : ip.ipTags) {
      tags.push_back({{"ipTagType", tag.type}, {"tag", tag.tag}});
    }
    props["ipTags"] = std::move(tags);
  }
  return {{"location", ctx.location()},
          {"sku", {{"name", "Standard"}}},
          {"properties", std::move(props)},
          {"tags", ctx.tags(use.role, ip.name)}};
}

Json subnetBody(const ClusterContext& ctx, const SubnetSpec& s) {
  Json props = Json::object();
  if (s.cidrBlocks.size() == 1) {
    props["addressPrefix"] = s.cidrBlocks.front();
  } else {
    props["addressPrefixes"] = s.cidrBlocks;
  }
  if (s.securityGroup && !s.securityGroup->name.empty()) {
    props["networkSecurityGroup"] = {{"id", ctx.id(kNsgType, s.securityGroup->name)}};
  }
  if (s.routeTable && !s.routeTable->name.empty()) {
    props["routeTable"] = {{"id", ctx.id(kRouteTableType, s.routeTable->name)}};
  }
  if (s.natGateway && !s.natGateway->name.empty()) {
    props["natGateway"] = {{"id", ctx.id(kNatGatewayType, s.natGateway->name)}};
  }
  if (!s.serviceEndpoints.empty()) {
    Json endpoints = Json::array();
    for (const auto& e : s.serviceEndpoints) {
      endpoints.push_back({{"service", e.service}, {"locations", e.locations}});
    }
    props["serviceEndpoints"] = std::move(endpoints);
  }
  return {{"properties", std::move(props)}};
}

}  // namespace

std::vector<SpecPtr> securityGroupSpecs(const ClusterContext& ctx) {
  std::vector<SpecPtr> out;
  std::set<std::string> seen;
  for (const SubnetSpec* s : allSubnets(ctx)) {
    if (!s->securityGroup || s->securityGroup->name.empty() ||
        !seen.insert(s->securityGroup->name).second) {
      continue;
    }
    const auto& nsg = *s->securityGroup;
    Json rules = Json::array();
    for (const SecurityRule& rule : nsg.securityRules) {
      rules.push_back(ruleBody(rule));
    }
    Json tags = ctx.tags("", nsg.name);
    for (const auto& [k, v] : nsg.tags) {
      tags[k] = v;
    }
    Json body = {{"location", ctx.location()},
                 {"properties", {{"securityRules", std::move(rules)}}},
                 {"tags", std::move(tags)}};
    out.push_back(ctx.desired(kSecurityGroupsService, ctx.id(kNsgType, nsg.name),
                              ctx.resourceGroup(), nsg.name, std::move(body)));
  }
  return out;
}

std::vector<SpecPtr> routeTableSpecs(const ClusterContext& ctx) {
  std::vector<SpecPtr> out;
  std::set<std::string> seen;
  for (const SubnetSpec* s : allSubnets(ctx)) {
    if (!s->routeTable || s->routeTable->name.empty() || !seen.insert(s->routeTable->name).second) {
      continue;
    }
    const std::string& name = s->routeTable->name;
    Json body = {
        {"location", ctx.location()}, {"properties", Json::object()}, {"tags", ctx.tags("", name)}};
    out.push_back(ctx.desired(kRouteTablesService, ctx.id(kRouteTableType, name),
                              ctx.resourceGroup(), name, std::move(body)));
  }
  return out;
}

std::vector<SpecPtr> publicIPSpecs(const ClusterContext& ctx) {
  std::vector<SpecPtr> out;
  std::set<std::string> seen;
  for (const PublicIPUse& use : publicIPUses(ctx)) {
    if (!seen.insert(use.ip->name).second) {
      continue;
    }
    out.push_back(ctx.desired(kPublicIPsService, ctx.id(kPublicIPType, use.ip->name),
                              ctx.resourceGroup(), use.ip->name, publicIPBody(ctx, use)));
  }
  return out;
}

std::vector<SpecPtr> natGatewaySpecs(const ClusterContext& ctx) {
  std::vector<SpecPtr> out;
  std::set<std::string> seen;
  for (const SubnetSpec& s : ctx.network().subnets) {
    if (!s.natGateway || s.natGateway->name.empty() || !seen.insert(s.natGateway->name).second) {
      continue;
    }
    const auto& nat = *s.natGateway;
    Json ips = Json::array();
    if (nat.ip && !nat.ip->name.empty()) {
      ips.push_back({{"id", ctx.id(kPublicIPType, nat.ip->name)}});
    }
    Json body = {{"location", ctx.location()},
                 {"sku", {{"name", "Standard"}}},
                 {"properties", {{"publicIpAddresses", std::move(ips)}}},
                 {"tags", ctx.tags("", nat.name)}};
    out.push_back(ctx.desired(kNatGatewaysService, ctx.id(kNatGatewayType, nat.name),
                              ctx.resourceGroup(), nat.name, std::move(body)));
  }
  return out;
}

std::vector<SpecPtr> subnetSpecs(const ClusterContext& ctx) {
  std::vector<SpecPtr> out;
  std::set<std::string> seen;
  for (const SubnetSpec* s : allSubnets(ctx)) {
    if (s->name.empty() || !seen.insert(s->name).second) {
      continue;
    }
    out.push_back(ctx.desired(kSubnetsService, ctx.subnetId(s->name), ctx.vnetResourceGroup(),
                              s->name, subnetBody(ctx, *s)));
  }
  return out;
}

}  // namespace nodewright::controllers::capz::azurecluster
