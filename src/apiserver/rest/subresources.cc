#include "api/codec.h"
#include "api/labels.h"
#include "api/scale.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/merge_patch.h"
#include "apiserver/rest/disruption_budget.h"
#include "apiserver/rest/handler.h"
#include "apiserver/rest/object_meta.h"
#include "apiserver/rest/request.h"

// pods/binding, pods/eviction and */scale.
namespace nodewright::apiserver::rest {
namespace {

using api::Json;

std::string selectorString(const Json& selector) {
  api::LabelSelector parsed;
  if (!api::decodeJson(selector, parsed).empty()) {
    return "";
  }
  return api::formatSelector(parsed);
}

// The keys of a ".spec.replicas" style path.
std::vector<std::string> pathKeys(const std::string& path) {
  std::vector<std::string> keys;
  size_t start = path.empty() || path[0] != '.' ? 0 : 1;
  while (start < path.size()) {
    size_t dot = path.find('.', start);
    if (dot == std::string::npos) {
      dot = path.size();
    }
    keys.push_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  return keys;
}

const Json* at(const Json& object, const std::string& path) {
  const Json* here = &object;
  for (const auto& key : pathKeys(path)) {
    if (!here->is_object()) {
      return nullptr;
    }
    auto it = here->find(key);
    if (it == here->end()) {
      return nullptr;
    }
    here = &*it;
  }
  return here;
}

int64_t replicasAt(const Json& object, const std::string& path, int64_t unset) {
  const Json* value = at(object, path);
  return value != nullptr && value->is_number_integer() ? value->get<int64_t>() : unset;
}

// Where the scale subresource reads and writes: the model's table, or the CRD's paths.
api::ScaleSubresource scalePaths(const Resource& resource) {
  if (auto known = api::scaleSubresource(resource.group, resource.kind)) {
    return *known;
  }
  return {".spec.replicas", ".status.replicas", ".status.selector", 0};
}

Json scaleOf(const Resource& resource, const Json& object) {
  const api::ScaleSubresource paths = scalePaths(resource);
  const Json meta = object.value("metadata", Json::object());
  Json scaleMeta = Json::object();
  for (const char* field : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (meta.contains(field)) {
      scaleMeta[field] = meta[field];
    }
  }
  std::string selector;
  if (const Json* found = at(object, paths.labelSelectorPath);
      found != nullptr && !paths.labelSelectorPath.empty()) {
    // A workload's spec.selector is a LabelSelector; a CRD's path holds the string form.
    selector = found->is_string() ? found->get<std::string>() : selectorString(*found);
  }
  Json scale = {
      {"kind", "Scale"},
      {"apiVersion", "autoscaling/v1"},
      {"metadata", scaleMeta},
      {"spec", {{"replicas", replicasAt(object, paths.specReplicasPath, paths.replicasIfUnset)}}},
      {"status", {{"replicas", replicasAt(object, paths.statusReplicasPath, 0)}}}};
  if (!selector.empty()) {
    scale["status"]["selector"] = selector;
  }
  return scale;
}

// Writes `replicas` at `path`, making the objects on the way.
void setReplicas(Json& object, const std::string& path, const Json& replicas) {
  Json* here = &object;
  for (const auto& key : pathKeys(path)) {
    if (!here->is_object()) {
      *here = Json::object();
    }
    here = &(*here)[key];
  }
  *here = replicas;
}

}  // namespace

void Handler::bind(const http::Request& request, const Target& target, http::Exchange& exchange) {
  auto body = parseBody(request);
  if (!body) {
    exchange.respond(body.error().toResponse());
    return;
  }
  const Json bindTarget = body->value("target", Json::object());
  std::string node = bindTarget.value("name", "");
  if (node.empty()) {
    exchange.respond(
        errors::invalid(*target.resource, target.name, {{"target.name", api::fielderr::required()}})
            .toResponse());
    return;
  }
  auto bound = objects_.update(
      *target.resource, target.ns, target.name, kWholeObject,
      [&](const Json& current) -> ApiResult<Json> {
        Json pod = current;
        std::string assigned = pod.value("spec", Json::object()).value("nodeName", "");
        if (!assigned.empty()) {
          return tl::unexpected(errors::conflict(
              *target.resource, target.name,
              "pod " + target.name + " is already assigned to node \"" + assigned + "\""));
        }
        if (meta::deletionPending(pod)) {
          return tl::unexpected(errors::conflict(*target.resource, target.name,
                                                 "pod " + target.name + " is being deleted"));
        }
        pod["spec"]["nodeName"] = node;
        Json& conditions = pod["status"]["conditions"];
        if (!conditions.is_array()) {
          conditions = Json::array();
        }
        Json scheduled = {{"type", "PodScheduled"},
                          {"status", "True"},
                          {"lastProbeTime", nullptr},
                          {"lastTransitionTime", objects_.now()}};
        bool replaced = false;
        for (auto& c : conditions) {
          if (c.value("type", "") == "PodScheduled") {
            c = scheduled;
            replaced = true;
          }
        }
        if (!replaced) {
          conditions.push_back(scheduled);
        }
        pod["metadata"].erase("resourceVersion");
        return pod;
      },
      writeOptions(request, nullptr));
  if (!bound) {
    exchange.respond(bound.error().toResponse());
    return;
  }
  exchange.respond(jsonResponse(201, successStatus(*target.resource, target.name, "")));
}

void Handler::evict(const http::Request& request, const Target& target, http::Exchange& exchange) {
  auto body = parseBody(request);
  if (!body) {
    exchange.respond(body.error().toResponse());
    return;
  }
  auto pod = objects_.get(*target.resource, target.ns, target.name);
  if (!pod) {
    exchange.respond(pod.error().toResponse());
    return;
  }
  const Json& podObject = *(*pod)->object;
  auto pdbResource = resources_.find("policy", "v1", "poddisruptionbudgets");
  std::vector<storage::StoredPtr> budgets;
  for (const auto& item : store_.list(storagePrefix(*pdbResource, target.ns), "", 0).items) {
    if (budgetSelects(*item->object, podObject)) {
      budgets.push_back(item);
    }
  }
  if (budgets.size() > 1) {
    exchange.respond(errors::internal("This pod has more than one PodDisruptionBudget, which the "
                                      "eviction subresource does not support.")
                         .toResponse());
    return;
  }
  if (budgets.size() == 1 && !meta::deletionPending(podObject)) {
    const Json& pdb = *budgets[0]->object;
    auto pods = store_.list(storagePrefix(*target.resource, target.ns), "", 0).items;
    BudgetHealth health = budgetHealth(pdb, pods);
    if (!evictionAllowed(pdb, health, podObject)) {
      Json causes =
          Json::array({{{"reason", "DisruptionBudget"},
                        {"message", "The disruption budget " + meta::name(pdb) + " needs " +
                                        std::to_string(health.desired) + " healthy pods and has " +
                                        std::to_string(health.healthy) + " currently"}}});
      exchange.respond(errors::tooManyRequests(
                           "Cannot evict pod as it would violate the pod's disruption budget.",
                           std::move(causes))
                           .toResponse());
      return;
    }
  }
  DeleteOptions options;
  const Json deleteBody = body->value("deleteOptions", Json::object());
  if (deleteBody.contains("gracePeriodSeconds") && deleteBody["gracePeriodSeconds"].is_number()) {
    options.gracePeriodSeconds = deleteBody["gracePeriodSeconds"].get<int64_t>();
  }
  options.dryRun = request.param("dryRun") == "All";
  auto removed = objects_.remove(*target.resource, target.ns, target.name, options);
  if (!removed) {
    exchange.respond(removed.error().toResponse());
    return;
  }
  exchange.respond(
      jsonResponse(201, successStatus(*target.resource, target.name, meta::uid(podObject))));
}

void Handler::scale(const http::Request& request, const Target& target, http::Exchange& exchange) {
  const Resource& resource = *target.resource;
  if (request.method == "GET") {
    auto stored = objects_.get(resource, target.ns, target.name);
    if (!stored) {
      exchange.respond(stored.error().toResponse());
      return;
    }
    exchange.respond(jsonResponse(200, scaleOf(resource, *(*stored)->object)));
    return;
  }
  if (request.method != "PUT" && request.method != "PATCH") {
    exchange.respond(errors::methodNotAllowed(request.method, "scale").toResponse());
    return;
  }
  auto body = parseBody(request);
  if (!body) {
    exchange.respond(body.error().toResponse());
    return;
  }
  std::string type = mediaType(request.header("content-type"));
  auto updated = objects_.update(
      resource, target.ns, target.name, "",
      [&](const Json& current) -> ApiResult<Json> {
        Json scale = scaleOf(resource, current);
        Json next = *body;
        if (request.method == "PATCH") {
          auto patched = type == "application/json-patch+json"
                             ? patch::applyJsonPatch(scale, *body)
                             : patch::applyMergePatch(scale, *body);
          if (!patched) {
            return tl::unexpected(ApiError{422, "Invalid", patched.error().message(), {}});
          }
          next = std::move(*patched);
        }
        const Json replicas = next.value("spec", Json::object()).value("replicas", Json());
        if (!replicas.is_number_integer() || replicas.get<int64_t>() < 0) {
          return tl::unexpected(
              errors::invalid(resource, target.name,
                              {{"spec.replicas", api::fielderr::invalid(replicas,
                                                                        "must be a non-negative "
                                                                        "integer")}}));
        }
        Json object = current;
        setReplicas(object, scalePaths(resource).specReplicasPath, replicas);
        object["metadata"]["resourceVersion"] =
            next.value("metadata", Json::object()).value("resourceVersion", "");
        return object;
      },
      writeOptions(request, nullptr));
  if (!updated) {
    exchange.respond(updated.error().toResponse());
    return;
  }
  exchange.respond(jsonResponse(200, scaleOf(resource, *updated)));
}

}  // namespace nodewright::apiserver::rest
