#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/capz/azure_cluster.h"
#include "api/reflect/json.h"
#include "lro/operation.h"

// What the AzureCluster service builders share (services.cc assembles them): where the cluster's
// resources live and how a spec is made. Internal to controllers/capz/azurecluster.
namespace nodewright::controllers::capz::azurecluster {

using SpecPtr = std::shared_ptr<const lro::ResourceSpec>;

// ARM resource types the cluster's services create.
inline constexpr const char* kVnetType = "Microsoft.Network/virtualNetworks";
inline constexpr const char* kNsgType = "Microsoft.Network/networkSecurityGroups";
inline constexpr const char* kRouteTableType = "Microsoft.Network/routeTables";
inline constexpr const char* kPublicIPType = "Microsoft.Network/publicIPAddresses";
inline constexpr const char* kNatGatewayType = "Microsoft.Network/natGateways";
inline constexpr const char* kLoadBalancerType = "Microsoft.Network/loadBalancers";
inline constexpr const char* kPrivateZoneType = "Microsoft.Network/privateDnsZones";
inline constexpr const char* kBastionType = "Microsoft.Network/bastionHosts";

class ClusterContext {
 public:
  explicit ClusterContext(const api::capz::AzureCluster& cluster);

  const api::capz::AzureCluster& cluster() const { return cluster_; }
  const api::capz::NetworkSpec& network() const { return cluster_.spec.networkSpec; }
  const std::string& clusterName() const { return cluster_.metadata.name; }
  const std::string& location() const { return cluster_.spec.location; }
  const std::string& resourceGroup() const { return cluster_.spec.resourceGroup; }
  const std::string& vnetResourceGroup() const { return vnetGroup_; }

  // A resource in the cluster's resource group.
  std::string id(std::string_view type, std::string_view name) const;
  std::string vnetId() const;
  std::string subnetId(std::string_view subnet) const;
  // CAPZ's tags: owned by the cluster, the role and name, plus the spec's additionalTags.
  api::Json tags(std::string_view role, std::string_view name) const;

  // A DesiredResource of `service` at `id` (in `group`) that should have `body`.
  SpecPtr desired(std::string_view service, std::string id, std::string_view group,
                  std::string_view name, api::Json body) const;

 private:
  const api::capz::AzureCluster& cluster_;
  std::string vnetGroup_;
};

// A resource that is created when missing and otherwise left as it is (CAPZ's groups service:
// an existing group, ours or not, is never updated).
SpecPtr createOnly(lro::ResourceRef ref, api::Json body);

// Per service, the specs of its resources (network_specs.cc, load_balancer_specs.cc).
std::vector<SpecPtr> securityGroupSpecs(const ClusterContext& ctx);
std::vector<SpecPtr> routeTableSpecs(const ClusterContext& ctx);
std::vector<SpecPtr> publicIPSpecs(const ClusterContext& ctx);
std::vector<SpecPtr> natGatewaySpecs(const ClusterContext& ctx);
std::vector<SpecPtr> subnetSpecs(const ClusterContext& ctx);
std::vector<SpecPtr> loadBalancerSpecs(const ClusterContext& ctx);

}  // namespace nodewright::controllers::capz::azurecluster
