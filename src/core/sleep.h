#pragma once

#include <chrono>

#include "core/clock.h"

namespace nodewright::core {

// Blocks until `clock` has moved `duration` on (steady time). With a FakeClock that is when
// advance() has passed the deadline, so tests run backoffs without waiting for them.
void sleepFor(const Clock& clock, std::chrono::nanoseconds duration);

}  // namespace nodewright::core
