#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/error.h"

namespace nodewright::core {

using TimePoint = std::chrono::time_point<std::chrono::system_clock, std::chrono::microseconds>;

// A metav1.Time: RFC 3339 in UTC. Formats with second precision unless it has sub-second
// parts (then microseconds, like metav1.MicroTime).
class Time {
 public:
  Time() = default;
  explicit Time(TimePoint point) : point_(point) {}

  // Accepts RFC 3339 with 'Z' or a numeric offset and optional fraction.
  static Result<Time> parse(std::string_view text);

  TimePoint point() const { return point_; }
  bool isZero() const { return point_.time_since_epoch().count() == 0; }
  std::string toString() const;

  auto operator<=>(const Time& other) const = default;

 private:
  TimePoint point_{};
};

}  // namespace nodewright::core
