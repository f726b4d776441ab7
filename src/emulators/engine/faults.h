#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "core/error.h"
#include "emulators/engine/latency.h"
#include "emulators/engine/random.h"

namespace nodewright::emulators {

// An error injected into a share of an action's requests.
struct ErrorRule {
  std::string code;     // the cloud's error code, "InternalError"
  std::string message;  // empty: the emulator's usual message for the code
  double probability = 0;
  int status = 0;  // HTTP status; 0: the emulator's usual status for the code
  bool operator==(const ErrorRule&) const = default;
};

// A capacity pool out of capacity. Empty or "*" fields match any value. Without `remaining`
// the pool has no capacity; with it, that many more launches succeed first.
struct CapacityPool {
  std::string instanceType;
  std::string zone;
  std::string capacityType;  // "on-demand", "spot"
  std::optional<int64_t> remaining;
  bool operator==(const CapacityPool&) const = default;
};

// What the emulator gets wrong on purpose. Written in YAML (a file) or JSON (PUT /admin/faults):
//
//   seed: 7
//   errors:                         # by action; "*" applies to actions without their own
//     RunInstances:
//       - {code: InternalError, probability: 0.1}
//   capacity:
//     - {instanceType: p5.48xlarge, zone: us-east-1a, capacityType: on-demand}
//     - {instanceType: m5.large, capacityType: spot, remaining: 3}
//   latencies:                      # forced, replacing the latency model's
//     "ec2:RunInstances:pending->running": {p50: 30s, p99: 2m}
//   throttling: false               # default true
struct FaultConfig {
  uint64_t seed = 1;
  std::map<std::string, std::vector<ErrorRule>, std::less<>> errors;
  std::vector<CapacityPool> capacity;
  std::map<std::string, Latency, std::less<>> latencies;
  bool throttling = true;
  bool operator==(const FaultConfig&) const = default;
};

// Invalid with every problem's field path ("errors.RunInstances[0].probability: ...").
core::Result<FaultConfig> parseFaultConfig(const api::Json& value);
// One YAML or JSON document.
core::Result<FaultConfig> parseFaultConfigText(std::string_view text);
api::Json toJson(const FaultConfig& config);

struct InjectedError {
  std::string code;
  std::string message;
  int status = 0;
};

struct CapacityKey {
  std::string_view instanceType;
  std::string_view zone;
  std::string_view capacityType;
};

// What the configuration leaves a capacity pool: the first matching entry decides, so a narrow
// pool listed first can carve out an exception from a broad one after it. nullopt when no entry
// matches (unlimited).
std::optional<int64_t> remainingCapacity(const FaultConfig& config, const CapacityKey& key);

// The live fault configuration and the state it implies (random streams, remaining launches
// per pool). replace() swaps the whole configuration at once, so a request sees either the old
// or the new one. Rolls are deterministic per action: with a fixed seed, the n-th request of an
// action gets the same outcome in every run, however other actions interleave. Thread-safe.
class Faults {
 public:
  explicit Faults(FaultConfig config = {});

  // Resets the random streams and the remaining launches to the new configuration's.
  void replace(FaultConfig config);
  // Parses and replaces; on error the current configuration stays.
  core::Status replace(const api::Json& value);

  // The configuration, with each pool's remaining launches as they are now.
  FaultConfig config() const;

  // An error to return for this request of `action`, if the roll says so.
  std::optional<InjectedError> roll(std::string_view action);
  // How many of `wanted` launches the pool has capacity for; takes them from the pool. Takes
  // none, atomically, when fewer than `atLeast` are left (a launch's MinCount).
  int64_t takeCapacity(const CapacityKey& key, int64_t wanted, int64_t atLeast = 0);
  // Gives back launches taken that did not happen (the subnet ran out of addresses).
  void returnCapacity(const CapacityKey& key, int64_t launches);
  std::optional<Latency> forcedLatency(std::string_view op) const;
  bool throttling() const;

 private:
  // The pool that decides for `key`, or nullptr when none matches (unlimited).
  CapacityPool* poolLocked(const CapacityKey& key);

  mutable std::mutex mu_;
  FaultConfig config_;                                        // GUARDED_BY(mu_)
  std::map<std::string, RandomStream, std::less<>> streams_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::emulators
