#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

// Which kinds have a scale subresource (autoscaling/v1 Scale at NAME/scale) and where its
// replicas live in the object, as a CRD's subresources.scale names them: the workloads with
// their built-in ones, Cluster API's scalable kinds, and Karpenter's NodePool (spec.replicas and
// status.nodes, static NodePools).
namespace nodewright::api {

struct ScaleSubresource {
  std::string specReplicasPath;    // ".spec.replicas"
  std::string statusReplicasPath;  // ".status.replicas"
  std::string labelSelectorPath;   // "" when the kind has none
  // What the Scale's spec.replicas reads when the object has none: a workload's default of 1,
  // a CRD's 0.
  int64_t replicasIfUnset = 0;
};

std::optional<ScaleSubresource> scaleSubresource(std::string_view group, std::string_view kind);

}  // namespace nodewright::api
