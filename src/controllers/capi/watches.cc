#include "controllers/capi/watches.h"

#include "kube/cache.h"

namespace nodewright::controllers::capi {
namespace {

constexpr const char* kByReferenceIndex = "capi.reference";

// Namespace, group and kind, name: the version of a reference may lag the stored object's.
std::string referenceKey(const std::string& ns, const std::string& apiVersion,
                         const std::string& kind, const std::string& name) {
  const auto slash = apiVersion.find('/');
  const std::string group = slash == std::string::npos ? "" : apiVersion.substr(0, slash);
  return ns + "/" + group + "/" + kind + "/" + name;
}

}  // namespace

void watchReferenced(runtime::Controller& controller, kube::Informer& owners,
                     kube::Informer& referenced, const std::string& ownerKind, RefOf refOf) {
  owners.addIndex(kByReferenceIndex, [refOf](const api::Object& owner) {
    std::vector<std::string> keys;
    if (auto ref = refOf(owner); ref && !ref->name.empty()) {
      const std::string& ns =
          ref->namespace_.empty() ? owner.metadata().namespace_ : ref->namespace_;
      keys.push_back(referenceKey(ns, ref->apiVersion, ref->kind, ref->name));
    }
    return keys;
  });
  const kube::Cache& cache = owners.cache();
  controller.watchMapped(referenced, [&cache, ownerKind](const api::Object& object) {
    std::vector<runtime::Request> requests;
    if (auto owner = runtime::controllerOwner(object, ownerKind)) {
      requests.push_back(*owner);
    }
    const api::ObjectMeta& meta = object.metadata();
    const api::KindInfo& kind = object.info();
    for (const api::Object& owner :
         cache.byIndex(kByReferenceIndex,
                       referenceKey(meta.namespace_, kind.apiVersion(), kind.kind, meta.name))) {
      requests.push_back({owner.metadata().namespace_, owner.metadata().name});
    }
    return requests;
  });
}

}  // namespace nodewright::controllers::capi
