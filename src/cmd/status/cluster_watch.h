#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cmd/status/model.h"
#include "core/clock.h"
#include "core/error.h"
#include "kube/client.h"
#include "kube/informer.h"

// The objects `nodewright status` shows, kept current by one informer per kind (LIST, then
// WATCH): the view redraws from these caches and never polls the server.
namespace nodewright::cmd::status {

class ClusterWatch {
 public:
  // Checks every kind with a one-item LIST, then starts its informer. A kind the server does
  // not serve (404: its CRD is not installed, e.g. no CAPZ) is left out and shows as empty;
  // any other answer (unreachable, unauthorized) is returned as the error, naming the kind.
  // `client` and `clock` must outlive the watch.
  static core::Result<std::unique_ptr<ClusterWatch>> start(kube::Client& client,
                                                           const core::Clock& clock);
  ~ClusterWatch();
  ClusterWatch(const ClusterWatch&) = delete;
  ClusterWatch& operator=(const ClusterWatch&) = delete;

  // True once every informer's first LIST is in its cache.
  bool synced() const;
  // A copy of what the caches hold now. Thread-safe.
  Snapshot snapshot() const;
  // Grows with every event any informer delivers, so a reader can tell that the view is stale.
  uint64_t generation() const { return generation_.load(); }

 private:
  explicit ClusterWatch(kube::Client& client) : client_(client) {}
  // The running informer of a kind, or nullptr when the kind is not served.
  const kube::Informer* informerOf(const api::KindInfo& kind) const;
  template <class T>
  void collect(std::vector<T>& into) const;

  kube::Client& client_;
  std::vector<std::unique_ptr<kube::Informer>> informers_;
  std::atomic<uint64_t> generation_{0};
};

}  // namespace nodewright::cmd::status
