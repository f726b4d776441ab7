#include "apiserver/rest/objects.h"

#include <algorithm>
#include <random>

#include "api/object.h"
#include "apiserver/rest/object_meta.h"
#include "apiserver/rest/object_rules.h"

namespace nodewright::apiserver::rest {
namespace {

using api::Json;

constexpr int kMaxRetries = 16;

bool isUnknownField(const api::FieldError& e) {
  return e.message == api::fielderr::unknownField();
}

// Status is reset on create for kinds whose status is owned by a controller or the kubelet.
void resetStatusOnCreate(const Resource& resource, Json& object) {
  if (!resource.hasSubresource("status")) {
    return;
  }
  if (resource.group.empty() && resource.kind == "Node") {
    return;  // the kubelet registers it
  }
  if (resource.group.empty() && resource.kind == "Pod") {
    object["status"] = {{"phase", "Pending"}};
    return;
  }
  if (resource.group.empty() && resource.kind == "Namespace") {
    object["status"] = {{"phase", "Active"}};
    return;
  }
  object.erase("status");
}

bool tracksGeneration(const Resource& resource) {
  const Json& props = resource.schema.value("properties", Json::object());
  return props.contains("spec") || resource.model == nullptr;
}

// Everything generation covers: all top-level fields except metadata and status.
Json generationView(const Json& object) {
  Json view = object;
  view.erase("metadata");
  view.erase("status");
  view.erase("apiVersion");
  view.erase("kind");
  return view;
}

Json withoutVolatile(Json object) {
  Json& meta = object["metadata"];
  meta.erase("resourceVersion");
  meta.erase("managedFields");
  return object;
}

}  // namespace

std::string storageKey(const Resource& resource, std::string_view ns, std::string_view name) {
  std::string key = resource.qualifiedPlural();
  key += '/';
  if (resource.namespaced) {
    key += ns;
  }
  key += '/';
  key += name;
  return key;
}

std::string storagePrefix(const Resource& resource, std::string_view ns) {
  std::string prefix = resource.qualifiedPlural() + "/";
  if (resource.namespaced && !ns.empty()) {
    prefix += std::string(ns) + "/";
  }
  return prefix;
}

api::Json successStatus(const Resource& resource, std::string_view name, std::string_view uid) {
  Json details = {
      {"name", name}, {"group", resource.group}, {"kind", resource.plural}, {"uid", uid}};
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"metadata", Json::object()},
          {"status", "Success"},
          {"details", details}};
}

Objects::Objects(const ResourceTable& resources, storage::Store& store, const core::Clock& clock,
                 const api::Registry& registry)
    : resources_(resources), store_(store), clock_(clock), registry_(registry) {}

std::string Objects::now() const {
  auto seconds = std::chrono::floor<std::chrono::seconds>(clock_.now());
  return core::Time(core::TimePoint(seconds)).toString();
}

ApiResult<storage::StoredPtr> Objects::get(const Resource& resource, std::string_view ns,
                                           std::string_view name) const {
  auto stored = store_.get(storageKey(resource, ns, name));
  if (!stored) {
    return tl::unexpected(errors::notFound(resource, name));
  }
  return stored;
}

ApiResult<Json> Objects::canonical(const Resource& resource, const Json& object,
                                   const WriteOptions& options) const {
  std::string name = meta::name(object);
  api::FieldErrors metaProblems = rules::validateObjectMeta(resource, object);
  if (!resource.model) {
    api::FieldErrors problems = meta::validateUntyped(object);
    problems.insert(problems.end(), metaProblems.begin(), metaProblems.end());
    if (!problems.empty()) {
      return tl::unexpected(errors::invalid(resource, name, problems));
    }
    return rules::customResourceForm(object, Json::object(), resource.schema);
  }
  api::ObjectOptions decodeOptions;
  api::DecodedObject decoded = api::decodeObject(object, registry_, decodeOptions);
  api::FieldErrors invalid = std::move(metaProblems);
  std::vector<std::string> unknown;
  for (auto& e : decoded.errors) {
    if (isUnknownField(e)) {
      unknown.push_back("unknown field \"" + e.path + "\"");
    } else {
      invalid.push_back(std::move(e));
    }
  }
  if (!unknown.empty() && options.fieldValidation == FieldValidation::Strict) {
    std::string message = "strict decoding error: ";
    for (size_t i = 0; i < unknown.size(); ++i) {
      message += (i ? ", " : "") + unknown[i];
    }
    return tl::unexpected(errors::badRequest(std::move(message)));
  }
  if (!invalid.empty() || !decoded.object) {
    return tl::unexpected(errors::invalid(resource, name, invalid));
  }
  if (options.fieldValidation == FieldValidation::Warn && options.warnings) {
    options.warnings->insert(options.warnings->end(), unknown.begin(), unknown.end());
  }
  Json out = decoded.object->toJson();
  // CRD-backed kinds keep their fields as sent; built-in kinds are stored in canonical form.
  if (resource.custom) {
    out = rules::customResourceForm(object, out, resource.schema);
  }
  // Server-owned metadata is carried over verbatim (the model would drop empty values).
  meta::copyServerFields(object, out);
  return out;
}

ApiResult<storage::StoredPtr> Objects::commit(const Resource& resource, std::string_view name,
                                              storage::WriteOp op, bool dryRun) {
  if (dryRun) {
    auto stored = std::make_shared<storage::Stored>();
    stored->key = op.key;
    stored->object = std::make_shared<Json>(std::move(op.object));
    return storage::StoredPtr(stored);
  }
  bool create = op.expectRevision == storage::WriteOp::kMustNotExist;
  auto result = store_.write(std::move(op));
  if (result) {
    return *result;
  }
  switch (result.error().code()) {
    case core::Code::Conflict:
      return tl::unexpected(create ? errors::alreadyExists(resource, name)
                                   : errors::staleObject(resource, name));
    case core::Code::NotFound:
      return tl::unexpected(errors::notFound(resource, name));
    default:
      return tl::unexpected(errors::internal(result.error().message()));
  }
}

ApiResult<Json> Objects::create(const Resource& resource, std::string_view ns, Json body,
                                const WriteOptions& options) {
  if (auto problem = meta::checkTypeAndScope(resource, body, ns); problem) {
    return tl::unexpected(*problem);
  }
  Json& m = body["metadata"];
  if (resource.namespaced) {
    auto nsObject = store_.get(std::string("namespaces//") + std::string(ns));
    if (!nsObject) {
      return tl::unexpected(errors::notFound(*resources_.find("", "v1", "namespaces"), ns));
    }
    if (nsObject->object->at("metadata").contains("deletionTimestamp")) {
      return tl::unexpected(errors::forbidden(
          meta::name(body) + " is forbidden: unable to create new content in namespace " +
          std::string(ns) + " because it is being terminated"));
    }
  }
  if (meta::name(body).empty() && m.value("generateName", "") != "") {
    m["name"] = m["generateName"].get<std::string>() + meta::randomSuffix();
  }
  m.erase("resourceVersion");
  m.erase("deletionTimestamp");
  m.erase("deletionGracePeriodSeconds");
  m.erase("managedFields");
  m["uid"] = meta::newUid();
  m["creationTimestamp"] = now();
  if (tracksGeneration(resource)) {
    m["generation"] = 1;
  } else {
    m.erase("generation");
  }
  resetStatusOnCreate(resource, body);
  if (resource.group == "apiextensions.k8s.io") {
    meta::acceptCrd(body);
  }
  auto object = canonical(resource, body, options);
  if (!object) {
    return tl::unexpected(object.error());
  }
  std::string name = meta::name(*object);
  storage::WriteOp op{storage::WriteOp::Kind::Put, storageKey(resource, ns, name),
                      storage::WriteOp::kMustNotExist, std::move(*object)};
  auto stored = commit(resource, name, std::move(op), options.dryRun);
  if (!stored) {
    return tl::unexpected(stored.error());
  }
  return *(*stored)->object;
}

ApiResult<Json> Objects::prepareUpdate(const Resource& resource, std::string_view subresource,
                                       const Json& current, Json next,
                                       const WriteOptions& options) const {
  if (auto problem = meta::checkTypeAndScope(resource, next, meta::namespaceOf(current)); problem) {
    return tl::unexpected(*problem);
  }
  std::string name = meta::name(current);
  if (meta::name(next) != name) {
    return tl::unexpected(errors::badRequest("the name of the object (" + meta::name(next) +
                                             ") does not match the name on the URL (" + name +
                                             ")"));
  }
  if (subresource == "status") {
    Json merged = current;
    if (next.contains("status")) {
      merged["status"] = next["status"];
    } else {
      merged.erase("status");
    }
    merged["metadata"]["resourceVersion"] = next["metadata"].value("resourceVersion", "");
    next = std::move(merged);
  } else if (resource.hasSubresource("status") && subresource != kWholeObject) {
    if (current.contains("status")) {
      next["status"] = current["status"];
    } else {
      next.erase("status");
    }
  }
  if (auto problem = meta::checkFinalizers(resource, current, next); problem) {
    return tl::unexpected(*problem);
  }
  if (auto immutable = rules::immutableFieldErrors(resource, current, next); !immutable.empty()) {
    return tl::unexpected(errors::invalid(resource, name, immutable));
  }
  meta::keepImmutable(current, next);
  if (tracksGeneration(resource)) {
    int64_t generation = current["metadata"].value("generation", int64_t{1});
    if (generationView(current) != generationView(next)) {
      ++generation;
    }
    next["metadata"]["generation"] = generation;
  }
  if (resource.group == "apiextensions.k8s.io" && subresource.empty()) {
    meta::acceptCrd(next);
  }
  return canonical(resource, next, options);
}

ApiResult<Json> Objects::update(const Resource& resource, std::string_view ns,
                                std::string_view name, std::string_view subresource,
                                const Transform& transform, const WriteOptions& options,
                                bool createIfMissing) {
  const std::string key = storageKey(resource, ns, name);
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto current = store_.get(key);
    if (!current) {
      if (!createIfMissing) {
        return tl::unexpected(errors::notFound(resource, name));
      }
      auto body = transform(Json::object());
      if (!body) {
        return tl::unexpected(body.error());
      }
      auto created = create(resource, ns, std::move(*body), options);
      if (created || created.error().reason != "AlreadyExists") {
        return created;
      }
      continue;
    }
    const Json& currentObject = *current->object;
    auto next = transform(currentObject);
    if (!next) {
      return tl::unexpected(next.error());
    }
    std::string wanted = (*next)["metadata"].value("resourceVersion", "");
    std::string have = std::to_string(current->revision);
    if (!wanted.empty() && wanted != have) {
      return tl::unexpected(errors::staleObject(resource, name));
    }
    auto prepared = prepareUpdate(resource, subresource, currentObject, std::move(*next), options);
    if (!prepared) {
      return tl::unexpected(prepared.error());
    }
    if (withoutVolatile(*prepared) == withoutVolatile(currentObject)) {
      return currentObject;
    }
    bool finalized = meta::deletionPending(*prepared) && meta::finalizers(*prepared).empty();
    storage::WriteOp op{finalized ? storage::WriteOp::Kind::Delete : storage::WriteOp::Kind::Put,
                        key, current->revision, std::move(*prepared)};
    auto stored = commit(resource, name, std::move(op), options.dryRun);
    if (stored) {
      return *(*stored)->object;
    }
    if (stored.error().reason == "Conflict" && wanted.empty()) {
      continue;
    }
    return tl::unexpected(stored.error());
  }
  return tl::unexpected(errors::staleObject(resource, name));
}

ApiResult<Json> Objects::remove(const Resource& resource, std::string_view ns,
                                std::string_view name, const DeleteOptions& options) {
  const std::string key = storageKey(resource, ns, name);
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto current = store_.get(key);
    if (!current) {
      return tl::unexpected(errors::notFound(resource, name));
    }
    const Json& object = *current->object;
    if (!options.preconditionUid.empty() && options.preconditionUid != meta::uid(object)) {
      return tl::unexpected(
          errors::conflict(resource, name,
                           "Precondition failed: UID in precondition: " + options.preconditionUid +
                               ", UID in object meta: " + meta::uid(object)));
    }
    if (!options.preconditionResourceVersion.empty() &&
        options.preconditionResourceVersion != std::to_string(current->revision)) {
      return tl::unexpected(errors::conflict(
          resource, name,
          "Precondition failed: ResourceVersion in precondition: " +
              options.preconditionResourceVersion +
              ", ResourceVersion in object meta: " + std::to_string(current->revision)));
    }
    Json next = object;
    auto plan = meta::planDeletion(resource, next, options, clock_.now());
    storage::WriteOp op{
        plan.immediate ? storage::WriteOp::Kind::Delete : storage::WriteOp::Kind::Put, key,
        current->revision, std::move(next)};
    if (!plan.immediate && !plan.changed) {
      return object;  // already terminating
    }
    auto stored = commit(resource, name, std::move(op), options.dryRun);
    if (stored) {
      return *(*stored)->object;
    }
    if (stored.error().reason == "Conflict" && options.preconditionResourceVersion.empty()) {
      continue;
    }
    return tl::unexpected(stored.error());
  }
  return tl::unexpected(errors::staleObject(resource, name));
}

}  // namespace nodewright::apiserver::rest
