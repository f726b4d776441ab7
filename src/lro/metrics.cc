#include "lro/metrics.h"

namespace nodewright::lro {

EngineMetrics::EngineMetrics(runtime::Registry* registry) {
  if (registry == nullptr) {
    return;
  }
  notDone_ = &registry->counter("nodewright_lro_not_done_total",
                                "Calls that left an operation in progress (parked or resumed "
                                "and still running), or found the resource busy or throttled.",
                                {"service", "verb"});
  stored_ = &registry->counter("nodewright_lro_futures_stored_total",
                               "Futures written to an object's status.", {"service", "verb"});
  resumed_ = &registry->counter("nodewright_lro_futures_resumed_total",
                                "Futures polled instead of sending the request again.",
                                {"service", "verb"});
  dropped_ = &registry->counter("nodewright_lro_futures_dropped_total",
                                "Futures dropped without their operation finishing: stale "
                                "(unknown, failed or canceled) or superseded by a delete.",
                                {"service", "verb", "reason"});
  duration_ =
      &registry->histogram("nodewright_lro_operation_duration_seconds",
                           "Duration of operations that finished within the call that began them.",
                           {"service", "verb"}, runtime::Registry::exponentialBuckets(0.05, 2, 12));
}

void EngineMetrics::notDone(const std::string& service, Verb verb) {
  if (notDone_ != nullptr) {
    notDone_->with({service, verbName(verb)}).inc();
  }
}

void EngineMetrics::stored(const std::string& service, Verb verb) {
  if (stored_ != nullptr) {
    stored_->with({service, verbName(verb)}).inc();
  }
}

void EngineMetrics::resumed(const std::string& service, Verb verb) {
  if (resumed_ != nullptr) {
    resumed_->with({service, verbName(verb)}).inc();
  }
}

void EngineMetrics::dropped(const std::string& service, Verb verb, const char* reason) {
  if (dropped_ != nullptr) {
    dropped_->with({service, verbName(verb), reason}).inc();
  }
}

void EngineMetrics::duration(const std::string& service, Verb verb,
                             std::chrono::microseconds elapsed) {
  if (duration_ != nullptr) {
    duration_->with({service, verbName(verb)})
        .observe(std::chrono::duration<double>(elapsed).count());
  }
}

}  // namespace nodewright::lro
