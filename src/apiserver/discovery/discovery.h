#pragma once

#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "apiserver/resources.h"
#include "core/error.h"

// The discovery documents of the API server (/version, /api, /apis and below), built from the
// served resources. Pure functions: the caller picks the document by path and Accept header.
//
// Content types: the aggregated documents must be sent with kAggregatedContentType, since
// client-go decides by the response Content-Type alone whether it got aggregated discovery;
// every other document is plain "application/json". kubectl 1.32 asks /api and /apis for
// aggregated discovery first and falls back to the per-group-version lists when the answer is
// plain JSON, so both forms work; the aggregated one saves a request per group version.
namespace nodewright::apiserver::discovery {

inline constexpr std::string_view kJsonContentType = "application/json";
inline constexpr std::string_view kAggregatedContentType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

// What /version reports. kubectl warns when the server's minor version is more than one away
// from its own, so this follows the Kubernetes release the API is modelled on.
inline constexpr std::string_view kServerMajor = "1";
inline constexpr std::string_view kServerMinor = "32";
inline constexpr std::string_view kServerGitVersion = "v1.32.0-nodewright";

// True when an Accept header lists apidiscovery.k8s.io/v2 APIGroupDiscoveryList (with a
// non-zero q), i.e. /api and /apis should answer with the aggregated documents.
bool acceptsAggregated(std::string_view accept);

// GET /version: version.Info.
api::Json versionInfo();

// GET /api: APIVersions ("v1").
api::Json coreVersions();

// GET /apis: APIGroupList of every group but the core one.
api::Json groupList(const std::vector<ResourcePtr>& resources);

// GET /apis/GROUP: APIGroup. NotFound when the group serves nothing (or is the core group).
core::Result<api::Json> apiGroup(const std::vector<ResourcePtr>& resources, std::string_view group);

// GET /api/v1 (group "") and /apis/GROUP/VERSION: APIResourceList with every resource and its
// subresources ("pods/status"). NotFound when the group version serves nothing.
core::Result<api::Json> resourceList(const std::vector<ResourcePtr>& resources,
                                     std::string_view group, std::string_view version);

// GET /api, aggregated: APIGroupDiscoveryList (apidiscovery.k8s.io/v2) of the core group.
api::Json aggregatedCore(const std::vector<ResourcePtr>& resources);

// GET /apis, aggregated: APIGroupDiscoveryList of every other group, in priority order.
api::Json aggregatedGroups(const std::vector<ResourcePtr>& resources);

}  // namespace nodewright::apiserver::discovery
