#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lro/operation.h"
#include "runtime/metrics.h"

// Adaptive call timeouts (seed 004, open question 1): per (service, verb), the window an
// operation is polled before it is parked becomes the observed p99 of the operations that
// finish quickly (within `max`), clamped to [min, max].
//
// Durations are censored: an operation parked after a window w is only known to take more than
// w. Taking the p99 of the durations seen would ratchet the timeout down (each window hides
// the tail above it), so the estimate is the Kaplan-Meier product-limit one, which counts a
// parked operation as "still running at w". Every probeEvery-th operation is given the whole
// `max` as its window so that durations above the current timeout are observed at all.
// Operations longer than `max` are "slow" and do not move the timeout; if none finishes within
// `max`, waiting is pointless and the timeout drops to `min`.
//
// A parked operation's completion, seen when its future is resumed, is not recorded: it is
// only an upper bound quantized by the requeue interval (15 s by default, past `max`), and
// knowing when it began would mean keeping per-operation state that a restart loses anyway.
// The operation was already counted, as censored at its window, when it was parked.
//
// Memory is bounded: a ring of the last `window` samples per (service, verb). Thread-safe.
namespace nodewright::lro {

struct AdaptiveOptions {
  bool enabled = true;
  std::chrono::milliseconds min{500};
  std::chrono::milliseconds max{10000};
  double quantile = 0.99;
  // Samples needed before the timeout moves off the configured call timeout.
  std::size_t minSamples = 50;
  std::size_t window = 1024;
  unsigned probeEvery = 8;  // 0: never probe
};

// One observed operation: it finished `duration` after it began, or (finished == false) it was
// still running then.
struct DurationSample {
  std::chrono::microseconds duration{0};
  bool finished = false;
};

// The time by which a fraction `quantile` of the operations that finish within `max` have
// finished, from censored samples; nullopt when none finished within `max`.
std::optional<std::chrono::microseconds> quickQuantile(std::vector<DurationSample> samples,
                                                       double quantile,
                                                       std::chrono::microseconds max);

class AdaptiveTimeouts {
 public:
  // `fallback`: the configured call timeout, used until minSamples are in. `metrics` may be
  // null; otherwise it must outlive this object.
  AdaptiveTimeouts(AdaptiveOptions options, std::chrono::milliseconds fallback,
                   runtime::Registry* metrics);
  ~AdaptiveTimeouts();
  AdaptiveTimeouts(const AdaptiveTimeouts&) = delete;
  AdaptiveTimeouts& operator=(const AdaptiveTimeouts&) = delete;

  struct Window {
    std::chrono::milliseconds timeout{0};
    bool probe = false;  // a probe's timeout is `max`
  };
  // The window for an operation about to begin; advances the probe schedule.
  Window begin(std::string_view service, Verb verb);
  // The current timeout (not a probe's).
  std::chrono::milliseconds current(std::string_view service, Verb verb) const;
  // The operation reached a terminal state `duration` after it began.
  void finished(std::string_view service, Verb verb, std::chrono::microseconds duration);
  // The operation was parked while still running `elapsed` after it began.
  void parked(std::string_view service, Verb verb, std::chrono::microseconds elapsed);
  std::size_t sampleCount(std::string_view service, Verb verb) const;

  const AdaptiveOptions& options() const { return options_; }

 private:
  struct Slot;
  Slot& slot(std::string_view service, Verb verb) const;
  void record(std::string_view service, Verb verb, DurationSample sample);

  // Fixed after construction.
  const AdaptiveOptions options_;
  const std::chrono::milliseconds fallback_;
  runtime::Family<runtime::Gauge>* gauge_;  // null without metrics

  mutable std::mutex mu_;
  // GUARDED_BY(mu_); slots are never erased, so references to them stay valid.
  mutable std::map<std::string, std::unique_ptr<Slot>, std::less<>> slots_;
};

}  // namespace nodewright::lro
