// Path items and operations. kubectl reads three things from them: the GVK of a resource's
// operations (explain finds the kind of a plural that way), whether the kind's PATCH operation
// takes fieldValidation (then apply and create leave validation to the server), and whether
// PATCH accepts strategic merge patches (see kPatchTypes).
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "apiserver/discovery/openapi_parts.h"
#include "apiserver/discovery/served.h"

namespace nodewright::apiserver::discovery::openapi {
namespace {

// No strategic merge patch, for built-in kinds too: kubectl then computes client-side apply
// patches with the merge keys compiled into it (exactly upstream's) instead of from these
// schemas, which carry no x-kubernetes-patch-* directives. The server still accepts strategic
// merge patches for built-in kinds.
const std::vector<const char*> kPatchTypes = {
    "application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"};

api::Json param(const char* name, const char* in, const char* type, const char* description) {
  api::Json out = {{"name", name},
                   {"in", in},
                   {"description", description},
                   {"schema", {{"type", type}, {"uniqueItems", true}}}};
  if (std::string_view(in) == "path") {
    out["required"] = true;
  }
  return out;
}

api::Json pretty() {
  return param("pretty", "query", "string", "If 'true', then the output is pretty printed.");
}

std::vector<api::Json> writeParams() {
  return {
      param("dryRun", "query", "string",
            "When present, indicates that modifications should not be persisted. Valid value: "
            "All."),
      param("fieldManager", "query", "string",
            "A name associated with the actor or entity that is making these changes."),
      param("fieldValidation", "query", "string",
            "How the server handles unknown or duplicate fields in the request body: Ignore, "
            "Warn (the default) or Strict."),
  };
}

std::vector<api::Json> listParams() {
  return {
      param("allowWatchBookmarks", "query", "boolean", "Requests watch events of type BOOKMARK."),
      param("continue", "query", "string", "The continue token of the previous page."),
      param("fieldSelector", "query", "string", "Restricts the list by the objects' fields."),
      param("labelSelector", "query", "string", "Restricts the list by the objects' labels."),
      param("limit", "query", "integer", "Maximum number of items to return in one page."),
      param("resourceVersion", "query", "string",
            "Constrains which resource versions the request may be served from."),
      param("resourceVersionMatch", "query", "string",
            "How resourceVersion is applied: Exact or NotOlderThan."),
      param("sendInitialEvents", "query", "boolean",
            "With watch, starts with synthetic events for the existing objects."),
      param("timeoutSeconds", "query", "integer", "Timeout for the list or watch call."),
      param("watch", "query", "boolean", "Watch for changes instead of listing."),
  };
}

std::vector<api::Json> deleteParams() {
  return {
      param("dryRun", "query", "string",
            "When present, indicates that modifications should not be persisted."),
      param("gracePeriodSeconds", "query", "integer",
            "Seconds before the object should be deleted; zero means immediately."),
      param("orphanDependents", "query", "boolean",
            "Deprecated: use propagationPolicy. Whether dependents are orphaned."),
      param("propagationPolicy", "query", "string",
            "Whether and how garbage collection is performed: Orphan, Background or Foreground."),
  };
}

api::Json responses(std::vector<const char*> codes, std::string_view schema) {
  api::Json out = api::Json::object();
  for (const char* code : codes) {
    out[code] = {{"description", std::string_view(code) == "201"   ? "Created"
                                 : std::string_view(code) == "202" ? "Accepted"
                                                                   : "OK"},
                 {"content", {{"application/json", {{"schema", schemaRef(schema)}}}}}};
  }
  out["401"] = {{"description", "Unauthorized"}};
  return out;
}

api::Json body(std::string_view schema, const std::vector<const char*>& types) {
  api::Json content = api::Json::object();
  for (const char* type : types) {
    content[type] = {{"schema", schemaRef(schema)}};
  }
  return {{"content", std::move(content)}, {"required", true}};
}

std::string capitalize(std::string_view s) {
  std::string out(s);
  if (!out.empty()) {
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  }
  return out;
}

// "CoreV1", "AppsV1", "KarpenterShV1": the group-version part of upstream operation ids.
std::string operationGroup(const Resource& r) {
  std::string out;
  if (r.group.empty()) {
    out = "Core";
  } else if (!r.custom) {
    out = capitalize(std::string_view(r.group).substr(0, r.group.find('.')));
  } else {
    bool upper = true;
    for (char c : r.group) {
      if (c == '.' || c == '-') {
        upper = true;
      } else {
        out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
      }
    }
  }
  return out + capitalize(r.version);
}

// What one set of operations acts on.
struct Target {
  const Resource& resource;
  std::string group;     // GVK of the operations: the resource's, or a subresource's kind
  std::string version;   //
  std::string kind;      //
  std::string schema;    // component of request and response bodies
  std::string idSuffix;  // "NamespacedDeploymentScale"
};

api::Json operation(const Target& t, const char* verb, const char* action, const char* summary,
                    std::vector<api::Json> params) {
  api::Json out = api::Json::object();
  out["description"] = std::string(summary) + " " + t.kind;
  out["operationId"] = verb + operationGroup(t.resource) + t.idSuffix;
  if (!params.empty()) {
    out["parameters"] = std::move(params);
  }
  out["x-kubernetes-action"] = action;
  out["x-kubernetes-group-version-kind"] = {
      {"group", t.group}, {"version", t.version}, {"kind", t.kind}};
  return out;
}

api::Json pathItem(std::vector<api::Json> params) {
  params.push_back(pretty());
  return {{"parameters", std::move(params)}};
}

void addObjectOperations(const Target& t, const std::vector<std::string>& verbs, api::Json& item) {
  auto has = [&](const char* v) { return std::find(verbs.begin(), verbs.end(), v) != verbs.end(); };
  if (has("get")) {
    item["get"] = operation(t, "read", "get", "read the specified", {});
    item["get"]["responses"] = responses({"200"}, t.schema);
  }
  if (has("update")) {
    item["put"] = operation(t, "replace", "put", "replace the specified", writeParams());
    item["put"]["requestBody"] = body(t.schema, {"*/*"});
    item["put"]["responses"] = responses({"200", "201"}, t.schema);
  }
  if (has("patch")) {
    std::vector<api::Json> params = writeParams();
    params.push_back(param("force", "query", "boolean",
                           "Force an apply request to take fields owned by other managers."));
    item["patch"] = operation(t, "patch", "patch", "partially update the specified", params);
    item["patch"]["requestBody"] = body(kPatch, kPatchTypes);
    item["patch"]["responses"] = responses({"200", "201"}, t.schema);
  }
  if (has("create")) {
    item["post"] = operation(t, "create", "post", "create", writeParams());
    item["post"]["requestBody"] = body(t.schema, {"*/*"});
    item["post"]["responses"] = responses({"200", "201", "202"}, t.schema);
  }
  if (has("delete")) {
    item["delete"] = operation(t, "delete", "delete", "delete", deleteParams());
    item["delete"]["requestBody"] = body(kDeleteOptions, {"*/*"});
    // Custom resources answer a delete with a Status, built-in kinds with the object.
    std::string answer = t.resource.custom ? std::string(kStatus) : t.schema;
    item["delete"]["responses"] = responses({"200", "202"}, answer);
  }
}

void addCollectionOperations(const Target& t, std::string_view listSchema, api::Json& item) {
  item["get"] = operation(t, "list", "list", "list or watch objects of kind", listParams());
  item["get"]["responses"] = responses({"200"}, listSchema);
  item["post"] = operation(t, "create", "post", "create", writeParams());
  item["post"]["requestBody"] = body(t.schema, {"*/*"});
  item["post"]["responses"] = responses({"200", "201", "202"}, t.schema);
  std::vector<api::Json> params = listParams();
  for (api::Json& p : deleteParams()) {
    params.push_back(std::move(p));
  }
  item["delete"] = operation(t, "deletecollection", "deletecollection", "delete collection of",
                             std::move(params));
  item["delete"]["requestBody"] = body(kDeleteOptions, {"*/*"});
  item["delete"]["responses"] = responses({"200"}, kStatus);
}

}  // namespace

void addResourcePaths(const Resource& r, api::Json& paths) {
  const std::string base =
      r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  const std::string scope = r.namespaced ? "/namespaces/{namespace}" : "";
  const std::string collection = base + scope + "/" + r.plural;
  const std::string schema = kindSchemaName(r);
  const std::string listSchema = kindSchemaName(r.group, r.version, r.kind + "List", r.custom);
  const std::string scopeId = r.namespaced ? "Namespaced" : "";
  const Target self{r, r.group, r.version, r.kind, schema, scopeId + r.kind};

  std::vector<api::Json> scopeParams;
  if (r.namespaced) {
    scopeParams.push_back(
        param("namespace", "path", "string", "object name and auth scope, such as for teams"));
  }
  std::vector<api::Json> objectParams = {
      param("name", "path", "string", ("name of the " + r.kind).c_str())};
  objectParams.insert(objectParams.end(), scopeParams.begin(), scopeParams.end());

  api::Json collectionItem = pathItem(scopeParams);
  addCollectionOperations(self, listSchema, collectionItem);
  paths[collection] = std::move(collectionItem);

  api::Json objectItem = pathItem(objectParams);
  addObjectOperations(self, resourceVerbs(), objectItem);
  paths[collection + "/{name}"] = std::move(objectItem);

  for (const Subresource& sub : subresourcesOf(r)) {
    bool sameKind = sub.group == r.group && sub.version == r.version && sub.kind == r.kind;
    Target target{r,
                  sub.group,
                  sub.version,
                  sub.kind,
                  sameKind ? schema : kindSchemaName(sub.group, sub.version, sub.kind, false),
                  scopeId + r.kind + capitalize(sub.name)};
    api::Json item = pathItem(objectParams);
    addObjectOperations(target, sub.verbs, item);
    paths[collection + "/{name}/" + sub.name] = std::move(item);
  }

  if (r.namespaced) {
    Target all{r, r.group, r.version, r.kind, schema, r.kind + "ForAllNamespaces"};
    api::Json item = pathItem({});
    item["get"] = operation(all, "list", "list", "list or watch objects of kind", listParams());
    item["get"]["responses"] = responses({"200"}, listSchema);
    paths[base + "/" + r.plural] = std::move(item);
  }
}

}  // namespace nodewright::apiserver::discovery::openapi
