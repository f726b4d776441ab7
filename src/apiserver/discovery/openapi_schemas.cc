// Component schemas. Kind schemas come from the resource (the model's or the CRD's); the
// apimachinery types every document references, and the kinds of subresources, are written
// here because the model has no kind for them.
#include <string>

#include "api/meta.h"
#include "api/reflect/operations.h"
#include "apiserver/discovery/openapi_parts.h"
#include "apiserver/discovery/served.h"

namespace nodewright::apiserver::discovery::openapi {
namespace {

constexpr const char* kMetadataDoc =
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";
constexpr const char* kApiVersionDoc =
    "APIVersion defines the versioned schema of this representation of an object. Servers "
    "should convert recognized schemas to the latest internal value, and may reject "
    "unrecognized values.";
constexpr const char* kKindDoc =
    "Kind is a string value representing the REST resource this object represents. Servers may "
    "infer this from the endpoint the client submits requests to. In CamelCase.";

api::Json field(const char* type, const char* description) {
  return api::Json{{"description", description}, {"type", type}};
}

api::Json intField(const char* format, const char* description) {
  return api::Json{{"description", description}, {"type", "integer"}, {"format", format}};
}

api::Json stringList(const char* description) {
  return api::Json{{"description", description},
                   {"type", "array"},
                   {"items", api::Json{{"type", "string"}, {"default", ""}}}};
}

// A property holding another component: allOf keeps the property's own description beside
// the reference, as upstream's documents do.
api::Json refField(std::string_view name, const char* description) {
  return api::Json{{"description", description},
                   {"default", api::Json::object()},
                   {"allOf", api::Json::array({schemaRef(name)})}};
}

api::Json gvkList(std::string_view group, std::string_view version, std::string_view kind) {
  return api::Json::array({api::Json{{"group", group}, {"kind", kind}, {"version", version}}});
}

// apiVersion, kind and metadata, the first properties of every kind.
api::Json typeMetaProperties(std::string_view metaName) {
  return api::Json{{"apiVersion", field("string", kApiVersionDoc)},
                   {"kind", field("string", kKindDoc)},
                   {"metadata", refField(metaName, kMetadataDoc)}};
}

api::Json objectMeta() {
  api::Json out = api::reflect::openApiSchema(api::reflect::opsFor<api::ObjectMeta>());
  // The model keeps managedFields verbatim (untyped); describe what the server returns.
  api::Json& props = out["properties"];
  props["managedFields"] = api::Json{
      {"description",
       "ManagedFields maps workflow-id and version to the set of fields that are managed by "
       "that workflow. This is mostly for internal housekeeping."},
      {"type", "array"},
      {"items", api::Json{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}};
  api::Json described = api::Json{
      {"description",
       "ObjectMeta is metadata that all persisted resources must have, which includes all "
       "objects users must create."}};
  for (auto& [key, value] : out.items()) {
    described[key] = std::move(value);
  }
  return described;
}

api::Json listMeta() {
  return api::Json{
      {"description", "ListMeta describes metadata that synthetic resources must have."},
      {"type", "object"},
      {"properties",
       api::Json{{"continue", field("string", "Set if the user can request more items.")},
                 {"remainingItemCount",
                  intField("int64", "The number of subsequent items in the list not included.")},
                 {"resourceVersion",
                  field("string", "The version of the list; a watch can start from it.")},
                 {"selfLink", field("string", "Deprecated: not set by the server.")}}}};
}

api::Json deleteOptions() {
  api::Json props = {
      {"apiVersion", field("string", kApiVersionDoc)},
      {"dryRun", stringList("When present, modifications are not persisted. Valid value: All.")},
      {"gracePeriodSeconds",
       intField("int64", "Seconds before the object should be deleted; zero means immediately.")},
      {"kind", field("string", kKindDoc)},
      {"orphanDependents",
       field("boolean", "Deprecated: use propagationPolicy. Whether to orphan dependents.")},
      {"preconditions",
       api::Json{{"description", "Must be fulfilled before a deletion is carried out."},
                 {"type", "object"},
                 {"properties",
                  {{"resourceVersion", field("string", "Specifies the target ResourceVersion")},
                   {"uid", field("string", "Specifies the target UID.")}}}}},
      {"propagationPolicy",
       field("string",
             "Whether and how garbage collection is performed: Orphan, Background or "
             "Foreground.")}};
  return api::Json{{"description", "DeleteOptions may be provided when deleting an API object."},
                   {"type", "object"},
                   {"properties", std::move(props)}};
}

api::Json status() {
  api::Json details = {
      {"description", "Extended data associated with the reason."},
      {"type", "object"},
      {"properties",
       {{"causes",
         api::Json{{"description", "The causes of the failure, one per field."},
                   {"type", "array"},
                   {"items",
                    {{"type", "object"},
                     {"properties",
                      {{"field", field("string", "The field of the resource that caused it.")},
                       {"message", field("string", "A human-readable description.")},
                       {"reason", field("string", "A machine-readable description.")}}}}}}},
        {"group", field("string", "The group attribute of the resource.")},
        {"kind", field("string", "The kind attribute of the resource.")},
        {"name", field("string", "The name attribute of the resource.")},
        {"retryAfterSeconds", intField("int32", "Seconds to wait before retrying.")},
        {"uid", field("string", "UID of the resource.")}}}};
  api::Json props = {
      {"apiVersion", field("string", kApiVersionDoc)},
      {"code", intField("int32", "Suggested HTTP return code for this status, 0 if not set.")},
      {"details", std::move(details)},
      {"kind", field("string", kKindDoc)},
      {"message", field("string", "A human-readable description of the status.")},
      {"metadata", refField(kListMeta, "Standard list metadata.")},
      {"reason", field("string", "A machine-readable description of why the operation failed.")},
      {"status", field("string", "Status of the operation: Success or Failure.")}};
  return api::Json{{"description",
                    "Status is a return value for calls that don't return other "
                    "objects."},
                   {"type", "object"},
                   {"properties", std::move(props)},
                   {"x-kubernetes-group-version-kind", gvkList("", "v1", "Status")}};
}

api::Json scale() {
  api::Json props = typeMetaProperties(kObjectMeta);
  props["spec"] =
      api::Json{{"description", "The desired state of the object."},
                {"type", "object"},
                {"properties", {{"replicas", intField("int32", "Desired number of instances.")}}}};
  props["status"] = api::Json{
      {"description", "The current state of the object; read-only."},
      {"type", "object"},
      {"required", api::Json::array({"replicas"})},
      {"properties",
       {{"replicas", intField("int32", "Actual number of observed instances.")},
        {"selector", field("string", "Label query over the pods counted in replicas.")}}}};
  return api::Json{{"description", "Scale represents a scaling request for a resource."},
                   {"type", "object"},
                   {"properties", std::move(props)},
                   {"x-kubernetes-group-version-kind", gvkList("autoscaling", "v1", "Scale")}};
}

api::Json eviction() {
  api::Json props = typeMetaProperties(kObjectMeta);
  props["deleteOptions"] = refField(kDeleteOptions, "DeleteOptions may be provided");
  return api::Json{
      {"description", "Eviction evicts a pod from its node subject to disruption budgets."},
      {"type", "object"},
      {"properties", std::move(props)},
      {"x-kubernetes-group-version-kind", gvkList("policy", "v1", "Eviction")}};
}

api::Json binding() {
  api::Json props = typeMetaProperties(kObjectMeta);
  props["target"] =
      api::Json{{"description", "The target object that you want to bind to the standard object."},
                {"type", "object"},
                {"properties",
                 {{"apiVersion", field("string", "API version of the referent.")},
                  {"kind", field("string", "Kind of the referent.")},
                  {"name", field("string", "Name of the referent.")},
                  {"namespace", field("string", "Namespace of the referent.")},
                  {"uid", field("string", "UID of the referent.")}}}};
  return api::Json{{"description",
                    "Binding ties one object to another; for example, a pod is "
                    "bound to a node by a scheduler."},
                   {"type", "object"},
                   {"required", api::Json::array({"target"})},
                   {"properties", std::move(props)},
                   {"x-kubernetes-group-version-kind", gvkList("", "v1", "Binding")}};
}

api::Json kindSchema(const Resource& r) {
  api::Json source = r.schema.is_object() ? r.schema : api::Json::object();
  api::Json out = api::Json::object();
  if (source.contains("description")) {
    out["description"] = source["description"];
  } else if (r.model != nullptr && !r.model->doc.empty()) {
    out["description"] = r.model->doc;
  }
  out["type"] = "object";
  for (auto& [key, value] : source.items()) {
    if (key != "description") {
      out[key] = std::move(value);
    }
  }
  // metadata is always ObjectMeta, whatever the model or a CRD says about it.
  api::Json props = typeMetaProperties(kObjectMeta);
  if (out.contains("properties") && out["properties"].is_object()) {
    for (auto& [key, value] : out["properties"].items()) {
      if (key != "metadata") {
        props[key] = std::move(value);
      }
    }
  }
  out["properties"] = std::move(props);
  out["x-kubernetes-group-version-kind"] = gvkList(r.group, r.version, r.kind);
  return out;
}

api::Json listSchema(const Resource& r) {
  api::Json props = typeMetaProperties(kListMeta);
  props["metadata"]["description"] =
      "Standard list metadata. More info: "
      "https://git.k8s.io/community/contributors/devel/sig-architecture/"
      "api-conventions.md#types-kinds";
  api::Json item = schemaRef(kindSchemaName(r));
  item["default"] = api::Json::object();
  props["items"] = api::Json{
      {"description", "List of " + r.plural + "."}, {"type", "array"}, {"items", std::move(item)}};
  return api::Json{
      {"description", r.kind + "List is a list of " + r.kind + "."},
      {"type", "object"},
      {"required", api::Json::array({"items"})},
      {"properties", std::move(props)},
      {"x-kubernetes-group-version-kind", gvkList(r.group, r.version, r.kind + "List")}};
}

}  // namespace

std::string kindSchemaName(std::string_view group, std::string_view version, std::string_view kind,
                           bool custom) {
  std::string prefix;
  if (custom && !group.empty()) {
    // "cluster.x-k8s.io" -> "io.x-k8s.cluster"
    std::string_view rest = group;
    while (!rest.empty()) {
      size_t dot = rest.rfind('.');
      std::string_view label = dot == std::string_view::npos ? rest : rest.substr(dot + 1);
      if (!prefix.empty()) {
        prefix += '.';
      }
      prefix += label;
      rest = dot == std::string_view::npos ? std::string_view() : rest.substr(0, dot);
    }
  } else if (group.empty()) {
    prefix = "io.k8s.api.core";
  } else if (group == "apiextensions.k8s.io") {
    prefix = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions";
  } else if (group == "apiregistration.k8s.io") {
    prefix = "io.k8s.kube-aggregator.pkg.apis.apiregistration";
  } else {
    prefix = "io.k8s.api." + std::string(group.substr(0, group.find('.')));
  }
  return prefix + "." + std::string(version) + "." + std::string(kind);
}

std::string kindSchemaName(const Resource& resource) {
  return kindSchemaName(resource.group, resource.version, resource.kind, resource.custom);
}

api::Json schemaRef(std::string_view name) {
  return api::Json{{"$ref", "#/components/schemas/" + std::string(name)}};
}

void addMetaSchemas(api::Json& schemas) {
  schemas[std::string(kDeleteOptions)] = deleteOptions();
  schemas[std::string(kListMeta)] = listMeta();
  schemas[std::string(kObjectMeta)] = objectMeta();
  schemas[std::string(kPatch)] = api::Json{
      {"description",
       "Patch is provided to give a concrete name and type to the Kubernetes PATCH request "
       "body."},
      {"type", "object"}};
  schemas[std::string(kStatus)] = status();
}

void addResourceSchemas(const Resource& resource, api::Json& schemas) {
  schemas[kindSchemaName(resource)] = kindSchema(resource);
  schemas[kindSchemaName(resource.group, resource.version, resource.kind + "List",
                         resource.custom)] = listSchema(resource);
  for (const Subresource& sub : subresourcesOf(resource)) {
    std::string name = kindSchemaName(sub.group, sub.version, sub.kind, false);
    if (sub.name == "scale") {
      schemas[name] = scale();
    } else if (sub.name == "eviction") {
      schemas[name] = eviction();
    } else if (sub.name == "binding") {
      schemas[name] = binding();
    }
  }
}

}  // namespace nodewright::apiserver::discovery::openapi
