#include "cloud/aws/instance/batcher.h"

#include <algorithm>

namespace nodewright::cloud::aws {

std::chrono::steady_clock::time_point batchDeadline(std::chrono::steady_clock::time_point first,
                                                    std::chrono::steady_clock::time_point last,
                                                    const BatcherOptions& options) {
  // A steady trickle of callers would keep resetting the idle window; `max` caps the wait of
  // the first of them.
  return std::min(last + options.idle, first + options.max);
}

}  // namespace nodewright::cloud::aws
