#include "apiserver/rest/object_meta.h"

#include <algorithm>
#include <random>

namespace nodewright::apiserver::rest::meta {
namespace {

using api::Json;

std::mt19937_64& rng() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

std::string stringAt(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const Json& metadataOf(const Json& object) {
  static const Json empty = Json::object();
  auto it = object.find("metadata");
  return it != object.end() && it->is_object() ? *it : empty;
}

std::string timeString(core::TimePoint point) {
  return core::Time(core::TimePoint(std::chrono::floor<std::chrono::seconds>(point))).toString();
}

void addFinalizer(Json& object, const std::string& finalizer) {
  Json& list = object["metadata"]["finalizers"];
  if (!list.is_array()) {
    list = Json::array();
  }
  if (std::find(list.begin(), list.end(), Json(finalizer)) == list.end()) {
    list.push_back(finalizer);
  }
}

bool isPod(const Resource& r) {
  return r.group.empty() && r.kind == "Pod";
}
bool isNamespace(const Resource& r) {
  return r.group.empty() && r.kind == "Namespace";
}

}  // namespace

std::string name(const Json& object) {
  return stringAt(metadataOf(object), "name");
}
std::string namespaceOf(const Json& object) {
  return stringAt(metadataOf(object), "namespace");
}
std::string uid(const Json& object) {
  return stringAt(metadataOf(object), "uid");
}

std::vector<std::string> finalizers(const Json& object) {
  std::vector<std::string> out;
  auto it = metadataOf(object).find("finalizers");
  if (it == metadataOf(object).end() || !it->is_array()) {
    return out;
  }
  for (const auto& f : *it) {
    if (f.is_string()) {
      out.push_back(f.get<std::string>());
    }
  }
  return out;
}

api::Labels labels(const Json& object) {
  api::Labels out;
  const Json& m = metadataOf(object);
  auto it = m.find("labels");
  if (it == m.end() || !it->is_object()) {
    return out;
  }
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) {
      out.emplace(k, v.get<std::string>());
    }
  }
  return out;
}

bool deletionPending(const Json& object) {
  return metadataOf(object).contains("deletionTimestamp");
}

std::string newUid() {
  uint64_t hi = rng()();
  uint64_t lo = rng()();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  char text[37];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return text;
}

std::string randomSuffix() {
  static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<size_t> pick(0, sizeof alphabet - 2);
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out.push_back(alphabet[pick(rng())]);
  }
  return out;
}

namespace {

// What schema.ParseGroupVersion makes of an apiVersion: "v1" is a version of the core group.
std::pair<std::string, std::string> splitApiVersion(const std::string& apiVersion) {
  size_t slash = apiVersion.find('/');
  if (slash == std::string::npos) {
    return {"", apiVersion};
  }
  return {apiVersion.substr(0, slash), apiVersion.substr(slash + 1)};
}

std::string joinApiVersion(const std::string& group, const std::string& version) {
  return group.empty() ? version : group + "/" + version;
}

// The Go package a built-in kind's internal type lives in (pkg/apis/core, pkg/apis/apps, ...),
// as scheme conversion errors name it.
std::string internalPackage(const std::string& group) {
  return group.empty() ? "core" : group.substr(0, group.find('.'));
}

}  // namespace

std::optional<ApiError> decodeTypeMeta(const Resource& resource, Json& body) {
  const std::string givenKind = stringAt(body, "kind");
  const std::string givenApiVersion = stringAt(body, "apiVersion");
  // json.Serializer.Decode fills what the body leaves out from the endpoint's group, version and
  // kind (gvkWithDefaults in apimachinery pkg/runtime/serializer/json/json.go).
  auto [group, version] = splitApiVersion(givenApiVersion);
  std::string kind = givenKind.empty() ? resource.kind : givenKind;
  if (version.empty() && (group.empty() || group == resource.group)) {
    group = resource.group;
    version = resource.version;
  }
  const std::string apiVersion = joinApiVersion(group, version);
  // The version check of apiserver pkg/endpoints/handlers/create.go and update.go.
  auto versionMismatch = [&](const std::string& data) {
    return errors::badRequest("the API version in the data (" + data +
                              ") does not match the expected API version (" +
                              resource.apiVersion() + ")");
  };
  if (resource.custom) {
    // Custom resources decode into unstructured objects, which keep only what the body says:
    // no kind is unstructuredJSONScheme.Decode's MissingKindErr (apimachinery
    // pkg/apis/meta/v1/unstructured/helpers.go) wrapped by transformDecodeError (apiserver
    // pkg/endpoints/handlers/rest.go); a missing apiVersion reaches create.go's check empty.
    if (givenKind.empty()) {
      return errors::badRequest(kind + " in version \"" + version + "\" cannot be handled as a " +
                                resource.kind + ": Object 'Kind' is missing in '" +
                                api::dumpJson(body) + "'");
    }
    if (givenApiVersion != resource.apiVersion()) {
      return versionMismatch(givenApiVersion);
    }
    if (givenKind != resource.kind) {
      // apiextensions-apiserver pkg/registry/customresource/validator.go ValidateTypeMeta.
      return errors::invalid(
          resource, name(body),
          {{"kind", api::fielderr::invalid(Json(givenKind), "must be " + resource.kind)}});
    }
    return std::nullopt;
  }
  if (kind != resource.kind) {
    // The versioning codec converts the decoded kind into the endpoint's internal type, which
    // has no conversion from another kind (apimachinery pkg/conversion/converter.go Convert).
    return errors::badRequest(kind + " in version \"" + version + "\" cannot be handled as a " +
                              resource.kind + ": converting (" + version + "." + kind + ") to (" +
                              internalPackage(resource.group) + "." + resource.kind +
                              "): unknown conversion");
  }
  if (apiVersion != resource.apiVersion()) {
    return versionMismatch(apiVersion);
  }
  body["apiVersion"] = resource.apiVersion();
  body["kind"] = resource.kind;
  return std::nullopt;
}

std::optional<ApiError> checkTypeAndScope(const Resource& resource, Json& body,
                                          std::string_view ns) {
  if (!body.is_object()) {
    return errors::badRequest("the request body must be a JSON object");
  }
  if (auto problem = decodeTypeMeta(resource, body); problem) {
    return problem;
  }
  Json& m = body["metadata"];
  if (!m.is_object()) {
    if (!m.is_null()) {
      return errors::badRequest("metadata: must be an object");
    }
    m = Json::object();
  }
  if (resource.namespaced) {
    std::string given = stringAt(m, "namespace");
    if (given.empty()) {
      m["namespace"] = std::string(ns);
    } else if (given != ns) {
      return errors::badRequest(
          "the namespace of the provided object does not match the namespace sent on the "
          "request");
    }
  } else {
    m.erase("namespace");
  }
  return std::nullopt;
}

std::optional<ApiError> checkFinalizers(const Resource& resource, const Json& current,
                                        const Json& next) {
  if (!deletionPending(current)) {
    return std::nullopt;
  }
  auto before = finalizers(current);
  for (const auto& f : finalizers(next)) {
    if (std::find(before.begin(), before.end(), f) == before.end()) {
      return errors::invalid(
          resource, name(current),
          {{"metadata.finalizers",
            api::fielderr::forbidden("no new finalizers can be added if the object is being "
                                     "deleted, found new finalizers [\"" +
                                     f + "\"]")}});
    }
  }
  return std::nullopt;
}

void copyServerFields(const Json& from, Json& to) {
  const Json& source = metadataOf(from);
  Json& target = to["metadata"];
  for (const char* field : {"uid", "creationTimestamp", "resourceVersion", "generation",
                            "deletionTimestamp", "deletionGracePeriodSeconds"}) {
    if (auto it = source.find(field); it != source.end()) {
      target[field] = *it;
    } else {
      target.erase(field);
    }
  }
  target.erase("managedFields");
}

void keepImmutable(const Json& current, Json& next) {
  const Json& source = metadataOf(current);
  Json& target = next["metadata"];
  for (const char* field : {"uid", "creationTimestamp", "namespace", "deletionTimestamp",
                            "deletionGracePeriodSeconds", "generation"}) {
    if (auto it = source.find(field); it != source.end()) {
      target[field] = *it;
    } else {
      target.erase(field);
    }
  }
  target.erase("managedFields");
}

api::FieldErrors validateUntyped(const Json& object) {
  api::FieldErrors errors;
  if (name(object).empty()) {
    errors.push_back({"metadata.name", api::fielderr::required()});
  }
  return errors;
}

void acceptCrd(Json& crd) {
  const Json spec = crd.value("spec", Json::object());
  Json stored = Json::array();
  for (const auto& v : spec.value("versions", Json::array())) {
    if (v.is_object() && v.value("storage", false)) {
      stored.push_back(v.value("name", ""));
    }
  }
  std::string now = crd["metadata"].value("creationTimestamp", "");
  crd["status"] = {{"conditions",
                    {{{"type", "NamesAccepted"},
                      {"status", "True"},
                      {"lastTransitionTime", now},
                      {"reason", "NoConflicts"},
                      {"message", "no conflicts found"}},
                     {{"type", "Established"},
                      {"status", "True"},
                      {"lastTransitionTime", now},
                      {"reason", "InitialNamesAccepted"},
                      {"message", "the initial names have been accepted"}}}},
                   {"acceptedNames", spec.value("names", Json::object())},
                   {"storedVersions", stored}};
}

DeletionPlan planDeletion(const Resource& resource, Json& object, const DeleteOptions& options,
                          core::TimePoint now) {
  Json& m = object["metadata"];
  const bool pending = deletionPending(object);
  if (isNamespace(resource)) {
    if (pending) {
      return {false, false};
    }
    m["deletionTimestamp"] = timeString(now);
    m["deletionGracePeriodSeconds"] = 0;
    object["spec"]["finalizers"] = Json::array({"kubernetes"});
    object["status"]["phase"] = "Terminating";
    return {false, true};
  }
  int64_t grace = 0;
  if (isPod(resource)) {
    const Json spec = object.value("spec", Json::object());
    const std::string phase = object.value("status", Json::object()).value("phase", "");
    grace = options.gracePeriodSeconds.value_or(
        spec.value("terminationGracePeriodSeconds", int64_t{30}));
    bool running = !spec.value("nodeName", "").empty() && phase != "Succeeded" && phase != "Failed";
    if (!running || grace < 0) {
      grace = 0;
    }
  }
  bool changed = false;
  if (options.propagation == Propagation::Orphan) {
    addFinalizer(object, "orphan");
    changed = true;
  } else if (options.propagation == Propagation::Foreground) {
    addFinalizer(object, "foregroundDeletion");
    changed = true;
  }
  if (finalizers(object).empty() && grace == 0) {
    return {true, false};
  }
  core::TimePoint deadline = now + std::chrono::seconds(grace);
  if (!pending) {
    m["deletionTimestamp"] = timeString(deadline);
    m["deletionGracePeriodSeconds"] = grace;
    return {false, true};
  }
  // A second delete may only shorten a pod's grace period.
  int64_t previous = m.value("deletionGracePeriodSeconds", int64_t{0});
  if (isPod(resource) && grace < previous) {
    m["deletionTimestamp"] = timeString(deadline);
    m["deletionGracePeriodSeconds"] = grace;
    changed = true;
  }
  return {false, changed};
}

}  // namespace nodewright::apiserver::rest::meta
