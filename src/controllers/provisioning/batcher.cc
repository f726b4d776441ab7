#include "controllers/provisioning/batcher.h"

#include <algorithm>

namespace nodewright::controllers::provisioning {

void Batcher::trigger() {
  const auto now = clock_.steadyNow();
  std::lock_guard lock(mu_);
  if (!first_) {
    first_ = now;
  }
  last_ = now;
}

std::optional<std::chrono::nanoseconds> Batcher::untilClosed() const {
  const auto now = clock_.steadyNow();
  std::lock_guard lock(mu_);
  if (!first_) {
    return std::nullopt;
  }
  const auto closes = std::min(last_ + windows_.idle, *first_ + windows_.max);
  return std::max(std::chrono::nanoseconds(0), closes - now);
}

void Batcher::reset() {
  std::lock_guard lock(mu_);
  first_.reset();
}

}  // namespace nodewright::controllers::provisioning
