#include "core/sleep.h"

#include <condition_variable>
#include <mutex>

namespace nodewright::core {

void sleepFor(const Clock& clock, std::chrono::nanoseconds duration) {
  if (duration <= std::chrono::nanoseconds::zero()) {
    return;
  }
  const auto deadline =
      clock.steadyNow() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(duration);
  // Nobody notifies: the wait ends by the clock alone.
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock lock(mu);
  while (clock.steadyNow() < deadline) {
    clock.waitUntil(lock, cv, deadline);
  }
}

}  // namespace nodewright::core
