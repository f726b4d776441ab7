#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "apiserver/resources.h"

// What the API server serves, arranged the way discovery and OpenAPI both present it: groups in
// kube-apiserver's priority order, versions by priority, resources by name, and the kind each
// subresource takes and returns.
namespace nodewright::apiserver::discovery {

// The verbs of every resource: the server implements all of them for every kind.
const std::vector<std::string>& resourceVerbs();

// A subresource with the kind a request on it sends and receives: "deployments/scale" works on
// autoscaling/v1 Scale, "pods/status" on the Pod itself.
struct Subresource {
  std::string name;  // "status"
  std::string group;
  std::string version;
  std::string kind;
  std::vector<std::string> verbs;
};

// The subresources of `resource` that clients can use, in a stable order. Names the server does
// not know how to describe are left out rather than advertised with a guessed kind.
std::vector<Subresource> subresourcesOf(const Resource& resource);

struct ServedGroup {
  std::string name;                   // "" for the core group
  std::vector<std::string> versions;  // highest priority first; the first is preferred
};

// Every served group: the core group first, then the built-in groups in kube-apiserver's order,
// then the others (CRD groups) alphabetically, as the aggregator sorts groups of equal priority.
// The order matters to clients: kubectl resolves a plural served by two groups ("machines") to
// the group listed first.
std::vector<ServedGroup> servedGroups(const std::vector<ResourcePtr>& resources);

// The resources of one group version, sorted by plural. Empty when none is served.
std::vector<ResourcePtr> resourcesOf(const std::vector<ResourcePtr>& resources,
                                     std::string_view group, std::string_view version);

}  // namespace nodewright::apiserver::discovery
