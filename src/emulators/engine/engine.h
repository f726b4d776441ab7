#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

#include "core/clock.h"
#include "emulators/engine/admin_api.h"
#include "emulators/engine/faults.h"
#include "emulators/engine/latency.h"
#include "emulators/engine/offset_clock.h"
#include "emulators/engine/resource_store.h"
#include "emulators/engine/scaled_clock.h"
#include "emulators/engine/stats.h"
#include "emulators/engine/throttle.h"

namespace nodewright::emulators {

struct EngineOptions {
  // Emulated durations pass this many times faster (see ScaledClock).
  double timeScale = 1;
  // Seeds resource ids and latencies; faults have their own seed in their configuration.
  uint64_t seed = 1;
  FaultConfig faults;
};

// The simulated cloud a cloud's emulator (EC2 now, Azure later) runs on: the parts wired on one
// injected clock, plus the two decisions every action makes the same way. The emulator adds its
// protocol, validation and the meaning of its resources. Thread-safe; `clock` must outlive it.
class Engine {
 public:
  // REQUIRES: ScaledClock::validFactor(options.timeScale).
  Engine(const core::Clock& clock, EngineOptions options = {});

  const ScaledClock& time() const { return time_; }
  // Where emulated timestamps (time(), the store) come from: the injected clock, run ahead
  // after a restore if it is behind the saved time (OffsetClock).
  const OffsetClock& clock() const { return clock_; }
  // After restoring state saved at `saved`: emulated time goes on from there, never back.
  void continueFrom(core::TimePoint saved) { clock_.continueFrom(saved); }
  LatencyModel& latency() { return latency_; }
  ResourceStore& store() { return store_; }
  Faults& faults() { return faults_; }
  Throttle& throttle() { return throttle_; }
  Stats& stats() { return stats_; }
  AdminApi& admin() { return admin_; }

  // When `op` ("ec2:RunInstances:pending->running"), starting now, completes: a forced latency
  // from the faults if there is one, else the model's, scaled to real time.
  core::TimePoint dueAfter(std::string_view op);
  // False when throttling is on and the caller's bucket of the class is empty.
  bool admit(std::string_view bucketClass, std::string_view caller);
  // Serves /admin/*; false for other paths.
  bool handleAdmin(const http::Request& request, http::Exchange& exchange) {
    return admin_.handle(request, exchange);
  }

 private:
  OffsetClock clock_;
  ScaledClock time_;
  LatencyModel latency_;
  ResourceStore store_;
  Faults faults_;
  Throttle throttle_;
  Stats stats_;
  AdminApi admin_;
};

}  // namespace nodewright::emulators
