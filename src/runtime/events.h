#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "api/core/event.h"
#include "api/object.h"
#include "core/clock.h"
#include "core/token_bucket.h"
#include "kube/client.h"

// Kubernetes Events for objects, as client-go's EventRecorder with its correlator: the same
// event repeated within 10 minutes bumps count and lastTimestamp of one Event instead of
// creating another, and a per-object token bucket (burst 25, one per 5 minutes) keeps a looping
// controller from flooding the API server. Sending never blocks the caller.
namespace nodewright::runtime {

enum class EventType { Normal, Warning };

struct EventRecorderOptions {
  std::string component;  // source.component / reportingController
  std::string host;
  int burst = 25;
  std::chrono::seconds refill{300};
  std::chrono::minutes aggregationWindow{10};
};

// Thread-safe. Events go out in the order they were recorded, from one sender thread; an event
// that cannot be written after a few attempts is logged and dropped.
class EventRecorder {
 public:
  // client and clock must outlive the recorder.
  EventRecorder(kube::Client& client, const core::Clock& clock, EventRecorderOptions options);
  ~EventRecorder();  // flushes what is queued, then stops the sender thread

  // Queues an event about `object` and returns at once; over the object's rate limit (or with
  // kMaxQueued waiting) it is dropped and counted.
  void event(const api::Object& object, EventType type, const std::string& reason,
             const std::string& message);

  // Waits until queued events are written (tests, shutdown).
  void flush();

  static constexpr size_t kMaxQueued = 1000;  // client-go's broadcaster queue length

  struct Stats {
    uint64_t created = 0;
    uint64_t aggregated = 0;  // repeats that patched an existing Event
    uint64_t dropped = 0;     // over the rate limit, or the queue was full
  };
  Stats stats() const;

 private:
  struct Pending {
    api::corev1::Event event;  // count 1, named; first and last timestamp are the event's time
    std::string key;           // correlation key
    std::chrono::steady_clock::time_point at;
  };
  // What we last wrote for a correlation key (sender thread only).
  struct Written {
    std::string name;
    std::string ns;
    api::corev1::Event event;
    std::chrono::steady_clock::time_point last;
  };
  struct Bucket {
    std::unique_ptr<core::TokenBucket> tokens;
    std::chrono::steady_clock::time_point lastUsed;
  };

  void sendLoop();
  void send(Pending&& pending);
  bool create(api::corev1::Event event, const std::string& key,
              std::chrono::steady_clock::time_point at);
  bool takeToken(const std::string& objectKey, std::chrono::steady_clock::time_point now);
  // Retries transient failures a few times; false when the write did not happen.
  template <class F>
  auto withRetry(F&& write) -> decltype(write());
  std::string uniqueSuffix();

  // Fixed after construction.
  kube::Client& client_;
  const core::Clock& clock_;
  const EventRecorderOptions options_;
  kube::Typed<api::corev1::Event> events_;

  mutable std::mutex mu_;
  std::condition_variable wake_;           // queued, or stopping
  std::condition_variable idle_;           // queue drained
  std::deque<Pending> queue_;              // GUARDED_BY(mu_)
  bool busy_ = false;                      // GUARDED_BY(mu_): the sender holds an event
  bool stopping_ = false;                  // GUARDED_BY(mu_)
  std::map<std::string, Bucket> buckets_;  // GUARDED_BY(mu_): per involved object
  Stats stats_;                            // GUARDED_BY(mu_)
  std::mt19937_64 random_;                 // GUARDED_BY(mu_)

  std::map<std::string, Written> written_;  // sender thread only

  std::thread sender_;  // last: starts once everything above exists
};

}  // namespace nodewright::runtime
