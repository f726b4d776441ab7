#pragma once

#include <chrono>
#include <string_view>
#include <vector>

#include "api/capz/azure_cluster.h"
#include "api/reflect/json.h"
#include "controllers/capz/service.h"
#include "core/error.h"
#include "lro/operation.h"

// The Azure services of an AzureCluster (seed 004, "AzureCluster Reconcile"), as the
// ServiceRunner runs them. The list is in CAPZ's order (what Order::Serial follows); the
// dependsOn edges are the graph Order::Graph follows:
//
//   resourcegroups -> virtualnetworks, securitygroups, routetables, publicips, privatednszones
//   publicips -> natgateways
//   virtualnetworks, securitygroups, routetables, natgateways -> subnets
//   subnets, publicips -> loadbalancers
//   privatednszones, virtualnetworks -> privatedns (vnet link, A record)
//   subnets, publicips -> bastionhosts
//
// Names follow what applyAzureClusterDefaults derived; every body is what ARM (and our
// emulator) accepts at the api-versions cloud/azure/api_versions picks.
namespace nodewright::controllers::capz::azurecluster {

// Service names: the futures' serviceName of every resource of the service.
inline constexpr const char* kResourceGroupsService = "resourcegroups";
inline constexpr const char* kVirtualNetworksService = "virtualnetworks";
inline constexpr const char* kSecurityGroupsService = "securitygroups";
inline constexpr const char* kRouteTablesService = "routetables";
inline constexpr const char* kPublicIPsService = "publicips";
inline constexpr const char* kNatGatewaysService = "natgateways";
inline constexpr const char* kSubnetsService = "subnets";
inline constexpr const char* kLoadBalancersService = "loadbalancers";
// The private DNS zone must exist before its children: the zone is a service of its own that
// shares the "privatedns" futures and the PrivateDNSReady condition with its links and records.
inline constexpr const char* kPrivateDNSZonesService = "privatednszones";
inline constexpr const char* kPrivateDNSService = "privatedns";
inline constexpr const char* kBastionHostsService = "bastionhosts";

// The API server's port when the cluster's endpoint names none.
inline constexpr int kDefaultAPIServerPort = 6443;

// The services of `cluster` (after applyAzureClusterDefaults). `managedResourceGroup`: the
// resource group is ours (tagged owned, see isManagedResourceGroup); deleting it deletes
// everything in it, so every other service is skipDelete. Otherwise every service but the
// resource group is deleted, in reverse.
std::vector<Service> clusterServices(const api::capz::AzureCluster& cluster,
                                     bool managedResourceGroup);

// Deletes only what is ours, as CAPZ spares what the user brought (a vnet and its subnets,
// security groups, route tables): every spec of a service that will be deleted is dropped when
// its resource (for a child, its top-level parent: a subnet's vnet) exists without the
// cluster's owned tag. One GET per top-level resource; a missing one keeps its spec (its
// DELETE, or a parked one, ends Done). A service left without specs becomes skipDelete. As
// CAPZ's custom-vnet mode, a vnet that exists and is not ours also spares the subnets, security
// groups, route tables and NAT gateways (and the NAT gateways' public IPs). The resource group
// service is left alone (it is deleted only when managed, known to be ours).
core::Result<void> keepOwnedForDelete(std::vector<Service>& services,
                                      const api::capz::AzureCluster& cluster,
                                      lro::Operations& cloud, std::chrono::milliseconds timeout);

// True when `group` (an ARM resource group as GET returns it) carries the cluster's owned tag.
bool isManagedResourceGroup(const api::Json& group, std::string_view clusterName);

// The private DNS zone of a cluster: spec.networkSpec.privateDNSZoneName, else
// "<cluster>.capz.io" for a private (Internal) API server load balancer, else empty (none).
std::string privateDNSZoneName(const api::capz::AzureCluster& cluster);

}  // namespace nodewright::controllers::capz::azurecluster
