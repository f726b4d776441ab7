#pragma once

#include <chrono>

#include "core/clock.h"

// How long the futures engine may block, at three levels (seed 004, "Context timeouts"):
//   - call: one operation's window. A begun operation is polled this long before it is parked
//     as a Future; also the limit of each single request to the cloud.
//   - service: one service's share of a reconcile (all its resources together).
//   - reconcile: the whole reconcile; no service starts work once it has passed.
// Every request gets min(call, what is left of the service and reconcile deadlines).
namespace nodewright::lro {

using SteadyTime = std::chrono::steady_clock::time_point;

struct Timeouts {
  std::chrono::milliseconds call{2000};
  std::chrono::milliseconds service{12000};
  // CAPZ's loop timeout is 90 minutes, from before operations were asynchronous; the seed's
  // 15 s would leave no room after a single 12 s service. Two minutes fit about ten services
  // that each spend their whole budget, while bounding how long one object holds a worker.
  std::chrono::milliseconds reconcile{std::chrono::minutes(2)};
  // When to look again at an operation that did not say (no Retry-After).
  std::chrono::milliseconds requeue{15000};
};

// A point on the injected clock's steady time by which work must end. Value type; none() never
// expires.
class Deadline {
 public:
  static Deadline none() { return Deadline(SteadyTime::max()); }
  static Deadline at(SteadyTime time) { return Deadline(time); }
  static Deadline after(const core::Clock& clock, std::chrono::milliseconds duration) {
    return Deadline(clock.steadyNow() + duration);
  }

  SteadyTime time() const { return time_; }
  bool isNone() const { return time_ == SteadyTime::max(); }
  bool expired(const core::Clock& clock) const { return clock.steadyNow() >= time_; }
  // What is left, never negative; milliseconds::max() for none().
  std::chrono::milliseconds remaining(const core::Clock& clock) const;
  // min(limit, remaining(clock)).
  std::chrono::milliseconds within(std::chrono::milliseconds limit, const core::Clock& clock) const;
  Deadline earliest(const Deadline& other) const { return time_ <= other.time_ ? *this : other; }

 private:
  explicit Deadline(SteadyTime time) : time_(time) {}
  SteadyTime time_;
};

// The deadline of a reconcile that starts now.
inline Deadline reconcileDeadline(const core::Clock& clock, const Timeouts& timeouts) {
  return Deadline::after(clock, timeouts.reconcile);
}
// The deadline of a service that starts now within `reconcile`.
inline Deadline serviceDeadline(const core::Clock& clock, const Timeouts& timeouts,
                                const Deadline& reconcile) {
  return Deadline::after(clock, timeouts.service).earliest(reconcile);
}

}  // namespace nodewright::lro
