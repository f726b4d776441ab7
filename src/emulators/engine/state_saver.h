#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "api/reflect/json.h"
#include "core/clock.h"
#include "core/error.h"

namespace nodewright::emulators {

// Keeps an emulator's state file in step with its state, from a thread of its own: at most once
// per `interval` (monotonic time of the injected clock), when the state's generation has moved
// since the last save, it takes a snapshot and writes it atomically (writeStateFile). Requests
// are held up only while the snapshot copies the state, never by the encoding or the disk.
//
// The crash window: a process killed without stop() loses the changes of the last interval plus
// the duration of one save; the file then holds an earlier complete state. A snapshot taken
// while a request is half done (EC2 takes a subnet's addresses, then creates the instances) is
// superseded by the next save, so only a crash between the two leaves that half in the file.
//
// Thread-safe; `clock` must outlive it.
class StateSaver {
 public:
  struct Source {
    // Changes whenever the state does (ResourceStore::generation() and the like).
    std::function<uint64_t()> generation;
    // The document to write; called on the saver's thread or in stop().
    std::function<core::Result<api::Json>()> snapshot;
  };

  StateSaver(const core::Clock& clock, std::string path, Source source,
             std::chrono::milliseconds interval = std::chrono::seconds(1));
  ~StateSaver();  // stop() unless stopped
  StateSaver(const StateSaver&) = delete;
  StateSaver& operator=(const StateSaver&) = delete;

  // Starts the thread; the state as of now counts as saved (it was just restored or seeded).
  void start();
  // Ends the thread, then saves once more whatever changed. Idempotent; the error of that save.
  core::Status stop();
  // Saves now, on the caller's thread.
  core::Status saveNow();

  const std::string& path() const { return path_; }
  // Completed saves (tests).
  uint64_t saves() const;

 private:
  // Saves, when changed, at `next` and then every interval.
  void run(std::chrono::steady_clock::time_point next);

  const core::Clock& clock_;
  const std::string path_;
  const Source source_;
  const std::chrono::milliseconds interval_;

  std::mutex saveMu_;  // one save at a time
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;         // GUARDED_BY(mu_)
  bool stopped_ = false;          // GUARDED_BY(mu_)
  uint64_t savedGeneration_ = 0;  // GUARDED_BY(mu_)
  uint64_t saves_ = 0;            // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace nodewright::emulators
