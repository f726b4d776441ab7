#pragma once

#include <cstdint>
#include <string_view>

namespace nodewright::core {

// FNV-1a 64-bit, used for deterministic content hashes (drift). Stable across runs and
// platforms; not for security.
class Hasher {
 public:
  void addBytes(std::string_view bytes) {
    for (unsigned char c : bytes) {
      state_ ^= c;
      state_ *= kPrime;
    }
  }
  // Length-prefixed, so ("ab","c") and ("a","bc") differ.
  void addString(std::string_view s) {
    addU64(s.size());
    addBytes(s);
  }
  void addU64(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      state_ ^= static_cast<unsigned char>(v >> (i * 8));
      state_ *= kPrime;
    }
  }
  void addTag(char tag) { addBytes(std::string_view(&tag, 1)); }
  uint64_t value() const { return state_; }

 private:
  static constexpr uint64_t kOffset = 14695981039346656037ULL;
  static constexpr uint64_t kPrime = 1099511628211ULL;
  uint64_t state_ = kOffset;
};

}  // namespace nodewright::core
