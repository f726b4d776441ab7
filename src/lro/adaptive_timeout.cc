#include "lro/adaptive_timeout.h"

#include <algorithm>
#include <utility>

namespace nodewright::lro {

using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

AdaptiveOptions normalized(AdaptiveOptions options) {
  options.max = std::max(options.max, options.min);
  options.quantile = std::clamp(options.quantile, 0.0, 1.0);
  return options;
}

}  // namespace

namespace {

// Above `max` an operation is slow, not quick: it counts as still running at max.
DurationSample normalize(DurationSample s, microseconds max) {
  if (s.duration > max) {
    s.duration = max;
    s.finished = false;
  }
  return s;
}

// Finished before censored at equal times: a sample censored at t was still at risk at t.
bool before(const DurationSample& a, const DurationSample& b) {
  return a.duration != b.duration ? a.duration < b.duration : a.finished && !b.finished;
}

// Walks the product-limit estimate of F(t) = P(duration <= t) over `sorted` samples, calling
// visit(t, F(t)) at each finishing time until it returns true.
template <class Visit>
void walkProductLimit(const std::vector<DurationSample>& sorted, Visit visit) {
  double survival = 1.0;
  std::size_t atRisk = sorted.size();
  for (std::size_t i = 0; i < sorted.size();) {
    microseconds t = sorted[i].duration;
    std::size_t finished = 0;
    std::size_t censored = 0;
    for (; i < sorted.size() && sorted[i].duration == t; ++i) {
      ++(sorted[i].finished ? finished : censored);
    }
    if (finished > 0) {
      survival *= 1.0 - static_cast<double>(finished) / static_cast<double>(atRisk);
      if (visit(t, 1.0 - survival)) {
        return;
      }
    }
    atRisk -= finished + censored;
  }
}

// quickQuantile over normalized samples sorted by before(); no allocation.
std::optional<microseconds> sortedQuickQuantile(const std::vector<DurationSample>& sorted,
                                                double quantile) {
  std::optional<std::pair<microseconds, double>> last;
  walkProductLimit(sorted, [&](microseconds t, double f) {
    last.emplace(t, f);
    return false;
  });
  if (!last) {
    return std::nullopt;
  }
  // Among the operations that finish within max (a fraction F(max) of all), the quantile.
  const double target = quantile * last->second * (1 - 1e-12);
  microseconds found = last->first;
  walkProductLimit(sorted, [&](microseconds t, double f) {
    found = t;
    return f >= target;
  });
  return found;
}

}  // namespace

std::optional<microseconds> quickQuantile(std::vector<DurationSample> samples, double quantile,
                                          microseconds max) {
  for (DurationSample& s : samples) {
    s = normalize(s, max);
  }
  std::sort(samples.begin(), samples.end(), before);
  return sortedQuickQuantile(samples, quantile);
}

struct AdaptiveTimeouts::Slot {
  std::mutex mu;
  std::vector<DurationSample> ring;    // GUARDED_BY(mu): in arrival order, normalized
  std::vector<DurationSample> sorted;  // GUARDED_BY(mu): the same samples, by before()
  std::size_t next = 0;                // GUARDED_BY(mu): where the next sample goes once full
  uint64_t begins = 0;                 // GUARDED_BY(mu)
  milliseconds current{0};             // GUARDED_BY(mu)
  runtime::Gauge* gauge = nullptr;     // fixed after creation
};

AdaptiveTimeouts::AdaptiveTimeouts(AdaptiveOptions options, milliseconds fallback,
                                   runtime::Registry* metrics)
    : options_(normalized(std::move(options))),
      fallback_(fallback),
      gauge_(metrics == nullptr
                 ? nullptr
                 : &metrics->gauge("nodewright_lro_call_timeout_seconds",
                                   "How long an operation is polled before it is parked as a "
                                   "future, per service and verb (adaptive unless disabled).",
                                   {"service", "verb"})) {}

AdaptiveTimeouts::~AdaptiveTimeouts() = default;

AdaptiveTimeouts::Slot& AdaptiveTimeouts::slot(std::string_view service, Verb verb) const {
  std::string key(service);
  key += ' ';
  key += verbName(verb);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(key);
  if (it != slots_.end()) {
    return *it->second;
  }
  auto fresh = std::make_unique<Slot>();
  fresh->current = fallback_;
  if (gauge_ != nullptr) {
    fresh->gauge = &gauge_->with({std::string(service), verbName(verb)});
    fresh->gauge->set(std::chrono::duration<double>(fallback_).count());
  }
  return *slots_.emplace(std::move(key), std::move(fresh)).first->second;
}

AdaptiveTimeouts::Window AdaptiveTimeouts::begin(std::string_view service, Verb verb) {
  Window w;
  w.timeout = fallback_;
  // Created even when off: the slot exports the call timeout in use.
  Slot& s = slot(service, verb);
  if (!options_.enabled) {
    return w;
  }
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.begins;
  w.timeout = s.current;
  if (options_.probeEvery > 0 && s.begins % options_.probeEvery == 0 && options_.max > s.current) {
    w.timeout = options_.max;
    w.probe = true;
  }
  return w;
}

milliseconds AdaptiveTimeouts::current(std::string_view service, Verb verb) const {
  if (!options_.enabled) {
    return fallback_;
  }
  Slot& s = slot(service, verb);
  std::lock_guard<std::mutex> lock(s.mu);
  return s.current;
}

void AdaptiveTimeouts::finished(std::string_view service, Verb verb, microseconds duration) {
  record(service, verb, DurationSample{duration, true});
}

void AdaptiveTimeouts::parked(std::string_view service, Verb verb, microseconds elapsed) {
  record(service, verb, DurationSample{elapsed, false});
}

std::size_t AdaptiveTimeouts::sampleCount(std::string_view service, Verb verb) const {
  Slot& s = slot(service, verb);
  std::lock_guard<std::mutex> lock(s.mu);
  return s.ring.size();
}

void AdaptiveTimeouts::record(std::string_view service, Verb verb, DurationSample sample) {
  if (!options_.enabled || options_.window == 0) {
    return;
  }
  sample = normalize(sample, options_.max);
  Slot& s = slot(service, verb);
  std::lock_guard<std::mutex> lock(s.mu);
  // The sorted copy is kept up to date by insertion and removal so that each estimate is a
  // linear pass rather than a sort.
  if (s.ring.size() < options_.window) {
    s.ring.push_back(sample);
  } else {
    DurationSample evicted = s.ring[s.next];
    s.sorted.erase(std::lower_bound(s.sorted.begin(), s.sorted.end(), evicted, before));
    s.ring[s.next] = sample;
    s.next = (s.next + 1) % options_.window;
  }
  s.sorted.insert(std::upper_bound(s.sorted.begin(), s.sorted.end(), sample, before), sample);
  if (s.ring.size() < options_.minSamples) {
    return;
  }
  std::optional<microseconds> q = sortedQuickQuantile(s.sorted, options_.quantile);
  // Rounded up: a window a hair short of the quantile misses the operations at it.
  milliseconds next = q ? std::chrono::ceil<milliseconds>(*q) : options_.min;
  s.current = std::clamp(next, options_.min, options_.max);
  if (s.gauge != nullptr) {
    s.gauge->set(std::chrono::duration<double>(s.current).count());
  }
}

}  // namespace nodewright::lro
