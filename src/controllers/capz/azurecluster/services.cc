#include "controllers/capz/azurecluster/services.h"

#include <algorithm>
#include <map>
#include <set>

#include "api/capz/conditions.h"
#include "controllers/capz/arm_resource.h"
#include "controllers/capz/azurecluster/specs.h"

namespace nodewright::controllers::capz::azurecluster {
namespace {

using api::Json;

// Created when missing; an existing resource is left alone, whatever it looks like.
class CreateOnlyResource final : public lro::ResourceSpec {
 public:
  CreateOnlyResource(lro::ResourceRef ref, Json body)
      : ref_(std::move(ref)), body_(std::move(body)) {}

  lro::ResourceRef resource() const override { return ref_; }
  core::Result<std::optional<Json>> parameters(const Json& existing) const override {
    if (existing.is_null()) {
      return std::optional<Json>(body_);
    }
    return std::optional<Json>();
  }

 private:
  lro::ResourceRef ref_;
  Json body_;
};

lro::ResourceRef makeRef(std::string_view service, std::string id, std::string_view group,
                         std::string_view name) {
  lro::ResourceRef ref;
  ref.id = std::move(id);
  ref.resourceGroup = std::string(group);
  ref.serviceName = std::string(service);
  ref.name = std::string(name);
  return ref;
}

SpecPtr resourceGroupSpec(const ClusterContext& ctx) {
  const std::string& group = ctx.resourceGroup();
  Json body = {{"location", ctx.location()}, {"tags", ctx.tags("common", group)}};
  return createOnly(
      makeRef(kResourceGroupsService, resourceGroupId(ctx.cluster().spec.subscriptionID, group),
              group, group),
      std::move(body));
}

// CAPZ never updates an existing virtual network (it may be the user's, or carry peerings and
// subnets we do not list).
SpecPtr vnetSpec(const ClusterContext& ctx) {
  const auto& vnet = ctx.network().vnet;
  Json tags = ctx.tags("common", vnet.name);
  for (const auto& [k, v] : vnet.tags) {
    tags[k] = v;
  }
  Json body = {{"location", ctx.location()},
               {"properties", {{"addressSpace", {{"addressPrefixes", vnet.cidrBlocks}}}}},
               {"tags", std::move(tags)}};
  return createOnly(
      makeRef(kVirtualNetworksService, ctx.vnetId(), ctx.vnetResourceGroup(), vnet.name),
      std::move(body));
}

std::vector<SpecPtr> privateZoneSpecs(const ClusterContext& ctx, const std::string& zone) {
  Json body = {{"location", "global"}, {"tags", ctx.tags("", zone)}};
  return {ctx.desired(kPrivateDNSService, ctx.id(kPrivateZoneType, zone), ctx.resourceGroup(), zone,
                      std::move(body))};
}

// The zone's link to the cluster's vnet and, for a private API server, its A record.
std::vector<SpecPtr> privateDNSSpecs(const ClusterContext& ctx, const std::string& zone) {
  const std::string zoneType = std::string(kPrivateZoneType) + "/" + zone;
  const std::string link = ctx.network().vnet.name + "-link";
  Json linkBody = {
      {"location", "global"},
      {"properties", {{"virtualNetwork", {{"id", ctx.vnetId()}}}, {"registrationEnabled", false}}},
      {"tags", ctx.tags("", link)}};
  std::vector<SpecPtr> out = {ctx.desired(kPrivateDNSService,
                                          ctx.id(zoneType + "/virtualNetworkLinks", link),
                                          ctx.resourceGroup(), link, std::move(linkBody))};
  const auto& lb = ctx.network().apiServerLB;
  if (lb && lb->type == "Internal" && !lb->frontendIPs.empty() &&
      !lb->frontendIPs[0].privateIP.empty()) {
    Json record = {
        {"properties",
         {{"ttl", 300},
          {"aRecords", Json::array({{{"ipv4Address", lb->frontendIPs[0].privateIP}}})}}}};
    out.push_back(ctx.desired(kPrivateDNSService, ctx.id(zoneType + "/A", "apiserver"),
                              ctx.resourceGroup(), "apiserver", std::move(record)));
  }
  return out;
}

std::vector<SpecPtr> bastionSpecs(const ClusterContext& ctx) {
  const auto& bastion = ctx.cluster().spec.bastionSpec.azureBastion;
  if (!bastion) {
    return {};
  }
  Json ipConfig = {{"name", "bastionIP"},
                   {"properties",
                    {{"subnet", {{"id", ctx.subnetId(bastion->subnet.name)}}},
                     {"publicIPAddress", {{"id", ctx.id(kPublicIPType, bastion->publicIP.name)}}},
                     {"privateIPAllocationMethod", "Dynamic"}}}};
  Json props = {{"ipConfigurations", Json::array({std::move(ipConfig)})}};
  if (bastion->enableTunneling) {
    props["enableTunneling"] = true;
  }
  Json body = {{"location", ctx.location()},
               {"sku", {{"name", bastion->sku.empty() ? "Basic" : bastion->sku}}},
               {"properties", std::move(props)},
               {"tags", ctx.tags("Bastion", bastion->name)}};
  return {ctx.desired(kBastionHostsService, ctx.id(kBastionType, bastion->name),
                      ctx.resourceGroup(), bastion->name, std::move(body))};
}

}  // namespace

ClusterContext::ClusterContext(const api::capz::AzureCluster& cluster)
    : cluster_(cluster),
      vnetGroup_(cluster.spec.networkSpec.vnet.resourceGroup.empty()
                     ? cluster.spec.resourceGroup
                     : cluster.spec.networkSpec.vnet.resourceGroup) {}

std::string ClusterContext::id(std::string_view type, std::string_view name) const {
  return resourceId(cluster_.spec.subscriptionID, resourceGroup(), type, name);
}

std::string ClusterContext::vnetId() const {
  return resourceId(cluster_.spec.subscriptionID, vnetGroup_, kVnetType, network().vnet.name);
}

std::string ClusterContext::subnetId(std::string_view subnet) const {
  return resourceId(cluster_.spec.subscriptionID, vnetGroup_,
                    std::string(kVnetType) + "/" + network().vnet.name + "/subnets", subnet);
}

Json ClusterContext::tags(std::string_view role, std::string_view name) const {
  Json out = Json::object();
  for (const auto& [k, v] : ownedTags(clusterName(), role, name, cluster_.spec.additionalTags)) {
    out[k] = v;
  }
  return out;
}

SpecPtr ClusterContext::desired(std::string_view service, std::string id, std::string_view group,
                                std::string_view name, Json body) const {
  return std::make_shared<DesiredResource>(makeRef(service, std::move(id), group, name),
                                           std::move(body));
}

SpecPtr createOnly(lro::ResourceRef ref, Json body) {
  return std::make_shared<CreateOnlyResource>(std::move(ref), std::move(body));
}

std::string privateDNSZoneName(const api::capz::AzureCluster& cluster) {
  const auto& net = cluster.spec.networkSpec;
  if (!net.privateDNSZoneName.empty()) {
    return net.privateDNSZoneName;
  }
  if (net.apiServerLB && net.apiServerLB->type == "Internal") {
    return cluster.metadata.name + ".capz.io";
  }
  return "";
}

core::Result<void> keepOwnedForDelete(std::vector<Service>& services,
                                      const api::capz::AzureCluster& cluster,
                                      lro::Operations& cloud, std::chrono::milliseconds timeout) {
  const std::string& clusterName = cluster.metadata.name;
  std::map<std::string, bool> ownedByTopLevel;
  auto owned = [&](const lro::ResourceRef& resource) -> core::Result<bool> {
    lro::ResourceRef top = resource;
    top.id = topLevelResourceId(resource.id);
    auto [it, added] = ownedByTopLevel.try_emplace(top.id, true);
    if (!added) {
      return it->second;
    }
    auto existing = cloud.get(top, timeout);
    if (existing) {
      it->second = ownedByCluster(*existing, clusterName);
    } else if (!existing.error().is(lro::CallError::Kind::NotFound)) {
      ownedByTopLevel.erase(it);
      return tl::unexpected(
          core::Error(core::Code::Internal,
                      "reading " + top.id + " before deleting it: " + existing.error().message));
    }
    return it->second;
  };
  auto keepOwned = [&](Service& service) -> core::Result<void> {
    std::vector<SpecPtr> ours;
    for (const SpecPtr& spec : service.specs) {
      auto isOurs = owned(spec->resource());
      if (!isOurs) {
        return tl::unexpected(isOurs.error());
      }
      if (*isOurs) {
        ours.push_back(spec);
      }
    }
    service.skipDelete = ours.empty();
    service.specs = std::move(ours);
    return {};
  };
  // The vnet first: in CAPZ's custom-vnet mode (the vnet exists and is not ours) the subnets,
  // security groups, route tables and NAT gateways stay too (they are the user's, or still
  // attached to the user's subnets).
  bool customVnet = false;
  for (Service& service : services) {
    if (service.name == kVirtualNetworksService && !service.skipDelete) {
      if (auto kept = keepOwned(service); !kept) {
        return kept;
      }
      customVnet = service.skipDelete;
    }
  }
  for (Service& service : services) {
    if (service.skipDelete || service.name == kResourceGroupsService ||
        service.name == kVirtualNetworksService) {
      continue;
    }
    if (customVnet &&
        (service.name == kSubnetsService || service.name == kSecurityGroupsService ||
         service.name == kRouteTablesService || service.name == kNatGatewaysService)) {
      service.skipDelete = true;
      continue;
    }
    if (customVnet && service.name == kPublicIPsService) {
      // The spared NAT gateways still hold their public IPs.
      const ClusterContext ctx(cluster);
      std::set<std::string> natIPs;
      for (const auto& subnet : cluster.spec.networkSpec.subnets) {
        if (subnet.natGateway && subnet.natGateway->ip) {
          natIPs.insert(ctx.id(kPublicIPType, subnet.natGateway->ip->name));
        }
      }
      std::erase_if(service.specs,
                    [&](const SpecPtr& spec) { return natIPs.contains(spec->resource().id); });
    }
    if (auto kept = keepOwned(service); !kept) {
      return kept;
    }
  }
  return {};
}

bool isManagedResourceGroup(const Json& group, std::string_view clusterName) {
  return ownedByCluster(group, clusterName);
}

std::vector<Service> clusterServices(const api::capz::AzureCluster& cluster,
                                     bool managedResourceGroup) {
  namespace capz = api::capz;
  const ClusterContext ctx(cluster);
  std::vector<Service> out;
  // Services without resources are left out: they set no condition, and the runner treats a
  // dependency on them as met.
  auto add = [&](const char* name, const char* condition, std::vector<SpecPtr> specs,
                 std::vector<std::string> dependsOn) {
    if (specs.empty()) {
      return;
    }
    Service& s = out.emplace_back();
    s.name = name;
    s.conditionType = condition;
    s.specs = std::move(specs);
    s.dependsOn = std::move(dependsOn);
  };
  const std::string group = kResourceGroupsService;
  add(kResourceGroupsService, capz::kResourceGroupReadyCondition, {resourceGroupSpec(ctx)}, {});
  add(kVirtualNetworksService, capz::kVNetReadyCondition, {vnetSpec(ctx)}, {group});
  add(kSecurityGroupsService, capz::kSecurityGroupsReadyCondition, securityGroupSpecs(ctx),
      {group});
  add(kRouteTablesService, capz::kRouteTablesReadyCondition, routeTableSpecs(ctx), {group});
  add(kPublicIPsService, capz::kPublicIPsReadyCondition, publicIPSpecs(ctx), {group});
  add(kNatGatewaysService, capz::kNATGatewaysReadyCondition, natGatewaySpecs(ctx),
      {group, kPublicIPsService});
  add(kSubnetsService, capz::kSubnetsReadyCondition, subnetSpecs(ctx),
      {kVirtualNetworksService, kSecurityGroupsService, kRouteTablesService, kNatGatewaysService});
  add(kLoadBalancersService, capz::kLoadBalancersReadyCondition, loadBalancerSpecs(ctx),
      {kSubnetsService, kPublicIPsService});
  const std::string zone = privateDNSZoneName(cluster);
  if (!zone.empty()) {
    add(kPrivateDNSZonesService, capz::kPrivateDNSReadyCondition, privateZoneSpecs(ctx, zone),
        {group});
    add(kPrivateDNSService, capz::kPrivateDNSReadyCondition, privateDNSSpecs(ctx, zone),
        {kPrivateDNSZonesService, kVirtualNetworksService});
  }
  add(kBastionHostsService, capz::kBastionHostReadyCondition, bastionSpecs(ctx),
      {kSubnetsService, kPublicIPsService});
  // A managed group takes everything in it along (not what lives in another group, such as a
  // vnet of its own group); an unmanaged one is not ours to delete. What is deleted still has
  // to be ours: see ownedForDelete.
  for (Service& s : out) {
    const bool isGroup = s.name == kResourceGroupsService;
    const bool allInGroup = std::all_of(s.specs.begin(), s.specs.end(), [&](const SpecPtr& spec) {
      return spec->resource().resourceGroup == cluster.spec.resourceGroup;
    });
    s.skipDelete = managedResourceGroup ? !isGroup && allInGroup : isGroup;
  }
  return out;
}

}  // namespace nodewright::controllers::capz::azurecluster
