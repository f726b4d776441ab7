#include "emulators/engine/engine.h"

namespace nodewright::emulators {

Engine::Engine(const core::Clock& clock, EngineOptions options)
    : clock_(clock),
      time_(clock_, options.timeScale),
      latency_(options.seed),
      store_(clock_, options.seed),
      faults_(std::move(options.faults)),
      throttle_(clock),
      admin_(faults_, stats_, store_) {}

core::TimePoint Engine::dueAfter(std::string_view op) {
  auto forced = faults_.forcedLatency(op);
  const auto emulated = forced ? latency_.sample(op, *forced) : latency_.sample(op);
  return time_.after(emulated);
}

bool Engine::admit(std::string_view bucketClass, std::string_view caller) {
  return !faults_.throttling() || throttle_.allow(bucketClass, caller);
}

}  // namespace nodewright::emulators
