#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"

// cluster.x-k8s.io/v1beta1 Cluster: the root object of a workload cluster, pointing at the
// provider objects for its infrastructure (an AzureCluster) and its control plane.
namespace nodewright::api::capi {

struct NetworkRanges {
  std::vector<std::string> cidrBlocks;
};
const reflect::StructSchema& describe(reflect::Tag<NetworkRanges>);

struct ClusterNetwork {
  std::optional<int32_t> apiServerPort;
  std::optional<NetworkRanges> services;
  std::optional<NetworkRanges> pods;
  std::string serviceDomain;
};
const reflect::StructSchema& describe(reflect::Tag<ClusterNetwork>);

// A Cluster condition that must be True for the cluster to count as available.
struct ClusterAvailabilityGate {
  std::string conditionType;
};
const reflect::StructSchema& describe(reflect::Tag<ClusterAvailabilityGate>);

struct ClusterSpec {
  bool paused = false;
  std::optional<ClusterNetwork> clusterNetwork;
  APIEndpoint controlPlaneEndpoint;
  std::optional<ObjectReference> controlPlaneRef;
  std::optional<ObjectReference> infrastructureRef;
  Json topology;  // ClusterClass topology, kept verbatim
  std::vector<ClusterAvailabilityGate> availabilityGates;
};
const reflect::StructSchema& describe(reflect::Tag<ClusterSpec>);

struct ClusterStatus {
  std::map<std::string, FailureDomainSpec> failureDomains;
  std::optional<std::string> failureReason;
  std::optional<std::string> failureMessage;
  std::string phase;
  bool infrastructureReady = false;
  bool controlPlaneReady = false;
  std::vector<CapiCondition> conditions;
  int64_t observedGeneration = 0;
  Json v1beta2;  // the v1beta2 preview of the status, kept verbatim
};
const reflect::StructSchema& describe(reflect::Tag<ClusterStatus>);

struct Cluster {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  ClusterSpec spec;
  ClusterStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<Cluster>);

}  // namespace nodewright::api::capi
