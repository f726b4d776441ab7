#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "api/registry.h"

// The REST resources the embedded API server serves: every kind of the resource model, the
// CustomResourceDefinition kind itself, and kinds added at run time by CRDs for other groups.
namespace nodewright::apiserver {

struct Resource {
  std::string group;  // "" for the core group
  std::string version;
  std::string kind;
  std::string plural;
  std::string singular;
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
  bool namespaced = false;
  // Subresources served besides the object itself: "status", "scale", "binding", "eviction".
  std::vector<std::string> subresources;
  std::vector<api::PrinterColumn> printerColumns;
  // Field labels accepted by fieldSelector besides metadata.name and metadata.namespace.
  std::vector<std::string> fieldSelectors;
  // The typed model, when there is one; objects are then decoded, defaulted and validated by
  // it. Without one (CRDs of other groups) objects are stored as sent.
  const api::KindInfo* model = nullptr;
  // OpenAPI v3 schema of the whole object (from the model or the CRD).
  api::Json schema;
  // Served through a CustomResourceDefinition object (JSON merge patch only, no strategic).
  bool custom = false;
  bool hasSubresource(std::string_view name) const;
  std::string apiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "pods", or "nodepools.karpenter.sh": the name in messages and CRD names.
  std::string qualifiedPlural() const { return group.empty() ? plural : plural + "." + group; }
  // "Pod" or "NodePool.karpenter.sh", as kube-apiserver names a kind in error messages.
  std::string qualifiedKind() const { return group.empty() ? kind : kind + "." + group; }
};

using ResourcePtr = std::shared_ptr<const Resource>;

// Thread-safe: readers get immutable snapshots, CRD changes publish a new one.
class ResourceTable {
 public:
  // Every kind of `registry`, plus apiextensions.k8s.io/v1 CustomResourceDefinition.
  explicit ResourceTable(const api::Registry& registry);

  ResourcePtr find(std::string_view group, std::string_view version, std::string_view plural) const;
  ResourcePtr findKind(std::string_view apiVersion, std::string_view kind) const;
  std::vector<ResourcePtr> all() const;
  // The current snapshot; a CRD change publishes a new one rather than changing it.
  std::shared_ptr<const std::vector<ResourcePtr>> snapshot() const;

  // Serves the versions of a CRD's group/kind that the model does not already serve.
  // Returns the resources added.
  std::vector<ResourcePtr> addCustom(const api::Json& crd);
  void removeCustom(const api::Json& crd);

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<ResourcePtr>> resources_;
};

}  // namespace nodewright::apiserver
