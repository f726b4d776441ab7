#include "cmd/status/cluster_watch.h"

#include <algorithm>

namespace nodewright::cmd::status {

template <class T>
void ClusterWatch::collect(std::vector<T>& into) const {
  const kube::Informer* informer = informerOf(kube::kindOf<T>(client_.registry()));
  if (informer == nullptr) {
    return;
  }
  for (const api::Object& object : informer->cache().list()) {
    if (const T* typed = object.template as<T>()) {
      into.push_back(*typed);
    }
  }
}

core::Result<std::unique_ptr<ClusterWatch>> ClusterWatch::start(kube::Client& client,
                                                                const core::Clock& clock) {
  const api::Registry& registry = client.registry();
  const api::KindInfo* kinds[] = {
      &kube::kindOf<api::corev1::Node>(registry),
      &kube::kindOf<api::karpenter::NodeClaim>(registry),
      &kube::kindOf<api::karpenter::NodePool>(registry),
      &kube::kindOf<api::corev1::Pod>(registry),
      &kube::kindOf<api::capz::AzureCluster>(registry),
      &kube::kindOf<api::capz::AzureMachine>(registry),
      &kube::kindOf<api::capz::AzureMachinePool>(registry),
  };
  std::unique_ptr<ClusterWatch> watch(new ClusterWatch(client));
  for (const api::KindInfo* kind : kinds) {
    kube::ListOptions probe;
    probe.limit = 1;
    auto listed = client.listPage(*kind, "", probe);
    if (!listed) {
      if (listed.error().is(kube::Reason::NotFound)) {
        continue;
      }
      return core::fail(listed.error().toError().wrap("listing " + kind->plural));
    }
    kube::InformerOptions options;
    options.clock = &clock;
    auto informer = std::make_unique<kube::Informer>(client, *kind, options);
    ClusterWatch* self = watch.get();
    auto bump = [self] { self->generation_.fetch_add(1); };
    informer->addHandler({[bump](const api::Object&) { bump(); },
                          [bump](const api::Object&, const api::Object&) { bump(); },
                          [bump](const api::Object&) { bump(); }});
    watch->informers_.push_back(std::move(informer));
  }
  for (auto& informer : watch->informers_) {
    informer->start();
  }
  return watch;
}

ClusterWatch::~ClusterWatch() {
  for (auto& informer : informers_) {
    informer->stop();
  }
}

bool ClusterWatch::synced() const {
  return std::all_of(informers_.begin(), informers_.end(),
                     [](const auto& informer) { return informer->hasSynced(); });
}

const kube::Informer* ClusterWatch::informerOf(const api::KindInfo& kind) const {
  for (const auto& informer : informers_) {
    if (&informer->kind() == &kind) {
      return informer.get();
    }
  }
  return nullptr;
}

Snapshot ClusterWatch::snapshot() const {
  Snapshot s;
  collect(s.nodes);
  collect(s.nodeClaims);
  collect(s.nodePools);
  collect(s.pods);
  collect(s.azureClusters);
  collect(s.azureMachines);
  collect(s.azureMachinePools);
  return s;
}

}  // namespace nodewright::cmd::status
