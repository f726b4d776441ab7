#include "apiserver/discovery/openapi.h"

#include <cstdint>
#include <cstdio>

#include "apiserver/discovery/discovery.h"
#include "apiserver/discovery/openapi_parts.h"
#include "apiserver/discovery/served.h"
#include "core/hash.h"

namespace nodewright::apiserver::discovery {
namespace {

core::Error notFound(std::string_view what) {
  return core::Error::notFound("no OpenAPI document for " + std::string(what));
}

std::string hex64(uint64_t value) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llX", static_cast<unsigned long long>(value));
  return buf;
}

void appendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

// A length-delimited protobuf field (strings and nested messages).
std::string protoField(uint32_t number, std::string_view bytes) {
  std::string out;
  appendVarint(out, (static_cast<uint64_t>(number) << 3) | 2);
  appendVarint(out, bytes.size());
  out += bytes;
  return out;
}

}  // namespace

std::string openApiV3Path(std::string_view group, std::string_view version) {
  if (group.empty()) {
    return "api/" + std::string(version);
  }
  return "apis/" + std::string(group) + "/" + std::string(version);
}

core::Result<api::Json> openApiV3Document(const std::vector<ResourcePtr>& resources,
                                          std::string_view group, std::string_view version) {
  std::vector<ResourcePtr> served = resourcesOf(resources, group, version);
  if (served.empty()) {
    return core::fail(notFound(openApiV3Path(group, version)));
  }
  api::Json paths = api::Json::object();
  api::Json schemas = api::Json::object();
  openapi::addMetaSchemas(schemas);
  for (const ResourcePtr& r : served) {
    openapi::addResourcePaths(*r, paths);
    openapi::addResourceSchemas(*r, schemas);
  }
  api::Json doc = api::Json::object();
  doc["openapi"] = "3.0.0";
  doc["info"] = {{"title", "Kubernetes"}, {"version", kServerGitVersion}};
  doc["paths"] = std::move(paths);
  doc["components"] = {{"schemas", std::move(schemas)}};
  return doc;
}

core::Result<api::Json> openApiV3DocumentAt(const std::vector<ResourcePtr>& resources,
                                            std::string_view path) {
  std::string_view rest = path;
  std::string_view group;
  if (rest.substr(0, 4) == "api/") {
    rest.remove_prefix(4);
  } else if (rest.substr(0, 5) == "apis/") {
    rest.remove_prefix(5);
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0) {
      return core::fail(notFound(path));
    }
    group = rest.substr(0, slash);
    rest.remove_prefix(slash + 1);
  } else {
    return core::fail(notFound(path));
  }
  if (rest.empty() || rest.find('/') != std::string_view::npos) {
    return core::fail(notFound(path));
  }
  return openApiV3Document(resources, group, rest);
}

std::string documentHash(const api::Json& document) {
  const std::string text = api::dumpJson(document);
  // Two differently seeded FNV-1a passes give 128 bits: enough that distinct documents do not
  // share a URL by accident (clients cache by it).
  core::Hasher first;
  first.addBytes(text);
  core::Hasher second;
  second.addTag('v');
  second.addBytes(text);
  return hex64(first.value()) + hex64(second.value());
}

api::Json openApiV3Index(const std::vector<ResourcePtr>& resources) {
  api::Json paths = api::Json::object();
  for (const ServedGroup& group : servedGroups(resources)) {
    for (const std::string& version : group.versions) {
      auto doc = openApiV3Document(resources, group.name, version);
      if (!doc) {
        continue;
      }
      std::string key = openApiV3Path(group.name, version);
      paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + documentHash(*doc)}};
    }
  }
  return {{"paths", std::move(paths)}};
}

std::string openApiV2Protobuf() {
  // openapi_v2.Document: swagger = 1, info = 2 (title = 1, version = 2), paths = 8,
  // definitions = 9.
  std::string info = protoField(1, "Kubernetes") + protoField(2, kServerGitVersion);
  return protoField(1, "2.0") + protoField(2, info) + protoField(8, "") + protoField(9, "");
}

api::Json openApiV2Document() {
  api::Json doc = api::Json::object();
  doc["swagger"] = "2.0";
  doc["info"] = {{"title", "Kubernetes"}, {"version", kServerGitVersion}};
  doc["paths"] = api::Json::object();
  doc["definitions"] = api::Json::object();
  return doc;
}

}  // namespace nodewright::apiserver::discovery
