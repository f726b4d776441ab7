#pragma once

#include <cstdint>
#include <string_view>

#include "core/hash.h"

namespace nodewright::emulators {

// A small deterministic random stream (SplitMix64). Its output is fixed by the seed on every
// platform, unlike the standard library's distributions, so a seeded run injects the same
// faults and latencies everywhere. Not thread-safe; owners guard it.
class RandomStream {
 public:
  explicit RandomStream(uint64_t seed = 0) : state_(seed) {}

  // An independent stream per name (an action, an operation), so the values one name sees do
  // not depend on how calls to other names interleave with it.
  static RandomStream named(uint64_t seed, std::string_view name) {
    core::Hasher h;
    h.addU64(seed);
    h.addString(name);
    return RandomStream(h.value());
  }

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1), 53 bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Where the stream stands: RandomStream(state()) continues it (a restored emulator draws
  // new values, not the ones it drew before).
  uint64_t state() const { return state_; }

 private:
  uint64_t state_;
};

}  // namespace nodewright::emulators
