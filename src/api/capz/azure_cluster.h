#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"
#include "api/capz/future.h"
#include "api/capz/network.h"

// infrastructure.cluster.x-k8s.io/v1beta1 AzureCluster: the Azure side of a Cluster — resource
// group, network, load balancers and bastion — reconciled service by service (seed 004).
namespace nodewright::api::capz {

// An Azure Edge Zone the cluster runs in.
struct ExtendedLocationSpec {
  std::string name;
  std::string type;  // EdgeZone
};
const reflect::StructSchema& describe(reflect::Tag<ExtendedLocationSpec>);

struct AzureClusterSpec {
  NetworkSpec networkSpec;
  std::string resourceGroup;
  std::string subscriptionID;
  std::string location;
  std::optional<ExtendedLocationSpec> extendedLocation;
  capi::APIEndpoint controlPlaneEndpoint;
  Tags additionalTags;
  std::optional<ObjectReference> identityRef;
  std::string azureEnvironment;
  BastionSpec bastionSpec;
  Json cloudProviderConfigOverrides;  // rate limits and back-offs, kept verbatim
  std::map<std::string, capi::FailureDomainSpec> failureDomains;
};
const reflect::StructSchema& describe(reflect::Tag<AzureClusterSpec>);

struct AzureClusterStatus {
  std::map<std::string, capi::FailureDomainSpec> failureDomains;
  bool ready = false;
  std::vector<capi::CapiCondition> conditions;
  Futures longRunningOperationStates;
};
const reflect::StructSchema& describe(reflect::Tag<AzureClusterStatus>);

struct AzureCluster {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  AzureClusterSpec spec;
  AzureClusterStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<AzureCluster>);

// The CAPZ webhook defaults that derive names from the cluster's name: resource group, vnet,
// the control-plane and node subnets with their security groups, route table and NAT
// gateway, the load balancers and the bastion host. Idempotent.
void applyAzureClusterDefaults(AzureCluster& cluster);

// The rules of the CAPZ AzureCluster webhook that need the object's name or span the spec.
void validateAzureCluster(const AzureCluster& cluster, const FieldPath& path, FieldErrors& errors);

}  // namespace nodewright::api::capz
