#pragma once

#include <string>
#include <string_view>

#include "api/capz/network.h"
#include "api/reflect/json.h"
#include "lro/operation.h"

// ARM resource ids, CAPZ's ownership tags, and a ResourceSpec built from the body a resource
// should have: what every CAPZ service's specs are made of.
namespace nodewright::controllers::capz {

// "/subscriptions/SUB/resourceGroups/RG".
std::string resourceGroupId(std::string_view subscription, std::string_view resourceGroup);
// "/subscriptions/SUB/resourceGroups/RG/providers/Microsoft.Network/virtualNetworks/NAME";
// `type` is "Microsoft.Network/virtualNetworks", or a child type path with its parent's name
// ("Microsoft.Network/virtualNetworks/VNET/subnets").
std::string resourceId(std::string_view subscription, std::string_view resourceGroup,
                       std::string_view type, std::string_view name);

// CAPZ's tag marking a resource as created (owned) for a cluster:
// "sigs.k8s.io_cluster-api-provider-azure_cluster_NAME": "owned".
std::string clusterOwnedTagKey(std::string_view clusterName);
// The tags CAPZ puts on what it creates: owned-by-cluster, the role, the name, plus
// `additional` (the object's additionalTags win over nothing: CAPZ's own keys are kept).
api::capz::Tags ownedTags(std::string_view clusterName, std::string_view role,
                          std::string_view name, const api::capz::Tags& additional);

// True when `resource` (as ARM's GET returns it; any JSON) carries the cluster's owned tag.
bool ownedByCluster(const api::Json& resource, std::string_view clusterName);
// The id of the top-level resource `id` is, or is a child of: a subnet's vnet, a DNS record's
// zone. Ownership tags live there.
std::string topLevelResourceId(std::string_view id);

// True when every field `desired` sets has the same value in `actual` (objects recursively,
// arrays element by element and of equal length, scalars by value). Fields the cloud adds
// (ids, etags, provisioningState, defaults) do not make a difference.
bool containsJson(const api::Json& actual, const api::Json& desired);

// A resource that should exist with `body` (an ARM PUT body). PUT when it is missing, when its
// provisioningState is Failed, or when it differs from `body` in a field `body` sets;
// otherwise up to date (nothing sent).
class DesiredResource : public lro::ResourceSpec {
 public:
  DesiredResource(lro::ResourceRef ref, api::Json body)
      : ref_(std::move(ref)), body_(std::move(body)) {}

  lro::ResourceRef resource() const override { return ref_; }
  core::Result<std::optional<api::Json>> parameters(const api::Json& existing) const override;
  const api::Json& body() const { return body_; }

 private:
  lro::ResourceRef ref_;
  api::Json body_;
};

}  // namespace nodewright::controllers::capz
