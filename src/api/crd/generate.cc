#include "api/crd/generate.h"

#include <algorithm>
#include <regex>
#include <tuple>
#include <utility>

#include "api/reflect/operations.h"
#include "api/scale.h"
#include "api/yaml.h"
#include "core/check.h"

namespace nodewright::api::crd {
namespace {

// (stability, major, minor): stability 2 = GA, 1 = beta, 0 = alpha, -1 = not a Kubernetes
// version string.
std::tuple<int, long, long> versionRank(std::string_view v) {
  static const std::regex kKubeVersion("v([0-9]+)(?:(alpha|beta)([0-9]+))?");
  std::string s(v);
  std::smatch m;
  if (!std::regex_match(s, m, kKubeVersion)) {
    return {-1, 0, 0};
  }
  long major = std::stol(m[1].str());
  if (!m[2].matched) {
    return {2, major, 0};
  }
  return {m[2].str() == "beta" ? 1 : 0, major, std::stol(m[3].str())};
}

Json printerColumns(const KindInfo& info) {
  Json out = Json::array();
  for (const PrinterColumn& c : info.printerColumns) {
    Json col = Json::object();
    col["name"] = c.name;
    col["type"] = c.type;
    col["jsonPath"] = c.jsonPath;
    if (c.priority != 0) {
      col["priority"] = c.priority;
    }
    if (!c.description.empty()) {
      col["description"] = c.description;
    }
    out.push_back(std::move(col));
  }
  return out;
}

// The kind's schema, with metadata left to the API server as every upstream CRD does: a CRD
// may not constrain metadata beyond name and generateName.
Json openApiV3Schema(const KindInfo& info) {
  Json out = Json::object();
  if (!info.doc.empty()) {
    out["description"] = info.doc;
  }
  Json generated = reflect::openApiSchema(*info.type);
  for (auto& [key, value] : generated.items()) {
    out[key] = std::move(value);
  }
  if (out.contains("properties") && out["properties"].contains("metadata")) {
    out["properties"]["metadata"] = Json{{"type", "object"}};
  }
  return out;
}

Json versionEntry(const KindInfo& info, bool storage) {
  Json v = Json::object();
  v["name"] = info.version;
  v["served"] = true;
  v["storage"] = storage;
  if (!info.printerColumns.empty()) {
    v["additionalPrinterColumns"] = printerColumns(info);
  }
  if (info.statusSubresource) {
    v["subresources"] = Json{{"status", Json::object()}};
  }
  if (auto paths = scaleSubresource(info.group, info.kind)) {
    Json scale = {{"specReplicasPath", paths->specReplicasPath},
                  {"statusReplicasPath", paths->statusReplicasPath}};
    if (!paths->labelSelectorPath.empty()) {
      scale["labelSelectorPath"] = paths->labelSelectorPath;
    }
    v["subresources"]["scale"] = std::move(scale);
  }
  v["schema"] = Json{{"openAPIV3Schema", openApiV3Schema(info)}};
  return v;
}

std::string kustomization(const std::vector<std::string>& files) {
  Json k = Json::object();
  k["apiVersion"] = "kustomize.config.k8s.io/v1beta1";
  k["kind"] = "Kustomization";
  k["resources"] = files;
  return kGeneratedHeader + toYaml(k);
}

}  // namespace

bool higherVersionPriority(std::string_view a, std::string_view b) {
  auto ra = versionRank(a);
  auto rb = versionRank(b);
  if (ra != rb) {
    return ra > rb;
  }
  return a < b;
}

Json crdFor(const std::vector<const KindInfo*>& versions) {
  NW_CHECK(!versions.empty());
  std::vector<const KindInfo*> sorted = versions;
  // Oldest first, as upstream CRDs list them; the last one is stored.
  std::sort(sorted.begin(), sorted.end(), [](const KindInfo* x, const KindInfo* y) {
    return higherVersionPriority(y->version, x->version);
  });
  const KindInfo& newest = *sorted.back();

  Json names = Json::object();
  names["kind"] = newest.kind;
  names["listKind"] = newest.listKind();
  names["plural"] = newest.plural;
  names["singular"] = newest.singular;
  if (!newest.shortNames.empty()) {
    names["shortNames"] = newest.shortNames;
  }
  if (!newest.categories.empty()) {
    names["categories"] = newest.categories;
  }

  Json versionList = Json::array();
  for (const KindInfo* info : sorted) {
    versionList.push_back(versionEntry(*info, info == &newest));
  }

  Json crd = Json::object();
  crd["apiVersion"] = "apiextensions.k8s.io/v1";
  crd["kind"] = "CustomResourceDefinition";
  crd["metadata"] = Json{{"name", newest.plural + "." + newest.group}};
  Json spec = Json::object();
  spec["group"] = newest.group;
  spec["names"] = std::move(names);
  spec["scope"] = newest.namespaced ? "Namespaced" : "Cluster";
  spec["versions"] = std::move(versionList);
  crd["spec"] = std::move(spec);
  return crd;
}

std::vector<Json> generateCrds(const Registry& registry) {
  std::map<std::pair<std::string, std::string>, std::vector<const KindInfo*>> byGroupKind;
  for (const KindInfo& info : registry.kinds()) {
    if (info.custom) {
      byGroupKind[{info.group, info.kind}].push_back(&info);
    }
  }
  std::vector<Json> out;
  out.reserve(byGroupKind.size());
  for (const auto& [key, versions] : byGroupKind) {
    out.push_back(crdFor(versions));
  }
  std::sort(out.begin(), out.end(),
            [](const Json& a, const Json& b) { return crdFileName(a) < crdFileName(b); });
  return out;
}

std::string crdFileName(const Json& crd) {
  const Json& spec = crd.at("spec");
  return spec.at("group").get<std::string>() + "_" +
         spec.at("names").at("plural").get<std::string>() + ".yaml";
}

std::map<std::string, std::string> crdFiles(const Registry& registry) {
  std::map<std::string, std::string> files;
  std::vector<std::string> names;
  for (const Json& crd : generateCrds(registry)) {
    std::string name = crdFileName(crd);
    files[name] = kGeneratedHeader + toYaml(crd);
    names.push_back(std::move(name));
  }
  files["kustomization.yaml"] = kustomization(names);
  return files;
}

std::string crdStream(const Registry& registry) {
  std::string out;
  for (const Json& crd : generateCrds(registry)) {
    out += "---\n";
    out += toYaml(crd);
  }
  return out;
}

}  // namespace nodewright::api::crd
