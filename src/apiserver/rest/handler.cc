#include "apiserver/rest/handler.h"

#include <vector>

#include "apiserver/authentication.h"
#include "apiserver/discovery/discovery.h"
#include "apiserver/discovery/openapi.h"
#include "apiserver/patch/apply.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/merge_patch.h"
#include "apiserver/patch/strategic_merge.h"
#include "apiserver/rest/object_meta.h"
#include "apiserver/rest/query.h"
#include "apiserver/rest/request.h"
#include "apiserver/table/table.h"

namespace nodewright::apiserver::rest {
namespace {

using api::Json;

void respondError(http::Exchange& exchange, const ApiError& error) {
  exchange.respond(error.toResponse());
}

template <class T>
bool failed(const ApiResult<T>& result, http::Exchange& exchange) {
  if (result) {
    return false;
  }
  respondError(exchange, result.error());
  return true;
}

// Server-side apply never defaults the type from the endpoint: the patch names its version
// (managedfields/internal/structuredmerge.go Apply) and its kind (the typed converter finds no
// type without one, a 500 in kube-apiserver).
std::optional<ApiError> checkApplyTypeMeta(const Resource& resource, const Json& patch,
                                           const Json& current) {
  if (!patch.is_object()) {
    return std::nullopt;
  }
  const std::string apiVersion = patch.value("apiVersion", "");
  if (apiVersion != resource.apiVersion()) {
    return errors::badRequest(
        "Incorrect version specified in apply patch. Specified patch "
        "version: " +
        apiVersion + ", expected: " + resource.apiVersion());
  }
  if (patch.value("kind", "").empty()) {
    const std::string gvk = apiVersion + ", Kind=";
    const Json metadata = patch.value("metadata", Json::object());
    std::string ns = current.is_object() && current.contains("metadata")
                         ? meta::namespaceOf(current)
                         : metadata.value("namespace", "");
    return errors::internal("failed to create typed patch object (" + ns + "/" +
                            metadata.value("name", "") + "; " + gvk +
                            "): no corresponding type for " + gvk);
  }
  return std::nullopt;
}

ApiResult<Json> applyPatch(const Resource& resource, const http::Request& request,
                           const Json& current) {
  std::string type = mediaType(request.header("content-type"));
  auto patch = parseBody(request);
  if (!patch) {
    return tl::unexpected(patch.error());
  }
  core::Result<Json> result = core::fail(core::Error::invalid("unreachable"));
  if (type == "application/json-patch+json") {
    result = patch::applyJsonPatch(current, *patch);
  } else if (type == "application/merge-patch+json") {
    result = patch::applyMergePatch(current, *patch);
  } else if (type == "application/strategic-merge-patch+json") {
    if (resource.custom || !patch::isStrategicKind(resource.group, resource.kind)) {
      return tl::unexpected(errors::unsupportedMediaType(type));
    }
    result = patch::applyStrategicMergePatch(resource.group, resource.kind, current, *patch);
  } else if (type == "application/apply-patch+yaml") {
    if (auto problem = checkApplyTypeMeta(resource, *patch, current)) {
      return tl::unexpected(*problem);
    }
    result =
        patch::applyServerSide(current, *patch, resource.schema, resource.group, resource.kind);
  } else {
    return tl::unexpected(errors::unsupportedMediaType(type));
  }
  if (!result) {
    return tl::unexpected(ApiError{422, "Invalid", result.error().message(), Json::object()});
  }
  return std::move(*result);
}

}  // namespace

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> segments;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) {
      slash = path.size();
    }
    if (slash > start) {
      segments.push_back(path.substr(start, slash - start));
    }
    start = slash + 1;
  }
  return segments;
}

Handler::Handler(ResourceTable& resources, storage::Store& store, const core::Clock& clock,
                 const api::Registry& registry, HandlerOptions options)
    : resources_(resources),
      store_(store),
      clock_(clock),
      options_(std::move(options)),
      objects_(resources, store, clock, registry) {}

void Handler::handle(const http::Request& request, http::Exchange& exchange) {
  if (isHealthPath(request.path)) {
    exchange.respond(http::Response{200, "text/plain", "ok", {}});
    return;
  }
  if (!authenticated(request, options_.token)) {
    respondError(exchange, errors::unauthorized());
    return;
  }
  const auto segments = splitPath(request.path);
  const auto snapshot = resources_.snapshot();
  const std::vector<ResourcePtr>& all = *snapshot;
  const bool aggregated = discovery::acceptsAggregated(request.header("accept"));
  auto respondJson = [&](const core::Result<Json>& document, std::string_view contentType) {
    if (!document) {
      respondError(exchange, errors::notFoundPath(request.path));
      return;
    }
    exchange.respond(http::Response{200, std::string(contentType), api::dumpJson(*document), {}});
  };
  // A document of the resource snapshot, built once per snapshot (see DocumentCache).
  auto respondCached = [&](const std::string& key, const discovery::DocumentCache::Builder& build,
                           std::string_view contentType) {
    auto body = documents_.get(snapshot, key, build);
    if (!body) {
      respondError(exchange, errors::notFoundPath(request.path));
      return;
    }
    exchange.respond(http::Response{200, std::string(contentType), **body, {}});
  };
  if (segments.empty()) {
    respondError(exchange, errors::notFoundPath(request.path));
    return;
  }
  const std::string& root = segments[0];
  if (root == "version" && segments.size() == 1) {
    respondJson(discovery::versionInfo(), discovery::kJsonContentType);
    return;
  }
  if (root == "openapi") {
    if (segments.size() == 2 && segments[1] == "v2") {
      // kubectl asks for protobuf only; an empty document makes it rely on server-side
      // validation (a 406 would break `kubectl apply` of List manifests).
      if (request.header("accept").find("protobuf") != std::string::npos) {
        exchange.respond(http::Response{200,
                                        std::string(discovery::kOpenApiV2ProtobufContentType),
                                        discovery::openApiV2Protobuf(),
                                        {}});
        return;
      }
      respondJson(discovery::openApiV2Document(), discovery::kJsonContentType);
      return;
    }
    if (segments.size() == 2 && segments[1] == "v3") {
      respondCached(
          "openapi/v3",
          [](const std::vector<ResourcePtr>& r) -> core::Result<Json> {
            return discovery::openApiV3Index(r);
          },
          discovery::kJsonContentType);
      return;
    }
    if (segments.size() > 2 && segments[1] == "v3") {
      std::string path = request.path.substr(std::string("/openapi/v3/").size());
      respondCached(
          "openapi/v3/" + path,
          [&path](const std::vector<ResourcePtr>& r) {
            return discovery::openApiV3DocumentAt(r, path);
          },
          discovery::kJsonContentType);
      return;
    }
  }
  std::string group;
  std::string version;
  size_t rest = 0;
  if (root == "api") {
    if (segments.size() == 1) {
      if (aggregated) {
        respondCached(
            "api aggregated",
            [](const std::vector<ResourcePtr>& r) -> core::Result<Json> {
              return discovery::aggregatedCore(r);
            },
            discovery::kAggregatedContentType);
      } else {
        respondJson(discovery::coreVersions(), discovery::kJsonContentType);
      }
      return;
    }
    version = segments[1];
    rest = 2;
  } else if (root == "apis") {
    if (segments.size() == 1) {
      if (aggregated) {
        respondCached(
            "apis aggregated",
            [](const std::vector<ResourcePtr>& r) -> core::Result<Json> {
              return discovery::aggregatedGroups(r);
            },
            discovery::kAggregatedContentType);
      } else {
        respondJson(discovery::groupList(all), discovery::kJsonContentType);
      }
      return;
    }
    if (segments.size() == 2) {
      respondJson(discovery::apiGroup(all, segments[1]), discovery::kJsonContentType);
      return;
    }
    group = segments[1];
    version = segments[2];
    rest = 3;
  } else {
    respondError(exchange, errors::notFoundPath(request.path));
    return;
  }
  if (segments.size() == rest) {
    respondJson(discovery::resourceList(all, group, version), discovery::kJsonContentType);
    return;
  }
  Target target;
  std::vector<std::string> tail(segments.begin() + static_cast<long>(rest), segments.end());
  if (tail.size() >= 2 && tail[0] == "watch") {
    target.watchPath = true;
    tail.erase(tail.begin());
  }
  if (tail.size() >= 3 && tail[0] == "namespaces") {
    auto namespaced = resources_.find(group, version, tail[2]);
    if (namespaced && namespaced->namespaced) {
      target.ns = tail[1];
      tail.erase(tail.begin(), tail.begin() + 2);
    }
  }
  target.resource = resources_.find(group, version, tail[0]);
  if (!target.resource || tail.size() > 3) {
    respondError(exchange, errors::notFoundPath(request.path));
    return;
  }
  if (tail.size() >= 2) {
    target.name = tail[1];
  }
  if (target.watchPath && (!target.name.empty() || request.method != "GET")) {
    // Watching one object by path is not served; clients use a metadata.name field selector.
    respondError(exchange, errors::notFoundPath(request.path));
    return;
  }
  if (tail.size() == 3) {
    target.subresource = tail[2];
    if (!target.resource->hasSubresource(target.subresource)) {
      respondError(exchange, errors::notFoundPath(request.path));
      return;
    }
  }
  handleResource(request, target, exchange);
}

void Handler::handleResource(const http::Request& request, const Target& target,
                             http::Exchange& exchange) {
  const std::string& method = request.method;
  const std::string& sub = target.subresource;
  const bool collection = target.name.empty();
  if (sub == "scale") {
    scale(request, target, exchange);
    return;
  }
  if (method == "GET") {
    if (!collection) {
      getOne(request, target, exchange);
    } else if (target.watchPath || boolParam(request, "watch").value_or(false)) {
      watch(request, target, exchange);
    } else {
      list(request, target, exchange);
    }
    return;
  }
  if (method == "POST" && collection) {
    create(request, target, exchange);
  } else if (method == "POST" && sub == "binding") {
    bind(request, target, exchange);
  } else if (method == "POST" && sub == "eviction") {
    evict(request, target, exchange);
  } else if (method == "PUT" && !collection && (sub.empty() || sub == "status")) {
    replace(request, target, exchange);
  } else if (method == "PATCH" && !collection && (sub.empty() || sub == "status")) {
    patch(request, target, exchange);
  } else if (method == "DELETE" && !collection && sub.empty()) {
    remove(request, target, exchange);
  } else if (method == "DELETE" && collection) {
    removeCollection(request, target, exchange);
  } else {
    respondError(exchange, errors::methodNotAllowed(method, target.resource->qualifiedPlural()));
  }
}

void Handler::getOne(const http::Request& request, const Target& target, http::Exchange& exchange) {
  auto stored = objects_.get(*target.resource, target.ns, target.name);
  if (failed(stored, exchange)) {
    return;
  }
  if (wantsTable(request)) {
    auto options = tableOptions(request);
    if (failed(options, exchange)) {
      return;
    }
    auto table = objectTable(*target.resource, *(*stored)->object, clock_.now(), *options);
    exchange.respond(table ? jsonResponse(200, *table)
                           : errors::internal(table.error().message()).toResponse());
    return;
  }
  exchange.respond(textJsonResponse(200, *(*stored)->text));
}

void Handler::create(const http::Request& request, const Target& target, http::Exchange& exchange) {
  if (target.resource->namespaced && target.ns.empty()) {
    respondError(exchange, errors::notFoundPath(request.path));
    return;
  }
  if (auto problem = checkWriteQuery(request, "CreateOptions")) {
    respondError(exchange, *problem);
    return;
  }
  auto body = parseBody(request);
  if (failed(body, exchange)) {
    return;
  }
  std::vector<std::string> warnings;
  auto created = objects_.create(*target.resource, target.ns, std::move(*body),
                                 writeOptions(request, &warnings));
  if (failed(created, exchange)) {
    return;
  }
  if (target.resource->group == "apiextensions.k8s.io") {
    crdChanged(*created, false);
  }
  exchange.respond(objectResponse(201, *created, warnings));
}

void Handler::replace(const http::Request& request, const Target& target,
                      http::Exchange& exchange) {
  if (auto problem = checkWriteQuery(request, "UpdateOptions")) {
    respondError(exchange, *problem);
    return;
  }
  auto body = parseBody(request);
  if (failed(body, exchange)) {
    return;
  }
  std::vector<std::string> warnings;
  Json next = std::move(*body);
  auto updated = objects_.update(
      *target.resource, target.ns, target.name, target.subresource,
      [&](const Json&) -> ApiResult<Json> { return next; }, writeOptions(request, &warnings));
  if (failed(updated, exchange)) {
    return;
  }
  if (target.resource->group == "apiextensions.k8s.io") {
    crdChanged(*updated, false);
  }
  exchange.respond(objectResponse(200, *updated, warnings));
}

void Handler::patch(const http::Request& request, const Target& target, http::Exchange& exchange) {
  const bool apply = mediaType(request.header("content-type")) == "application/apply-patch+yaml";
  if (auto problem = checkWriteQuery(request, "PatchOptions")) {
    respondError(exchange, *problem);
    return;
  }
  std::vector<std::string> warnings;
  bool created = false;
  auto updated = objects_.update(
      *target.resource, target.ns, target.name, target.subresource,
      [&](const Json& current) -> ApiResult<Json> {
        created = current.empty();
        auto next = applyPatch(*target.resource, request, current);
        if (next && created) {
          // Server-side apply creates: the name and namespace come from the URL.
          (*next)["metadata"]["name"] = target.name;
        }
        return next;
      },
      writeOptions(request, &warnings), apply);
  if (failed(updated, exchange)) {
    return;
  }
  if (target.resource->group == "apiextensions.k8s.io") {
    crdChanged(*updated, false);
  }
  exchange.respond(objectResponse(created ? 201 : 200, *updated, warnings));
}

void Handler::remove(const http::Request& request, const Target& target, http::Exchange& exchange) {
  auto options = deleteOptions(request);
  if (failed(options, exchange)) {
    return;
  }
  auto removed = objects_.remove(*target.resource, target.ns, target.name, *options);
  if (failed(removed, exchange)) {
    return;
  }
  if (target.resource->group == "apiextensions.k8s.io" && !options->dryRun) {
    crdChanged(*removed, true);
  }
  exchange.respond(jsonResponse(200, *removed));
}

void Handler::crdChanged(const Json& crd, bool deleted) {
  if (deleted) {
    if (!store_.get(
            storageKey(*resources_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions"),
                       "", meta::name(crd)))) {
      resources_.removeCustom(crd);
    }
    return;
  }
  resources_.addCustom(crd);
}

}  // namespace nodewright::apiserver::rest
