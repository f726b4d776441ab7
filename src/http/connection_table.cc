#include "http/connection_table.h"

#include <sys/socket.h>

#include <algorithm>

namespace nodewright::http {

struct ConnectionTable::Slot {
  int fd = -1;
  Phase phase = Phase::Idle;
  SteadyTime since{};
  SteadyTime deadline = SteadyTime::max();
};

namespace {

// Phases in which the client has not been given anything yet: closing such a connection costs
// the client at most a reconnect.
bool evictable(Phase phase) {
  return phase == Phase::Handshake || phase == Phase::Idle || phase == Phase::Header;
}

}  // namespace

ConnectionTable::ConnectionTable(const core::Clock& clock, size_t maxConnections)
    : clock_(clock), maxConnections_(std::max<size_t>(maxConnections, 1)) {
  watchdog_ = std::thread([this] { watch(); });
}

ConnectionTable::~ConnectionTable() {
  shutdownAll();
  watchdog_.join();
}

ConnectionTable::SlotPtr ConnectionTable::admit(int fd, Phase phase,
                                                std::chrono::milliseconds timeout) {
  std::lock_guard lock(mu_);
  if (stopping_) {
    return nullptr;
  }
  if (open_ >= maxConnections_) {
    Slot* oldest = nullptr;
    for (auto& slot : slots_) {
      if (evictable(slot->phase) && (!oldest || slot->since < oldest->since)) {
        oldest = slot.get();
      }
    }
    if (!oldest) {
      return nullptr;
    }
    shutDown(*oldest);
  }
  auto slot = std::make_shared<Slot>();
  slot->fd = fd;
  slot->phase = phase;
  slot->since = clock_.steadyNow();
  slot->deadline = timeout.count() > 0 ? slot->since + timeout : SteadyTime::max();
  slots_.push_back(slot);
  ++open_;
  wakeFor(slot->deadline);
  return slot;
}

bool ConnectionTable::enter(const SlotPtr& slot, Phase phase, std::chrono::milliseconds timeout) {
  std::lock_guard lock(mu_);
  if (slot->phase == Phase::Closing) {
    return false;
  }
  slot->phase = phase;
  slot->since = clock_.steadyNow();
  slot->deadline = timeout.count() > 0 ? slot->since + timeout : SteadyTime::max();
  wakeFor(slot->deadline);
  return true;
}

void ConnectionTable::release(const SlotPtr& slot) {
  std::lock_guard lock(mu_);
  if (slot->phase != Phase::Closing) {
    --open_;
  }
  slot->phase = Phase::Closing;
  slot->fd = -1;
  slots_.remove(slot);
}

void ConnectionTable::shutdownAll() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  for (auto& slot : slots_) {
    shutDown(*slot);
  }
  changed_.notify_all();
}

size_t ConnectionTable::open() const {
  std::lock_guard lock(mu_);
  return open_;
}

void ConnectionTable::shutDown(Slot& slot) {
  if (slot.phase == Phase::Closing) {
    return;
  }
  if (slot.fd >= 0) {
    ::shutdown(slot.fd, SHUT_RDWR);
  }
  slot.phase = Phase::Closing;
  slot.deadline = SteadyTime::max();
  --open_;
}

void ConnectionTable::wakeFor(SteadyTime deadline) {
  // Most phase changes move a deadline later; the watchdog only needs waking for an earlier one.
  if (deadline < nextCheck_) {
    changed_.notify_all();
  }
}

void ConnectionTable::watch() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const SteadyTime now = clock_.steadyNow();
    SteadyTime next = SteadyTime::max();
    for (auto& slot : slots_) {
      if (slot->deadline <= now) {
        shutDown(*slot);
      } else {
        next = std::min(next, slot->deadline);
      }
    }
    // Without a deadline, wait for a change; a real clock's waitUntil takes a bounded time.
    nextCheck_ = next == SteadyTime::max() ? now + std::chrono::hours(1) : next;
    clock_.waitUntil(lock, changed_, nextCheck_);
  }
}

}  // namespace nodewright::http
