#include "emulators/engine/offset_clock.h"

namespace nodewright::emulators {

void OffsetClock::continueFrom(core::TimePoint point) {
  const auto behind = point - now();
  if (behind.count() > 0) {
    offset_.fetch_add(behind.count(), std::memory_order_relaxed);
  }
}

}  // namespace nodewright::emulators
