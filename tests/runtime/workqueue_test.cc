#include "runtime/workqueue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "runtime/metrics.h"

namespace nodewright::runtime {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

class WorkQueueTest : public ::testing::Test {
 protected:
  QueueOptions options(Registry* metrics = nullptr) {
    QueueOptions o;
    o.name = "test";
    o.metrics = metrics;
    return o;
  }

  // Blocks until `n` get() calls are blocked on `q` (they only release the lock by waiting).
  static void awaitBlockedGetters(const WorkQueue& q, int n) {
    while (q.blockedGettersForTest() < n) {
      std::this_thread::yield();
    }
  }

  core::FakeClock clock_;
};

TEST_F(WorkQueueTest, DeduplicatesWaitingKeys) {
  WorkQueue q(clock_, options());
  q.add("a");
  q.add("b");
  q.add("a");
  EXPECT_EQ(q.length(), 2u);
  EXPECT_EQ(q.tryGet(), "a");
  EXPECT_EQ(q.tryGet(), "b");
  EXPECT_EQ(q.tryGet(), std::nullopt);
}

TEST_F(WorkQueueTest, KeyAddedWhileProcessingIsQueuedAgainOnDone) {
  WorkQueue q(clock_, options());
  q.add("a");
  ASSERT_EQ(q.tryGet(), "a");
  q.add("a");
  q.add("a");
  // Not handed to another worker while the first one still has it.
  EXPECT_EQ(q.length(), 0u);
  EXPECT_EQ(q.tryGet(), std::nullopt);
  q.done("a");
  EXPECT_EQ(q.length(), 1u);
  EXPECT_EQ(q.tryGet(), "a");
  q.done("a");
  // The two adds while processing made one more round, not two.
  EXPECT_EQ(q.tryGet(), std::nullopt);
}

TEST_F(WorkQueueTest, DoneWithoutReaddDoesNotRequeue) {
  WorkQueue q(clock_, options());
  q.add("a");
  ASSERT_EQ(q.tryGet(), "a");
  q.done("a");
  EXPECT_EQ(q.length(), 0u);
  EXPECT_EQ(q.tryGet(), std::nullopt);
}

TEST_F(WorkQueueTest, RateLimitedBackoffDoublesUpToCap) {
  WorkQueue q(clock_, options());
  q.add("k");
  std::vector<nanoseconds> expected;
  for (int i = 0; i < 20; ++i) {
    expected.push_back(std::min<nanoseconds>(milliseconds(5) * (int64_t{1} << i), seconds(1000)));
  }
  ASSERT_EQ(expected[1], milliseconds(10));
  ASSERT_EQ(expected[17], milliseconds(655360));
  ASSERT_EQ(expected[18], seconds(1000));
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(q.tryGet(), "k");
    EXPECT_EQ(q.nextDelay("k"), expected[i]);
    // A failed reconcile: requeue with backoff, then finish.
    q.addRateLimited("k");
    q.done("k");
    EXPECT_EQ(q.failures("k"), static_cast<int>(i) + 1);
    EXPECT_EQ(q.delayedLength(), 1u);
    clock_.advance(std::chrono::duration_cast<microseconds>(expected[i]) - microseconds(1));
    EXPECT_EQ(q.tryGet(), std::nullopt);
    clock_.advance(microseconds(1));
    EXPECT_EQ(q.delayedLength(), 0u);
    EXPECT_EQ(q.length(), 1u);
  }
}

TEST_F(WorkQueueTest, ForgetResetsBackoff) {
  WorkQueue q(clock_, options());
  for (int i = 0; i < 3; ++i) {
    q.addRateLimited("k");
  }
  EXPECT_EQ(q.failures("k"), 3);
  EXPECT_EQ(q.nextDelay("k"), milliseconds(40));
  q.forget("k");
  EXPECT_EQ(q.failures("k"), 0);
  EXPECT_EQ(q.nextDelay("k"), milliseconds(5));
  // Drain the earlier adds (the earliest, 5 ms, wins), then retry afresh.
  clock_.advance(milliseconds(5));
  ASSERT_EQ(q.tryGet(), "k");
  q.done("k");
  q.addRateLimited("k");
  clock_.advance(milliseconds(5));
  EXPECT_EQ(q.tryGet(), "k");
}

TEST_F(WorkQueueTest, TokenBucketDelaysRetriesAfterBurst) {
  WorkQueue q(clock_, options());
  for (int i = 0; i < 100; ++i) {
    q.addRateLimited("key-" + std::to_string(i));
  }
  q.addRateLimited("key-100");
  q.addRateLimited("key-101");
  // The burst of 100 waits only for the per-item 5 ms; then one token per 100 ms.
  clock_.advance(milliseconds(5));
  EXPECT_EQ(q.length(), 100u);
  EXPECT_EQ(q.delayedLength(), 2u);
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(q.tryGet().has_value());
  }
  clock_.advance(milliseconds(95) - microseconds(1));
  EXPECT_EQ(q.tryGet(), std::nullopt);
  clock_.advance(microseconds(1));
  EXPECT_EQ(q.tryGet(), "key-100");
  clock_.advance(milliseconds(100) - microseconds(1));
  EXPECT_EQ(q.tryGet(), std::nullopt);
  clock_.advance(microseconds(1));
  EXPECT_EQ(q.tryGet(), "key-101");
}

TEST_F(WorkQueueTest, AddAfterReleasesKeysInDueOrderAndEarliestWins) {
  WorkQueue q(clock_, options());
  q.addAfter("a", milliseconds(30));
  q.addAfter("b", milliseconds(10));
  q.addAfter("c", milliseconds(20));
  q.addAfter("a", milliseconds(5));   // earlier: moves a
  q.addAfter("b", milliseconds(50));  // later: ignored
  EXPECT_EQ(q.delayedLength(), 3u);
  EXPECT_EQ(q.tryGet(), std::nullopt);

  clock_.advance(milliseconds(5));
  EXPECT_EQ(q.tryGet(), "a");
  EXPECT_EQ(q.tryGet(), std::nullopt);
  clock_.advance(milliseconds(5));
  EXPECT_EQ(q.tryGet(), "b");
  clock_.advance(milliseconds(10));
  EXPECT_EQ(q.tryGet(), "c");
  q.done("a");
  q.done("b");
  q.done("c");
  // The superseded due times (a at 30 ms, b at 50 ms) add nothing.
  clock_.advance(milliseconds(100));
  EXPECT_EQ(q.length(), 0u);
  EXPECT_EQ(q.tryGet(), std::nullopt);
}

TEST_F(WorkQueueTest, KeysDueTogetherComeOutInDueOrder) {
  WorkQueue q(clock_, options());
  q.addAfter("x", milliseconds(3));
  q.addAfter("y", milliseconds(1));
  q.addAfter("z", milliseconds(2));
  clock_.advance(milliseconds(10));
  EXPECT_EQ(q.length(), 3u);
  EXPECT_EQ(q.tryGet(), "y");
  EXPECT_EQ(q.tryGet(), "z");
  EXPECT_EQ(q.tryGet(), "x");
}

TEST_F(WorkQueueTest, AddAfterWithoutDelayAddsNow) {
  WorkQueue q(clock_, options());
  q.addAfter("a", nanoseconds(0));
  q.addAfter("b", -seconds(1));
  EXPECT_EQ(q.delayedLength(), 0u);
  EXPECT_EQ(q.length(), 2u);
}

TEST_F(WorkQueueTest, DelayedKeyAlreadyQueuedIsProcessedOnce) {
  WorkQueue q(clock_, options());
  q.add("a");
  q.addAfter("a", milliseconds(10));
  clock_.advance(milliseconds(10));
  EXPECT_EQ(q.length(), 1u);
  EXPECT_EQ(q.tryGet(), "a");
  EXPECT_EQ(q.tryGet(), std::nullopt);
}

TEST_F(WorkQueueTest, ShutdownUnblocksBlockedGet) {
  WorkQueue q(clock_, options());
  std::optional<std::string> got = "unset";
  std::thread getter([&] { got = q.get(); });
  awaitBlockedGetters(q, 1);
  q.shutdown();
  getter.join();
  EXPECT_EQ(got, std::nullopt);
  EXPECT_TRUE(q.shuttingDown());
  q.add("a");
  q.addAfter("b", nanoseconds(0));
  q.addRateLimited("c");
  EXPECT_EQ(q.length(), 0u);
  EXPECT_EQ(q.delayedLength(), 0u);
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST_F(WorkQueueTest, BlockedGetWakesWhenDelayedKeyIsDue) {
  WorkQueue q(clock_, options());
  std::optional<std::string> got;
  std::thread getter([&] { got = q.get(); });
  awaitBlockedGetters(q, 1);
  q.addAfter("a", seconds(1));
  clock_.advance(seconds(1));
  getter.join();
  EXPECT_EQ(got, "a");
}

TEST_F(WorkQueueTest, BlockedGetWakesOnAdd) {
  WorkQueue q(clock_, options());
  std::optional<std::string> got;
  std::thread getter([&] { got = q.get(); });
  awaitBlockedGetters(q, 1);
  q.add("a");
  getter.join();
  EXPECT_EQ(got, "a");
}

TEST_F(WorkQueueTest, WorkersNeverProcessTheSameKeyConcurrently) {
  constexpr int kKeys = 16;
  constexpr int kWorkers = 4;
  constexpr int kProducers = 2;
  constexpr int kAddsPerProducer = 20000;
  WorkQueue q(clock_, options());

  std::atomic<int> inFlight[kKeys] = {};
  std::atomic<int> overlaps{0};
  std::atomic<int> processed{0};
  // The last version added per key and the newest version a worker saw after taking it: once
  // all adds are done, every key must have been processed after its last add.
  std::atomic<int> added[kKeys] = {};
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> seen(kKeys, 0);  // guarded by mu

  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      while (auto key = q.get()) {
        const int k = std::stoi(*key);
        if (inFlight[k].fetch_add(1) != 0) {
          overlaps.fetch_add(1);
        }
        const int version = added[k].load();
        std::this_thread::yield();  // widen the window for an overlap
        inFlight[k].fetch_sub(1);
        processed.fetch_add(1);
        {
          std::lock_guard lock(mu);
          seen[k] = std::max(seen[k], version);
        }
        cv.notify_all();
        q.done(*key);
      }
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kAddsPerProducer; ++i) {
        const int k = (i * 7 + p) % kKeys;
        added[k].fetch_add(1);
        q.add(std::to_string(k));
      }
    });
  }
  for (auto& t : producers) {
    t.join();
  }
  {
    std::unique_lock lock(mu);
    const bool caughtUp = cv.wait_for(lock, seconds(60), [&] {
      for (int k = 0; k < kKeys; ++k) {
        if (seen[k] != added[k].load()) {
          return false;
        }
      }
      return true;
    });
    EXPECT_TRUE(caughtUp) << "an add was lost";
  }
  q.shutdown();
  for (auto& t : workers) {
    t.join();
  }
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_GE(processed.load(), kKeys);
  // De-duplication: far fewer rounds than adds is allowed, more is not.
  EXPECT_LE(processed.load(), kProducers * kAddsPerProducer);
}

TEST_F(WorkQueueTest, ReportsControllerRuntimeMetrics) {
  Registry registry;
  WorkQueue q(clock_, options(&registry));
  const Labels name{"test", "test"};
  auto& depth = registry.gauge("workqueue_depth", "", {"name", "controller", "priority"})
                    .with({"test", "test", ""});
  auto& adds = registry.counter("workqueue_adds_total", "", {"name", "controller"}).with(name);
  auto& retries =
      registry.counter("workqueue_retries_total", "", {"name", "controller"}).with(name);
  auto& queueDuration =
      registry.histogram("workqueue_queue_duration_seconds", "", {"name", "controller"}).with(name);
  auto& workDuration =
      registry.histogram("workqueue_work_duration_seconds", "", {"name", "controller"}).with(name);
  auto& unfinished =
      registry.gauge("workqueue_unfinished_work_seconds", "", {"name", "controller"}).with(name);
  auto& longest =
      registry.gauge("workqueue_longest_running_processor_seconds", "", {"name", "controller"})
          .with(name);

  q.add("a");
  q.add("a");
  q.add("b");
  EXPECT_EQ(adds.value(), 2);
  EXPECT_EQ(depth.value(), 2);

  clock_.advance(seconds(2));
  ASSERT_EQ(q.tryGet(), "a");
  EXPECT_EQ(depth.value(), 1);
  EXPECT_EQ(queueDuration.count(), 1u);
  EXPECT_DOUBLE_EQ(queueDuration.sum(), 2.0);

  clock_.advance(seconds(3));
  q.updateUnfinishedWorkMetrics();
  EXPECT_DOUBLE_EQ(unfinished.value(), 3.0);
  EXPECT_DOUBLE_EQ(longest.value(), 3.0);
  ASSERT_EQ(q.tryGet(), "b");  // waited 5 s, just started
  clock_.advance(seconds(1));
  q.addRateLimited("a");
  EXPECT_EQ(retries.value(), 1);
  q.done("a");
  EXPECT_EQ(workDuration.count(), 1u);
  EXPECT_DOUBLE_EQ(workDuration.sum(), 4.0);
  EXPECT_EQ(queueDuration.count(), 2u);
  EXPECT_DOUBLE_EQ(queueDuration.sum(), 7.0);
  // Only b is running now, for 1 s.
  EXPECT_DOUBLE_EQ(unfinished.value(), 1.0);
  EXPECT_DOUBLE_EQ(longest.value(), 1.0);

  const std::string text = registry.render();
  EXPECT_NE(
      text.find("workqueue_queue_duration_seconds_count{name=\"test\",controller=\"test\"} 2"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("workqueue_adds_total{name=\"test\",controller=\"test\"} 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("workqueue_depth{name=\"test\",controller=\"test\",priority=\"\"} 0"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace nodewright::runtime
