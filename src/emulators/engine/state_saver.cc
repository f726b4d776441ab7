#include "emulators/engine/state_saver.h"

#include "core/log.h"
#include "emulators/engine/state_file.h"

namespace nodewright::emulators {

StateSaver::StateSaver(const core::Clock& clock, std::string path, Source source,
                       std::chrono::milliseconds interval)
    : clock_(clock), path_(std::move(path)), source_(std::move(source)), interval_(interval) {}

StateSaver::~StateSaver() {
  if (auto stopped = stop(); !stopped) {
    core::logError("emulator state: final save failed", {{"error", stopped.error()}});
  }
}

void StateSaver::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || stopped_) {
    return;
  }
  savedGeneration_ = source_.generation();
  // Counted from now, not from when the thread gets going.
  const auto first = clock_.steadyNow() + interval_;
  thread_ = std::thread([this, first] { run(first); });
}

core::Status StateSaver::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopped_) {
      return core::ok();
    }
    stopping_ = true;
    stopped_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  }
  // Always written, even unchanged: it records the latest emulated time (see OffsetClock).
  return saveNow();
}

core::Status StateSaver::saveNow() {
  std::lock_guard save(saveMu_);
  // Read before the snapshot: a change while it is taken moves the generation past this one,
  // so the next round saves again.
  const uint64_t generation = source_.generation();
  auto document = source_.snapshot();
  if (!document) {
    return core::fail(document.error().wrap("saving " + path_));
  }
  if (auto written = writeStateFile(path_, *document); !written) {
    return core::fail(written.error());
  }
  std::lock_guard lock(mu_);
  savedGeneration_ = generation;
  ++saves_;
  return core::ok();
}

uint64_t StateSaver::saves() const {
  std::lock_guard lock(mu_);
  return saves_;
}

void StateSaver::run(std::chrono::steady_clock::time_point next) {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    clock_.waitUntil(lock, wake_, next);
    if (stopping_ || clock_.steadyNow() < next) {
      continue;
    }
    next = clock_.steadyNow() + interval_;
    const uint64_t saved = savedGeneration_;
    lock.unlock();
    if (source_.generation() != saved) {
      if (auto done = saveNow(); !done) {
        // Retried next round; the previous file stays as it was.
        core::logWarn("emulator state: save failed", {{"error", done.error()}});
      }
    }
    lock.lock();
  }
}

}  // namespace nodewright::emulators
