#include "controllers/capi/external.h"

#include <algorithm>

#include "api/codec.h"
#include "controllers/capi/well_known.h"

namespace nodewright::controllers::capi {
namespace {

constexpr std::string_view kTemplateSuffix = "Template";

const api::Json* at(const api::Json& json, std::initializer_list<const char*> path) {
  const api::Json* node = &json;
  for (const char* key : path) {
    if (!node->is_object()) {
      return nullptr;
    }
    auto it = node->find(key);
    if (it == node->end()) {
      return nullptr;
    }
    node = &*it;
  }
  return node;
}

std::optional<std::string> text(const api::Json& json, std::initializer_list<const char*> path) {
  const api::Json* node = at(json, path);
  if (node == nullptr || !node->is_string()) {
    return std::nullopt;
  }
  return node->get<std::string>();
}

std::optional<int32_t> integer(const api::Json& json, std::initializer_list<const char*> path) {
  const api::Json* node = at(json, path);
  if (node == nullptr || !node->is_number_integer()) {
    return std::nullopt;
  }
  return node->get<int32_t>();
}

kube::ApiError invalid(std::string message) {
  kube::ApiError error;
  error.reason = kube::Reason::Invalid;
  error.message = std::move(message);
  return error;
}

const api::KindInfo* kindOfRef(kube::Client& client, const api::ObjectReference& ref) {
  return client.registry().find(ref.apiVersion, ref.kind);
}

// The metadata of an object this process owns (a fresh decode, never a cached one).
api::ObjectMeta& mutableMeta(api::Object& object) {
  const api::reflect::FieldDesc* field = object.info().type->structSchema().find("metadata");
  return *static_cast<api::ObjectMeta*>(field->get(object.raw()));
}

}  // namespace

InfraContract readContract(const api::Object& object) {
  const api::Json json = object.toJson();
  InfraContract contract;
  if (const api::Json* ready = at(json, {"status", "ready"}); ready && ready->is_boolean()) {
    contract.ready = ready->get<bool>();
  }
  contract.providerID = text(json, {"spec", "providerID"});
  if (contract.providerID && contract.providerID->empty()) {
    contract.providerID.reset();
  }
  if (const api::Json* addresses = at(json, {"status", "addresses"});
      addresses && addresses->is_array()) {
    for (const api::Json& entry : *addresses) {
      api::capi::MachineAddress address;
      address.type = text(entry, {"type"}).value_or("");
      address.address = text(entry, {"address"}).value_or("");
      contract.addresses.push_back(std::move(address));
    }
  }
  contract.failureReason = text(json, {"status", "failureReason"});
  contract.failureMessage = text(json, {"status", "failureMessage"});
  if (const api::Json* ids = at(json, {"spec", "providerIDList"}); ids && ids->is_array()) {
    for (const api::Json& id : *ids) {
      if (id.is_string()) {
        contract.providerIDList.push_back(id.get<std::string>());
      }
    }
  }
  contract.replicas = integer(json, {"status", "replicas"});
  contract.readyReplicas = integer(json, {"status", "readyReplicas"});
  if (auto host = text(json, {"spec", "controlPlaneEndpoint", "host"}); host && !host->empty()) {
    contract.controlPlaneEndpoint = api::capi::APIEndpoint{
        *host, integer(json, {"spec", "controlPlaneEndpoint", "port"}).value_or(0)};
  }
  return contract;
}

kube::ApiResult<api::Object> getExternal(kube::Client& client, const api::ObjectReference& ref,
                                         const std::string& ns) {
  const api::KindInfo* kind = kindOfRef(client, ref);
  if (kind == nullptr) {
    return tl::unexpected(
        invalid("no kind " + ref.kind + " is registered for version " + ref.apiVersion));
  }
  return client.get(*kind, ref.namespace_.empty() ? ns : ref.namespace_, ref.name);
}

api::OwnerReference controllerRef(const std::string& kind, const api::ObjectMeta& owner) {
  api::OwnerReference ref;
  ref.apiVersion = kApiVersion;
  ref.kind = kind;
  ref.name = owner.name;
  ref.uid = owner.uid;
  ref.controller = true;
  ref.blockOwnerDeletion = true;
  return ref;
}

std::string controllerUid(const api::ObjectMeta& meta) {
  for (const auto& ref : meta.ownerReferences) {
    if (ref.controller.value_or(false)) {
      return ref.uid;
    }
  }
  return "";
}

kube::ApiResult<api::Object> adoptExternal(kube::Client& client, const api::Object& object,
                                           const api::OwnerReference& owner,
                                           const std::map<std::string, std::string>& labels) {
  const api::ObjectMeta& meta = object.metadata();
  // As controller-runtime's SetControllerReference: another controller's object is not taken
  // over (a Machine whose infrastructureRef names another Machine's AzureMachine).
  for (const auto& ref : meta.ownerReferences) {
    if (ref.controller.value_or(false) && ref.uid != owner.uid) {
      kube::ApiError error;
      error.reason = kube::Reason::Conflict;
      error.code = 409;
      error.message = object.info().kind + " " + meta.namespace_ + "/" + meta.name +
                      " is already controlled by " + ref.kind + " " + ref.name;
      return tl::unexpected(std::move(error));
    }
  }
  const bool owned = std::any_of(
      meta.ownerReferences.begin(), meta.ownerReferences.end(),
      [&](const auto& ref) { return ref.uid == owner.uid && ref.controller.value_or(false); });
  const bool labelled = std::all_of(labels.begin(), labels.end(), [&](const auto& label) {
    auto it = meta.labels.find(label.first);
    return it != meta.labels.end() && it->second == label.second;
  });
  if (owned && labelled) {
    return object;
  }
  auto copy = client.decode(object.toJson());
  if (!copy) {
    return tl::unexpected(copy.error());
  }
  api::ObjectMeta& writable = mutableMeta(*copy);
  auto& refs = writable.ownerReferences;
  // A reference to the new owner that is not yet a controller one is replaced; the cloning
  // MachineSet's plain reference stays.
  refs.erase(std::remove_if(refs.begin(), refs.end(),
                            [&](const auto& ref) { return ref.uid == owner.uid; }),
             refs.end());
  refs.push_back(owner);
  for (const auto& [key, value] : labels) {
    writable.labels[key] = value;
  }
  return client.update(*copy);
}

kube::ApiResult<Clone> cloneFromTemplate(kube::Client& client, const CloneRequest& request) {
  kube::ApiResult<api::Object> found = request.fetchedTemplate != nullptr
                                           ? *request.fetchedTemplate
                                           : getExternal(client, request.templateRef, request.ns);
  if (!found) {
    return tl::unexpected(found.error());
  }
  const std::string& templateKind = request.templateRef.kind;
  if (!templateKind.ends_with(kTemplateSuffix)) {
    return tl::unexpected(invalid("kind " + templateKind + " is not a template"));
  }
  const api::Json source = found->toJson();
  api::ObjectReference ref;
  ref.apiVersion = request.templateRef.apiVersion;
  ref.kind = templateKind.substr(0, templateKind.size() - kTemplateSuffix.size());
  ref.name = request.name;
  ref.namespace_ = request.ns;

  api::Json object = api::Json::object();
  object["apiVersion"] = ref.apiVersion;
  object["kind"] = ref.kind;
  api::ObjectMeta meta;
  meta.name = request.name;
  meta.namespace_ = request.ns;
  if (const api::Json* labels = at(source, {"spec", "template", "metadata", "labels"})) {
    (void)api::decodeJson(*labels, meta.labels, {false});
  }
  if (const api::Json* annotations = at(source, {"spec", "template", "metadata", "annotations"})) {
    (void)api::decodeJson(*annotations, meta.annotations, {false});
  }
  for (const auto& [key, value] : request.labels) {
    meta.labels[key] = value;
  }
  for (const auto& [key, value] : request.annotations) {
    meta.annotations[key] = value;
  }
  meta.annotations[kClonedFromNameAnnotation] = request.templateRef.name;
  meta.annotations[kClonedFromGroupKindAnnotation] = templateKind + "." + found->info().group;
  meta.ownerReferences.push_back(request.owner);
  object["metadata"] = api::toJson(meta);
  const api::Json* spec = at(source, {"spec", "template", "spec"});
  object["spec"] = spec != nullptr ? *spec : api::Json::object();

  auto decoded = client.decode(object);
  if (!decoded) {
    return tl::unexpected(decoded.error());
  }
  auto created = client.create(*decoded);
  if (created) {
    return Clone{ref, true};
  }
  if (!created.error().is(kube::Reason::AlreadyExists)) {
    return tl::unexpected(created.error());
  }
  // This clone only when it is one (a retry after a lost answer): ours, from this template, and
  // not yet adopted by a controller. Anything else is someone else's and left alone.
  auto existing = client.get(decoded->info(), request.ns, request.name);
  if (!existing) {
    return tl::unexpected(existing.error());
  }
  const api::ObjectMeta& stored = existing->metadata();
  const auto annotation = stored.annotations.find(kClonedFromNameAnnotation);
  const bool ours =
      std::any_of(stored.ownerReferences.begin(), stored.ownerReferences.end(),
                  [&](const auto& owner) { return owner.uid == request.owner.uid; }) &&
      annotation != stored.annotations.end() && annotation->second == request.templateRef.name &&
      controllerUid(stored).empty();
  if (!ours) {
    return tl::unexpected(created.error());
  }
  return Clone{ref, false};
}

kube::ApiResult<bool> deleteExternal(kube::Client& client, const api::ObjectReference& ref,
                                     const std::string& ns) {
  const api::KindInfo* kind = kindOfRef(client, ref);
  if (kind == nullptr) {
    return true;  // nothing of an unknown kind can exist
  }
  auto removed = client.remove(*kind, ref.namespace_.empty() ? ns : ref.namespace_, ref.name);
  if (!removed) {
    if (removed.error().is(kube::Reason::NotFound)) {
      return true;
    }
    return tl::unexpected(removed.error());
  }
  return !removed->has_value();
}

}  // namespace nodewright::controllers::capi
