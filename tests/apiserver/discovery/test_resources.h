#pragma once

#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "api/reflect/operations.h"
#include "api/registry.h"
#include "apiserver/resources.h"

// Hand-made resources for the discovery tests: the shapes ResourceTable produces, without its
// dependencies.
namespace nodewright::apiserver::discovery::testing {

inline api::Json objectSchema(api::Json properties) {
  return api::Json{{"type", "object"}, {"properties", std::move(properties)}};
}

inline std::shared_ptr<Resource> makeResource(std::string group, std::string version,
                                              std::string kind, std::string plural, bool namespaced,
                                              std::vector<std::string> subresources = {},
                                              bool custom = false) {
  auto r = std::make_shared<Resource>();
  r->group = std::move(group);
  r->version = std::move(version);
  r->kind = std::move(kind);
  r->plural = std::move(plural);
  r->singular = r->kind;
  for (char& c : r->singular) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  r->namespaced = namespaced;
  r->subresources = std::move(subresources);
  r->custom = custom;
  r->schema = objectSchema({{"metadata", {{"type", "object"}}},
                            {"spec", {{"type", "object"}, {"description", "Desired state."}}}});
  return r;
}

inline ResourcePtr pods() {
  auto r = makeResource("", "v1", "Pod", "pods", true, {"status", "binding", "eviction"});
  r->shortNames = {"po"};
  r->categories = {"all"};
  return r;
}

inline ResourcePtr deployments() {
  auto r = makeResource("apps", "v1", "Deployment", "deployments", true, {"status", "scale"});
  r->shortNames = {"deploy"};
  return r;
}

// A small served set: core, apps, two karpenter.sh versions, a CRD group, a CRD of another
// group with a scale subresource, and a coordination.k8s.io kind.
inline std::vector<ResourcePtr> sampleResources() {
  return {
      makeResource("karpenter.sh", "v1alpha5", "Provisioner", "provisioners", false, {"status"},
                   true),
      pods(),
      makeResource("karpenter.sh", "v1", "NodePool", "nodepools", false, {"status"}, true),
      makeResource("coordination.k8s.io", "v1", "Lease", "leases", true),
      deployments(),
      makeResource("", "v1", "Namespace", "namespaces", false, {"status"}),
      makeResource("example.com", "v1", "Widget", "widgets", true, {"scale", "status"}, true),
      makeResource("cluster.x-k8s.io", "v1beta1", "Machine", "machines", true, {"status"}, true),
      makeResource("apiextensions.k8s.io", "v1", "CustomResourceDefinition",
                   "customresourcedefinitions", false, {"status"}),
  };
}

// Every kind of the built-in registry, converted the way ResourceTable does it.
inline std::vector<ResourcePtr> registryResources() {
  std::vector<ResourcePtr> out;
  for (const api::KindInfo& info : api::builtinRegistry().kinds()) {
    auto r = std::make_shared<Resource>();
    r->group = info.group;
    r->version = info.version;
    r->kind = info.kind;
    r->plural = info.plural;
    r->singular = info.singular;
    r->shortNames = info.shortNames;
    r->categories = info.categories;
    r->namespaced = info.namespaced;
    r->model = &info;
    r->custom = info.custom;
    r->schema = api::reflect::openApiSchema(*info.type);
    if (info.statusSubresource) {
      r->subresources.push_back("status");
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace nodewright::apiserver::discovery::testing
