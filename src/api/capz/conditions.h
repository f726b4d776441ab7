#pragma once

// Condition types and reasons the CAPZ controllers set while Azure resources are created and
// deleted asynchronously (seed 004, "Proposed New Conditions"). Each service sets its
// condition False with a reason while a long-running operation is in flight and True once the
// resources are ready.
namespace nodewright::api::capz {

// Condition types, one per Azure service.
inline constexpr const char* kResourceGroupReadyCondition = "ResourceGroupReady";
inline constexpr const char* kVNetReadyCondition = "VNetReady";
inline constexpr const char* kSecurityGroupsReadyCondition = "SecurityGroupsReady";
inline constexpr const char* kRouteTablesReadyCondition = "RouteTablesReady";
inline constexpr const char* kPublicIPsReadyCondition = "PublicIPsReady";
inline constexpr const char* kNATGatewaysReadyCondition = "NATGatewaysReady";
inline constexpr const char* kSubnetsReadyCondition = "SubnetsReady";
inline constexpr const char* kLoadBalancersReadyCondition = "LoadBalancersReady";
inline constexpr const char* kPrivateDNSReadyCondition = "PrivateDNSReady";
inline constexpr const char* kBastionHostReadyCondition = "BastionHostReady";
inline constexpr const char* kInboundNATRulesReadyCondition = "InboundNATRulesReady";
inline constexpr const char* kAvailabilitySetReadyCondition = "AvailabilitySetReady";
inline constexpr const char* kRoleAssignmentReadyCondition = "RoleAssignmentReady";
// The AzureCluster's network as a whole: True once every service is ready; False when the
// cluster may not use its identity (kNamespaceNotAllowedByIdentityReason).
inline constexpr const char* kNetworkInfrastructureReadyCondition = "NetworkInfrastructureReady";

// Reasons carried by those conditions while they are False.
inline constexpr const char* kCreatingReason = "Creating";
inline constexpr const char* kUpdatingReason = "Updating";
inline constexpr const char* kFailedReason = "Failed";
inline constexpr const char* kDeletingReason = "Deleting";
inline constexpr const char* kDeletedReason = "Deleted";
inline constexpr const char* kDeletionFailedReason = "DeletionFailed";
// The AzureCluster's namespace is not among its identity's allowedNamespaces.
inline constexpr const char* kNamespaceNotAllowedByIdentityReason = "NamespaceNotAllowedByIdentity";

// Future.type values: the HTTP verb of the Azure request the operation came from.
inline constexpr const char* kPutFuture = "PUT";
inline constexpr const char* kPatchFuture = "PATCH";
inline constexpr const char* kDeleteFuture = "DELETE";

}  // namespace nodewright::api::capz
