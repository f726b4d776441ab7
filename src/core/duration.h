#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace nodewright::core {

// A Go time.Duration as Kubernetes and Karpenter write it ("15s", "1h30m", "300ms"),
// optionally allowing the literal "Never" (Karpenter's NillableDuration).
class Duration {
 public:
  Duration() = default;
  explicit Duration(std::chrono::nanoseconds value) : value_(value) {}

  static Duration never() {
    Duration d;
    d.never_ = true;
    return d;
  }
  // Parses Go duration syntax and "Never". Negative durations are accepted by the grammar;
  // validation decides whether a field allows them.
  static Result<Duration> parse(std::string_view text);

  bool isNever() const { return never_; }
  // The duration; zero when never.
  std::chrono::nanoseconds value() const { return value_; }

  // Go's canonical form ("1h30m0s", "0s", "Never").
  std::string toString() const;

  bool operator==(const Duration& other) const = default;

 private:
  std::chrono::nanoseconds value_{0};
  bool never_ = false;
};

}  // namespace nodewright::core
