#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/capi/common.h"
#include "api/capz/network.h"
#include "api/labels.h"

// infrastructure.cluster.x-k8s.io/v1beta1 AzureClusterIdentity: the Azure credentials
// AzureClusters (and AzureManagedControlPlanes) reference through identityRef, and the
// namespaces allowed to use them.
namespace nodewright::api::capz {

inline constexpr const char* kIdentityServicePrincipal = "ServicePrincipal";
inline constexpr const char* kIdentityUserAssignedMSI = "UserAssignedMSI";
inline constexpr const char* kIdentityManualServicePrincipal = "ManualServicePrincipal";
inline constexpr const char* kIdentityServicePrincipalCertificate = "ServicePrincipalCertificate";
inline constexpr const char* kIdentityWorkloadIdentity = "WorkloadIdentity";
inline constexpr const char* kIdentityUserAssignedIdentityCredential =
    "UserAssignedIdentityCredential";

// core/v1 SecretReference: a Secret by name and namespace.
struct SecretReference {
  std::string name;
  std::string namespace_;  // JSON "namespace"
};
const reflect::StructSchema& describe(reflect::Tag<SecretReference>);

// Namespaces whose AzureClusters may use the identity: listed, or matched by the selector.
// Absent (on the spec) allows none, not even the identity's own namespace; present with neither
// field allows all. The list is optional because upstream tells `{}` (all) from `{list: []}`
// (none listed).
struct AllowedNamespaces {
  std::optional<std::vector<std::string>> list;
  std::optional<LabelSelector> selector;
};
const reflect::StructSchema& describe(reflect::Tag<AllowedNamespaces>);

struct AzureClusterIdentitySpec {
  std::string type;
  std::string resourceID;  // deprecated upstream; no effect
  std::string clientID;
  SecretReference clientSecret;
  std::string certPath;
  std::string userAssignedIdentityCredentialsPath;
  std::string userAssignedIdentityCredentialsCloudType;
  std::string tenantID;
  std::optional<AllowedNamespaces> allowedNamespaces;
};
const reflect::StructSchema& describe(reflect::Tag<AzureClusterIdentitySpec>);

struct AzureClusterIdentityStatus {
  std::vector<capi::CapiCondition> conditions;
};
const reflect::StructSchema& describe(reflect::Tag<AzureClusterIdentityStatus>);

struct AzureClusterIdentity {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  AzureClusterIdentitySpec spec;
  AzureClusterIdentityStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<AzureClusterIdentity>);

// CAPZ's IsClusterNamespaceAllowed: whether an AzureCluster in `clusterNamespace` may use an
// identity with `allowed`. `namespaceLabels`: the labels of that namespace, nullopt when it could
// not be read (then the selector matches nothing, as upstream's failed List does). An invalid or
// empty selector matches nothing.
bool isClusterNamespaceAllowed(const std::optional<AllowedNamespaces>& allowed,
                               std::string_view clusterNamespace,
                               const std::optional<Labels>& namespaceLabels);

}  // namespace nodewright::api::capz
