#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "aws/error.h"
#include "core/time.h"
#include "emulators/engine/scaled_clock.h"

// The emulator's SQS standard queues, apart from any protocol: queues by name, messages with
// their visibility, and long polling. Durations (visibility timeouts, waits) are emulated and
// pass as ScaledClock says; timestamps are the clock's. Thread-safe.
namespace nodewright::emulators::ec2 {

// SQS's limits and defaults (Amazon SQS Developer Guide, "Quotas").
inline constexpr int kSqsMaxReceive = 10;
inline constexpr int kSqsMaxWaitSeconds = 20;
inline constexpr int kSqsMaxVisibilitySeconds = 12 * 60 * 60;
inline constexpr int kSqsDefaultVisibilitySeconds = 30;
inline constexpr size_t kSqsMaxBodyBytes = 256 * 1024;

struct SqsReceived {
  std::string messageId;
  std::string receiptHandle;
  std::string body;
  std::string md5OfBody;  // hex, as SQS answers MD5OfBody
  core::TimePoint sent;
  int receiveCount = 0;  // including this receive
  core::TimePoint firstReceived;
};

struct SqsReceive {
  int maxMessages = 1;  // 1..10
  // -1: the queue's ReceiveMessageWaitTimeSeconds.
  int waitSeconds = -1;
  // -1: the queue's VisibilityTimeout.
  int visibilitySeconds = -1;
};

class SqsQueues {
 public:
  // `time` must outlive the queues.
  explicit SqsQueues(const ScaledClock& time);

  // Creates the queue, or succeeds for an existing one with the same attributes
  // (QueueAlreadyExists when they differ, as SQS). Attributes: VisibilityTimeout,
  // ReceiveMessageWaitTimeSeconds, MessageRetentionPeriod, DelaySeconds (the latter two
  // recorded, not applied), others InvalidAttributeName.
  aws::ApiResult<void> create(std::string_view name,
                              const std::map<std::string, std::string, std::less<>>& attributes);
  bool exists(std::string_view name) const;
  // The message id. Wakes receivers waiting on the queue.
  aws::ApiResult<std::string> send(std::string_view name, std::string body);
  // Up to maxMessages visible messages, hidden for the visibility timeout. With none visible,
  // waits (long polling) until one is sent, a hidden one comes back, the wait passes, or
  // shutdown(); the wait blocks on a condition variable, it never spins.
  aws::ApiResult<std::vector<SqsReceived>> receive(std::string_view name, SqsReceive options);
  // Deletes the message the receipt handle came from. A handle of a message already deleted
  // succeeds, as SQS; a handle that is not one of this queue's is ReceiptHandleIsInvalid.
  aws::ApiResult<void> remove(std::string_view name, std::string_view receiptHandle);

  // Messages in the queue, visible or not (ApproximateNumberOfMessages plus NotVisible).
  size_t depth(std::string_view name) const;
  // Receivers return at once from now on (the server is stopping).
  void shutdown();

 private:
  struct Message {
    std::string id;
    std::string body;
    std::string md5;
    core::TimePoint sent;
    core::TimePoint visibleAt;  // hidden until then
    int receiveCount = 0;
    uint64_t lastReceipt = 0;
    core::TimePoint firstReceived;
  };
  struct Queue {
    std::map<std::string, std::string, std::less<>> attributes;
    int visibilitySeconds = kSqsDefaultVisibilitySeconds;
    int waitSeconds = 0;
    std::deque<Message> messages;  // in send order
  };

  // Takes up to `max` visible messages of `queue`; the earliest time a hidden one comes back
  // goes to `nextVisible` (unchanged when none is hidden).
  std::vector<SqsReceived> takeLocked(Queue& queue, int max, int visibilitySeconds,
                                      core::TimePoint& nextVisible);

  const ScaledClock& time_;
  mutable std::mutex mu_;
  std::condition_variable sent_;
  std::map<std::string, Queue, std::less<>> queues_;  // GUARDED_BY(mu_)
  uint64_t nextId_ = 1;                               // GUARDED_BY(mu_)
  bool stopping_ = false;                             // GUARDED_BY(mu_)
};

// The hex MD5 of `text`, as SQS reports MD5OfBody (clients check it).
std::string sqsMd5Hex(std::string_view text);

}  // namespace nodewright::emulators::ec2
