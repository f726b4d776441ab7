// Aggregated discovery (apidiscovery.k8s.io/v2): every group, version and resource in one
// document, so clients need one request for /api and one for /apis.
#include <string>

#include "apiserver/discovery/discovery.h"
#include "apiserver/discovery/served.h"

namespace nodewright::apiserver::discovery {
namespace {

api::Json kindRef(std::string_view group, std::string_view version, std::string_view kind) {
  return api::Json{{"group", group}, {"version", version}, {"kind", kind}};
}

// client-go drops a resource without responseKind, and a subresource without one, so both
// are always set.
api::Json resourceEntry(const Resource& r) {
  api::Json out = api::Json::object();
  out["resource"] = r.plural;
  out["responseKind"] = kindRef(r.group, r.version, r.kind);
  out["scope"] = r.namespaced ? "Namespaced" : "Cluster";
  out["singularResource"] = r.singular;
  out["verbs"] = resourceVerbs();
  if (!r.shortNames.empty()) {
    out["shortNames"] = r.shortNames;
  }
  if (!r.categories.empty()) {
    out["categories"] = r.categories;
  }
  api::Json subresources = api::Json::array();
  for (const Subresource& sub : subresourcesOf(r)) {
    api::Json entry = api::Json::object();
    entry["subresource"] = sub.name;
    entry["responseKind"] = kindRef(sub.group, sub.version, sub.kind);
    entry["verbs"] = sub.verbs;
    subresources.push_back(std::move(entry));
  }
  if (!subresources.empty()) {
    out["subresources"] = std::move(subresources);
  }
  return out;
}

api::Json groupEntry(const std::vector<ResourcePtr>& resources, const ServedGroup& group) {
  api::Json versions = api::Json::array();
  // Versions in preference order: clients take the first as the preferred one.
  for (const std::string& version : group.versions) {
    api::Json list = api::Json::array();
    for (const ResourcePtr& r : resourcesOf(resources, group.name, version)) {
      list.push_back(resourceEntry(*r));
    }
    versions.push_back(
        api::Json{{"version", version}, {"resources", std::move(list)}, {"freshness", "Current"}});
  }
  api::Json metadata = api::Json::object();
  if (!group.name.empty()) {
    metadata["name"] = group.name;
  }
  return api::Json{{"metadata", std::move(metadata)}, {"versions", std::move(versions)}};
}

api::Json discoveryList(const std::vector<ResourcePtr>& resources, bool core) {
  api::Json items = api::Json::array();
  for (const ServedGroup& g : servedGroups(resources)) {
    if (g.name.empty() == core) {
      items.push_back(groupEntry(resources, g));
    }
  }
  api::Json out = api::Json::object();
  out["kind"] = "APIGroupDiscoveryList";
  out["apiVersion"] = "apidiscovery.k8s.io/v2";
  out["metadata"] = api::Json::object();
  out["items"] = std::move(items);
  return out;
}

}  // namespace

api::Json aggregatedCore(const std::vector<ResourcePtr>& resources) {
  return discoveryList(resources, true);
}

api::Json aggregatedGroups(const std::vector<ResourcePtr>& resources) {
  return discoveryList(resources, false);
}

}  // namespace nodewright::apiserver::discovery
