#pragma once

#include <string>
#include <string_view>

#include "api/reflect/json.h"
#include "apiserver/resources.h"

// The pieces openapi.cc assembles into one group version's document: component schemas
// (openapi_schemas.cc) and path items (openapi_paths.cc).
namespace nodewright::apiserver::discovery::openapi {

inline constexpr std::string_view kObjectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
inline constexpr std::string_view kListMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
inline constexpr std::string_view kDeleteOptions =
    "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
inline constexpr std::string_view kStatus = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
inline constexpr std::string_view kPatch = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";

// The component name upstream gives a kind: "io.k8s.api.core.v1.Pod", "io.k8s.api.apps.v1.
// Deployment", "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.
// CustomResourceDefinition"; kinds served through CRDs use the reversed group,
// "sh.karpenter.v1.NodePool".
std::string kindSchemaName(std::string_view group, std::string_view version, std::string_view kind,
                           bool custom);
std::string kindSchemaName(const Resource& resource);

// {"$ref": "#/components/schemas/<name>"}
api::Json schemaRef(std::string_view name);

// ObjectMeta, ListMeta, DeleteOptions, Status and Patch: referenced by every document.
void addMetaSchemas(api::Json& schemas);

// The kind, its list kind, and the kinds its subresources take (autoscaling/v1 Scale, ...).
void addResourceSchemas(const Resource& resource, api::Json& schemas);

// Every path of the resource: collection, object, subresources, and for namespaced resources
// the list across all namespaces.
void addResourcePaths(const Resource& resource, api::Json& paths);

}  // namespace nodewright::apiserver::discovery::openapi
