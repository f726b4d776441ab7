#include "apiserver/discovery/served.h"

#include <algorithm>
#include <array>

#include "api/crd/generate.h"

namespace nodewright::apiserver::discovery {
namespace {

// kube-apiserver's /apis order for its own groups (the aggregator's group priorities).
constexpr std::array<std::string_view, 19> kBuiltinGroupOrder = {
    "apiregistration.k8s.io",
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "node.k8s.io",
    "discovery.k8s.io",
    "flowcontrol.apiserver.k8s.io",
};

// Lower ranks come first: core, then built-in groups, then everything else.
size_t groupRank(std::string_view group) {
  if (group.empty()) {
    return 0;
  }
  auto it = std::find(kBuiltinGroupOrder.begin(), kBuiltinGroupOrder.end(), group);
  return it == kBuiltinGroupOrder.end() ? kBuiltinGroupOrder.size() + 1
                                        : static_cast<size_t>(it - kBuiltinGroupOrder.begin()) + 1;
}

}  // namespace

const std::vector<std::string>& resourceVerbs() {
  static const std::vector<std::string> verbs = {"create", "delete", "deletecollection", "get",
                                                 "list",   "patch",  "update",           "watch"};
  return verbs;
}

std::vector<Subresource> subresourcesOf(const Resource& resource) {
  std::vector<Subresource> out;
  const std::vector<std::string> readWrite = {"get", "patch", "update"};
  // Upstream lists subresources alphabetically within a resource.
  std::vector<std::string> names = resource.subresources;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string& name : names) {
    if (name == "status") {
      out.push_back({name, resource.group, resource.version, resource.kind, readWrite});
    } else if (name == "scale") {
      out.push_back({name, "autoscaling", "v1", "Scale", readWrite});
    } else if (name == "binding") {
      out.push_back({name, "", "v1", "Binding", {"create"}});
    } else if (name == "eviction") {
      out.push_back({name, "policy", "v1", "Eviction", {"create"}});
    }
  }
  return out;
}

std::vector<ServedGroup> servedGroups(const std::vector<ResourcePtr>& resources) {
  std::vector<ServedGroup> groups;
  for (const ResourcePtr& r : resources) {
    if (!r || r->version.empty()) {
      continue;
    }
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const ServedGroup& g) { return g.name == r->group; });
    if (group == groups.end()) {
      groups.push_back({r->group, {}});
      group = std::prev(groups.end());
    }
    if (std::find(group->versions.begin(), group->versions.end(), r->version) ==
        group->versions.end()) {
      group->versions.push_back(r->version);
    }
  }
  for (ServedGroup& g : groups) {
    std::sort(g.versions.begin(), g.versions.end(), [](const std::string& a, const std::string& b) {
      return api::crd::higherVersionPriority(a, b);
    });
  }
  std::sort(groups.begin(), groups.end(), [](const ServedGroup& a, const ServedGroup& b) {
    size_t ra = groupRank(a.name);
    size_t rb = groupRank(b.name);
    return ra != rb ? ra < rb : a.name < b.name;
  });
  return groups;
}

std::vector<ResourcePtr> resourcesOf(const std::vector<ResourcePtr>& resources,
                                     std::string_view group, std::string_view version) {
  std::vector<ResourcePtr> out;
  for (const ResourcePtr& r : resources) {
    if (r && r->group == group && r->version == version) {
      out.push_back(r);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const ResourcePtr& a, const ResourcePtr& b) { return a->plural < b->plural; });
  return out;
}

}  // namespace nodewright::apiserver::discovery
