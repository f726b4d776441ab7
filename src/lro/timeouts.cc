#include "lro/timeouts.h"

#include <algorithm>

namespace nodewright::lro {

std::chrono::milliseconds Deadline::remaining(const core::Clock& clock) const {
  if (isNone()) {
    return std::chrono::milliseconds::max();
  }
  SteadyTime now = clock.steadyNow();
  if (now >= time_) {
    return std::chrono::milliseconds(0);
  }
  // Rounded down: a request must not be allowed past the deadline.
  return std::chrono::duration_cast<std::chrono::milliseconds>(time_ - now);
}

std::chrono::milliseconds Deadline::within(std::chrono::milliseconds limit,
                                           const core::Clock& clock) const {
  return std::min(limit, remaining(clock));
}

}  // namespace nodewright::lro
