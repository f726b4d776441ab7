#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"
#include "core/error.h"
#include "emulators/engine/random.h"

namespace nodewright::emulators {

// A distribution of emulated durations. Written in configuration as a duration string
// ("30s", fixed), {min, max} (uniform) or {p50, p99} (log-normal with that median and 99th
// percentile: cloud latencies have a long right tail).
struct Latency {
  enum class Kind { Fixed, Uniform, LogNormal };

  Kind kind = Kind::Fixed;
  std::chrono::microseconds value{0};  // Fixed
  std::chrono::microseconds min{0};    // Uniform
  std::chrono::microseconds max{0};
  std::chrono::microseconds p50{0};  // LogNormal
  std::chrono::microseconds p99{0};

  static Latency fixed(std::chrono::microseconds d);
  // REQUIRES: 0 <= min <= max.
  static Latency uniform(std::chrono::microseconds min, std::chrono::microseconds max);
  // REQUIRES: 0 < p50 <= p99.
  static Latency logNormal(std::chrono::microseconds p50, std::chrono::microseconds p99);

  bool operator==(const Latency&) const = default;
};

std::optional<Latency> parseLatency(const api::Json& value, const api::FieldPath& path,
                                    api::FieldErrors& errors);
api::Json toJson(const Latency& latency);

// Draws one duration from `latency` using `random`.
std::chrono::microseconds draw(const Latency& latency, RandomStream& random);

// Emulated durations per operation ("ec2:RunInstances:pending->running"), drawn from seeded
// per-operation streams: the same seed and the same calls per operation give the same values
// whatever the interleaving across operations. Callers store the resulting due times; nothing
// sleeps. Thread-safe.
class LatencyModel {
 public:
  // `fallback` is used for operations without their own entry.
  explicit LatencyModel(uint64_t seed, Latency fallback = Latency::fixed({}));

  void set(std::string op, Latency latency);
  // Replaces every entry with a configuration object {op: latency}; on error nothing changes
  // and the message names the field path under `root`.
  core::Status configure(const api::Json& value, const api::FieldPath& root = {});

  Latency lookup(std::string_view op) const;
  // The next emulated duration for `op` from its configured distribution.
  std::chrono::microseconds sample(std::string_view op);
  // The next emulated duration for `op` from `latency` (a forced one), on op's stream.
  std::chrono::microseconds sample(std::string_view op, const Latency& latency);

  api::Json toJson() const;

 private:
  RandomStream& streamLocked(std::string_view op);

  const uint64_t seed_;
  mutable std::mutex mu_;
  Latency fallback_;
  std::map<std::string, Latency, std::less<>> entries_;
  std::map<std::string, RandomStream, std::less<>> streams_;
};

}  // namespace nodewright::emulators
