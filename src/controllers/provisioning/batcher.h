#pragma once

#include <chrono>
#include <mutex>
#include <optional>

#include "core/clock.h"

// Karpenter's batching of pending pods: a scheduling pass waits until pods stopped arriving for
// the idle window, or the maximum window since the first of them passed, so a Deployment of 500
// replicas is scheduled in one pass instead of 500. Thread-safe: informer handlers trigger it,
// the provisioner's worker polls it.
namespace nodewright::controllers::provisioning {

struct BatchWindows {
  std::chrono::milliseconds idle{1000};
  std::chrono::milliseconds max{10000};
};

class Batcher {
 public:
  Batcher(const core::Clock& clock, BatchWindows windows) : clock_(clock), windows_(windows) {}

  // A pod arrived (or something that may make pods pending happened).
  void trigger();
  // How long until the batch closes: zero when it is closed now, nullopt when nothing is waiting.
  std::optional<std::chrono::nanoseconds> untilClosed() const;
  // Starts a new batch: triggers from now on belong to the next pass.
  void reset();

 private:
  const core::Clock& clock_;
  const BatchWindows windows_;
  mutable std::mutex mu_;
  std::optional<std::chrono::steady_clock::time_point> first_;  // GUARDED_BY(mu_)
  std::chrono::steady_clock::time_point last_;                  // GUARDED_BY(mu_)
};

}  // namespace nodewright::controllers::provisioning
