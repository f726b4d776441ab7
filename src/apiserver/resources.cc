#include "apiserver/resources.h"

#include <algorithm>

#include "api/reflect/operations.h"
#include "api/scale.h"
#include "apiserver/table/field_selector.h"

namespace nodewright::apiserver {
namespace {

const char* const kCrdGroup = "apiextensions.k8s.io";

Resource fromModel(const api::KindInfo& info) {
  Resource r;
  r.group = info.group;
  r.version = info.version;
  r.kind = info.kind;
  r.plural = info.plural;
  r.singular = info.singular;
  r.shortNames = info.shortNames;
  r.categories = info.categories;
  r.namespaced = info.namespaced;
  r.printerColumns = info.printerColumns;
  r.model = &info;
  r.custom = info.custom;
  r.schema = api::reflect::openApiSchema(*info.type);
  if (info.statusSubresource) {
    r.subresources.push_back("status");
  }
  if (api::scaleSubresource(info.group, info.kind)) {
    r.subresources.push_back("scale");
  }
  if (info.group.empty() && info.kind == "Pod") {
    r.subresources.insert(r.subresources.end(), {"binding", "eviction"});
  }
  r.fieldSelectors = builtinFieldLabels(info.group, info.kind);
  return r;
}

Resource crdResource() {
  Resource r;
  r.group = kCrdGroup;
  r.version = "v1";
  r.kind = "CustomResourceDefinition";
  r.plural = "customresourcedefinitions";
  r.singular = "customresourcedefinition";
  r.shortNames = {"crd", "crds"};
  r.categories = {"api-extensions"};
  r.subresources = {"status"};
  r.schema = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  r.fieldSelectors = builtinFieldLabels(r.group, r.kind);
  return r;
}

std::vector<std::string> stringList(const api::Json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) {
    return out;
  }
  for (const auto& item : value) {
    if (item.is_string()) {
      out.push_back(item.get<std::string>());
    }
  }
  return out;
}

std::string stringAt(const api::Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<api::PrinterColumn> printerColumns(const api::Json& version) {
  std::vector<api::PrinterColumn> columns;
  auto it = version.find("additionalPrinterColumns");
  if (it == version.end() || !it->is_array()) {
    return columns;
  }
  for (const auto& c : *it) {
    if (!c.is_object()) {
      continue;
    }
    api::PrinterColumn column{stringAt(c, "name"), stringAt(c, "type"), stringAt(c, "jsonPath"),
                              stringAt(c, "description"), 0};
    if (auto p = c.find("priority"); p != c.end() && p->is_number_integer()) {
      column.priority = p->get<int>();
    }
    columns.push_back(std::move(column));
  }
  return columns;
}

}  // namespace

bool Resource::hasSubresource(std::string_view name) const {
  return std::find(subresources.begin(), subresources.end(), name) != subresources.end();
}

ResourceTable::ResourceTable(const api::Registry& registry) {
  auto resources = std::make_shared<std::vector<ResourcePtr>>();
  for (const auto& info : registry.kinds()) {
    resources->push_back(std::make_shared<Resource>(fromModel(info)));
  }
  resources->push_back(std::make_shared<Resource>(crdResource()));
  resources_ = std::move(resources);
}

ResourcePtr ResourceTable::find(std::string_view group, std::string_view version,
                                std::string_view plural) const {
  for (const auto& r : *snapshot()) {
    if (r->group == group && r->version == version && r->plural == plural) {
      return r;
    }
  }
  return nullptr;
}

ResourcePtr ResourceTable::findKind(std::string_view apiVersion, std::string_view kind) const {
  for (const auto& r : *snapshot()) {
    if (r->kind == kind && r->apiVersion() == apiVersion) {
      return r;
    }
  }
  return nullptr;
}

std::shared_ptr<const std::vector<ResourcePtr>> ResourceTable::snapshot() const {
  std::lock_guard lock(mu_);
  return resources_;
}

std::vector<ResourcePtr> ResourceTable::all() const {
  return *snapshot();
}

std::vector<ResourcePtr> ResourceTable::addCustom(const api::Json& crd) {
  std::lock_guard lock(mu_);
  const api::Json spec = crd.value("spec", api::Json::object());
  const api::Json names = spec.value("names", api::Json::object());
  auto next = std::make_shared<std::vector<ResourcePtr>>(*resources_);
  std::vector<ResourcePtr> added;
  for (const auto& v : spec.value("versions", api::Json::array())) {
    if (!v.is_object() || !v.value("served", true)) {
      continue;
    }
    Resource r;
    r.group = stringAt(spec, "group");
    r.version = stringAt(v, "name");
    r.kind = stringAt(names, "kind");
    r.plural = stringAt(names, "plural");
    r.singular = stringAt(names, "singular");
    if (r.singular.empty()) {
      r.singular = r.kind;
      std::transform(r.singular.begin(), r.singular.end(), r.singular.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    }
    r.shortNames = stringList(names.value("shortNames", api::Json::array()));
    r.categories = stringList(names.value("categories", api::Json::array()));
    r.namespaced = stringAt(spec, "scope") != "Cluster";
    r.custom = true;
    r.printerColumns = printerColumns(v);
    const api::Json subresources = v.value("subresources", api::Json::object());
    if (subresources.contains("status")) {
      r.subresources.push_back("status");
    }
    if (subresources.contains("scale")) {
      r.subresources.push_back("scale");
    }
    r.schema =
        v.value("schema", api::Json::object())
            .value("openAPIV3Schema",
                   api::Json{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}});
    bool served = std::any_of(next->begin(), next->end(), [&](const ResourcePtr& existing) {
      return existing->group == r.group && existing->version == r.version &&
             existing->plural == r.plural;
    });
    if (served || r.group.empty() || r.version.empty() || r.kind.empty() || r.plural.empty()) {
      continue;
    }
    auto resource = std::make_shared<const Resource>(std::move(r));
    next->push_back(resource);
    added.push_back(std::move(resource));
  }
  resources_ = std::move(next);
  return added;
}

void ResourceTable::removeCustom(const api::Json& crd) {
  std::lock_guard lock(mu_);
  const api::Json spec = crd.value("spec", api::Json::object());
  const std::string group = stringAt(spec, "group");
  const std::string plural = stringAt(spec.value("names", api::Json::object()), "plural");
  auto next = std::make_shared<std::vector<ResourcePtr>>();
  for (const auto& r : *resources_) {
    bool dynamic = r->custom && r->model == nullptr && r->group != kCrdGroup;
    if (dynamic && r->group == group && r->plural == plural) {
      continue;
    }
    next->push_back(r);
  }
  resources_ = std::move(next);
}

}  // namespace nodewright::apiserver
