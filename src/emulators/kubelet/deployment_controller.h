#pragma once

#include <string>

#include "api/core/pod.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// A minimal Deployment controller: one ReplicaSet per pod template (named and labelled with the
// template's pod-template-hash) scaled to spec.replicas; a changed template makes a new one and
// scales the others to 0 (old ones beyond revisionHistoryLimit go); status sums the
// ReplicaSets' and carries Available and Progressing, enough for kubectl rollout status.
namespace nodewright::emulators::kubelet {

class DeploymentController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "deployment";

  // `client` and `clock` must outlive it.
  DeploymentController(kube::Client& client, const core::Clock& clock);

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  runtime::Controller& setup(runtime::Manager& manager);

 private:
  kube::Client& client_;
  const core::Clock& clock_;
  const kube::Cache* deployments_ = nullptr;  // set by setup()
  const kube::Cache* sets_ = nullptr;         // set by setup()
};

// The pod-template-hash of a template (without that label): stable, DNS-label safe.
std::string podTemplateHash(const api::corev1::PodTemplateSpec& tmpl, int32_t collisionCount);

}  // namespace nodewright::emulators::kubelet
