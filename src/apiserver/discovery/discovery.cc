#include "apiserver/discovery/discovery.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "apiserver/discovery/served.h"
#include "core/text.h"

namespace nodewright::apiserver::discovery {
namespace {

// One media range of an Accept header: "type/subtype" and its parameters (keys lower-cased,
// values unquoted).
struct MediaRange {
  std::string type;
  std::map<std::string, std::string> params;
};

MediaRange parseMediaRange(std::string_view text) {
  MediaRange range;
  bool first = true;
  while (true) {
    size_t semicolon = text.find(';');
    std::string_view part = core::trimSpace(text.substr(0, semicolon));
    if (first) {
      range.type = core::lowerAscii(part);
      first = false;
    } else if (size_t eq = part.find('='); eq != std::string_view::npos) {
      std::string_view value = core::trimSpace(part.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      range.params[core::lowerAscii(core::trimSpace(part.substr(0, eq)))] = std::string(value);
    }
    if (semicolon == std::string_view::npos) {
      break;
    }
    text.remove_prefix(semicolon + 1);
  }
  return range;
}

bool zeroQuality(const MediaRange& range) {
  auto q = range.params.find("q");
  if (q == range.params.end()) {
    return false;
  }
  std::string_view value = q->second;
  return !value.empty() && value.find_first_not_of("0.") == std::string_view::npos;
}

const char* platform() {
#if defined(__x86_64__)
  return "linux/amd64";
#elif defined(__aarch64__)
  return "linux/arm64";
#else
  return "linux/unknown";
#endif
}

api::Json groupVersionEntry(std::string_view group, std::string_view version) {
  std::string gv(version);
  if (!group.empty()) {
    gv = std::string(group) + "/" + gv;
  }
  return api::Json{{"groupVersion", gv}, {"version", version}};
}

api::Json groupEntry(const ServedGroup& group) {
  api::Json versions = api::Json::array();
  for (const std::string& v : group.versions) {
    versions.push_back(groupVersionEntry(group.name, v));
  }
  api::Json out = api::Json::object();
  out["name"] = group.name;
  out["versions"] = std::move(versions);
  out["preferredVersion"] = groupVersionEntry(group.name, group.versions.front());
  return out;
}

api::Json resourceEntry(const Resource& r) {
  api::Json out = api::Json::object();
  out["name"] = r.plural;
  out["singularName"] = r.singular;
  out["namespaced"] = r.namespaced;
  out["kind"] = r.kind;
  out["verbs"] = resourceVerbs();
  if (!r.shortNames.empty()) {
    out["shortNames"] = r.shortNames;
  }
  if (!r.categories.empty()) {
    out["categories"] = r.categories;
  }
  return out;
}

// "deployments/scale": group and version only when they differ from the list's, as upstream.
api::Json subresourceEntry(const Resource& parent, const Subresource& sub) {
  api::Json out = api::Json::object();
  out["name"] = parent.plural + "/" + sub.name;
  out["singularName"] = "";
  out["namespaced"] = parent.namespaced;
  if (sub.group != parent.group || sub.version != parent.version) {
    out["group"] = sub.group;
    out["version"] = sub.version;
  }
  out["kind"] = sub.kind;
  out["verbs"] = sub.verbs;
  return out;
}

}  // namespace

bool acceptsAggregated(std::string_view accept) {
  while (!accept.empty()) {
    size_t comma = accept.find(',');
    MediaRange range = parseMediaRange(accept.substr(0, comma));
    if (range.type == "application/json" && range.params["g"] == "apidiscovery.k8s.io" &&
        range.params["v"] == "v2" && range.params["as"] == "APIGroupDiscoveryList" &&
        !zeroQuality(range)) {
      return true;
    }
    if (comma == std::string_view::npos) {
      break;
    }
    accept.remove_prefix(comma + 1);
  }
  return false;
}

api::Json versionInfo() {
  api::Json out = api::Json::object();
  out["major"] = kServerMajor;
  out["minor"] = kServerMinor;
  out["gitVersion"] = kServerGitVersion;
  out["gitCommit"] = "";
  out["gitTreeState"] = "clean";
  out["buildDate"] = "1970-01-01T00:00:00Z";
  out["goVersion"] = "";
  out["compiler"] = "c++";
  out["platform"] = platform();
  return out;
}

api::Json coreVersions() {
  api::Json out = api::Json::object();
  out["kind"] = "APIVersions";
  out["versions"] = api::Json::array({"v1"});
  out["serverAddressByClientCIDRs"] = api::Json::array();
  return out;
}

api::Json groupList(const std::vector<ResourcePtr>& resources) {
  api::Json groups = api::Json::array();
  for (const ServedGroup& g : servedGroups(resources)) {
    if (!g.name.empty()) {
      groups.push_back(groupEntry(g));
    }
  }
  api::Json out = api::Json::object();
  out["kind"] = "APIGroupList";
  out["apiVersion"] = "v1";
  out["groups"] = std::move(groups);
  return out;
}

core::Result<api::Json> apiGroup(const std::vector<ResourcePtr>& resources,
                                 std::string_view group) {
  for (const ServedGroup& g : servedGroups(resources)) {
    if (g.name.empty() || g.name != group) {
      continue;
    }
    api::Json out = api::Json::object();
    out["kind"] = "APIGroup";
    out["apiVersion"] = "v1";
    api::Json entry = groupEntry(g);
    for (auto& [key, value] : entry.items()) {
      out[key] = std::move(value);
    }
    return out;
  }
  return core::fail(core::Error::notFound("the server could not find the requested resource"));
}

core::Result<api::Json> resourceList(const std::vector<ResourcePtr>& resources,
                                     std::string_view group, std::string_view version) {
  std::vector<ResourcePtr> served = resourcesOf(resources, group, version);
  if (served.empty()) {
    return core::fail(core::Error::notFound("the server could not find the requested resource"));
  }
  api::Json list = api::Json::array();
  for (const ResourcePtr& r : served) {
    list.push_back(resourceEntry(*r));
    for (const Subresource& sub : subresourcesOf(*r)) {
      list.push_back(subresourceEntry(*r, sub));
    }
  }
  api::Json out = api::Json::object();
  out["kind"] = "APIResourceList";
  out["apiVersion"] = "v1";
  out["groupVersion"] = groupVersionEntry(group, version)["groupVersion"];
  out["resources"] = std::move(list);
  return out;
}

}  // namespace nodewright::apiserver::discovery
