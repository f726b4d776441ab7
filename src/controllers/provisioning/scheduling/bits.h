#pragma once

#include <bit>
#include <cstdint>
#include <vector>

// A dense set of small indices (instance types of a pool, claims of a pass). Sets of the same
// universe are combined word by word, which is what makes narrowing a claim's 400 instance
// types a handful of instructions.
namespace nodewright::controllers::provisioning::scheduling {

class Bits {
 public:
  Bits() = default;
  explicit Bits(size_t size, bool value = false)
      : size_(size), words_((size + 63) / 64, value ? ~uint64_t{0} : 0) {
    trim();
  }

  size_t size() const { return size_; }
  bool test(size_t i) const { return i < size_ && (words_[i / 64] >> (i % 64)) & 1; }
  void set(size_t i) {
    grow(i + 1);
    words_[i / 64] |= uint64_t{1} << (i % 64);
  }
  void reset(size_t i) {
    if (i < size_) {
      words_[i / 64] &= ~(uint64_t{1} << (i % 64));
    }
  }
  void grow(size_t size) {
    if (size > size_) {
      size_ = size;
      words_.resize((size + 63) / 64, 0);
    }
  }
  bool any() const {
    for (uint64_t w : words_) {
      if (w) {
        return true;
      }
    }
    return false;
  }
  size_t count() const {
    size_t n = 0;
    for (uint64_t w : words_) {
      n += std::popcount(w);
    }
    return n;
  }
  // Both sets must share a universe size.
  Bits& operator&=(const Bits& o) {
    for (size_t i = 0; i < words_.size(); ++i) {
      words_[i] &= i < o.words_.size() ? o.words_[i] : 0;
    }
    return *this;
  }
  Bits& operator|=(const Bits& o) {
    grow(o.size_);
    for (size_t i = 0; i < o.words_.size(); ++i) {
      words_[i] |= o.words_[i];
    }
    return *this;
  }
  Bits operator~() const {
    Bits out = *this;
    for (uint64_t& w : out.words_) {
      w = ~w;
    }
    out.trim();
    return out;
  }
  bool operator==(const Bits&) const = default;

  // Calls f(i) for every member in increasing order; f returns false to stop.
  template <class F>
  void forEach(F&& f) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      for (uint64_t bits = words_[w]; bits; bits &= bits - 1) {
        if (!f(w * 64 + std::countr_zero(bits))) {
          return;
        }
      }
    }
  }
  const std::vector<uint64_t>& words() const { return words_; }

 private:
  void trim() {
    if (size_ % 64 && !words_.empty()) {
      words_.back() &= (uint64_t{1} << (size_ % 64)) - 1;
    }
  }

  size_t size_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace nodewright::controllers::provisioning::scheduling
