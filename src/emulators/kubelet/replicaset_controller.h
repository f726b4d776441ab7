#pragma once

#include "api/core/node.h"
#include "api/core/pod.h"
#include "core/clock.h"
#include "emulators/kubelet/expectations.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// A minimal ReplicaSet controller: keeps spec.replicas active pods from the template (created
// with generateName and a controller owner reference), deletes extras unbound and pending ones
// first, and reports replicas, readyReplicas, availableReplicas and observedGeneration.
// Pods it made that the cache does not show yet count through Expectations.
namespace nodewright::emulators::kubelet {

class ReplicaSetController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "replicaset";

  // `client` and `clock` must outlive it.
  ReplicaSetController(kube::Client& client, const core::Clock& clock);

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  runtime::Controller& setup(runtime::Manager& manager);

 private:
  kube::Client& client_;
  const core::Clock& clock_;
  Expectations expectations_;
  const kube::Cache* sets_ = nullptr;  // set by setup()
  const kube::Cache* pods_ = nullptr;  // set by setup()
};

// The pods of an owner (its controller reference), as the cache holds them.
std::vector<const api::corev1::Pod*> ownedPods(const std::vector<api::Object>& objects,
                                               const std::string& ownerUid);

// The order ReplicaSets delete pods in (kube's ActivePods): unbound before bound, Pending
// before Running, not ready before ready, newer before older.
bool deletionOrder(const api::corev1::Pod* a, const api::corev1::Pod* b);

}  // namespace nodewright::emulators::kubelet
