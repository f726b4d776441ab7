// The batch window on a FakeClock: a burst becomes one run, each caller gets its own answer,
// and a batch closes on idle, on its maximum age, or when full.
#include "cloud/aws/instance/batcher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace nodewright::cloud::aws {
namespace {

using namespace std::chrono_literals;

class BatcherTest : public ::testing::Test {
 protected:
  using IntBatcher = Batcher<int>;

  IntBatcher::Run run() {
    return [this](const std::vector<std::string>& ids) {
      ++runs_;
      sizes_.push_back(ids.size());
      std::map<std::string, core::Result<int>> out;
      for (const std::string& id : ids) {
        if (id != "missing") {
          out.emplace(id, static_cast<int>(id.size()));
        }
      }
      return out;
    };
  }

  // Yields (no sleep) until `n` callers wait in the open batch.
  static void awaitWaiting(const IntBatcher& b, size_t n) {
    while (b.waitingForTest() < n) {
      std::this_thread::yield();
    }
  }

  // Whether `done` turns true within a few seconds of real time (the leader runs on its own
  // thread once the fake clock passes its deadline).
  template <class F>
  static bool eventually(F done) {
    const auto limit = std::chrono::steady_clock::now() + 10s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > limit) {
        return false;
      }
      std::this_thread::yield();
    }
    return true;
  }

  core::FakeClock clock_;
  std::atomic<int> runs_{0};
  std::vector<size_t> sizes_;  // written by the leader only, read after join
};

TEST_F(BatcherTest, ConcurrentCallsBecomeOneRunWithAnAnswerEach) {
  IntBatcher b(clock_, {}, run());
  const std::vector<std::string> ids = {"a", "bb", "ccc", "missing", "bb"};
  std::vector<core::Result<int>> answers(ids.size(), core::fail(core::Error::internal("unset")));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ids.size(); ++i) {
    threads.emplace_back([&, i] { answers[i] = b.call(ids[i]); });
  }
  awaitWaiting(b, ids.size());
  EXPECT_EQ(runs_, 0);  // nothing runs before the idle window passes
  clock_.advance(100ms);
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(runs_, 1);
  EXPECT_EQ(sizes_, std::vector<size_t>{4});  // "bb" asked for once
  EXPECT_EQ(answers[0], 1);
  EXPECT_EQ(answers[1], 2);
  EXPECT_EQ(answers[2], 3);
  ASSERT_FALSE(answers[3]);
  EXPECT_TRUE(answers[3].error().is(core::Code::NotFound));
  EXPECT_EQ(answers[4], 2);
}

TEST_F(BatcherTest, ATrickleOfCallersIsCutOffAtMaxAge) {
  IntBatcher b(clock_, {100ms, 250ms, 500}, run());
  std::vector<std::thread> threads;
  // A caller every 90 ms would keep the idle window open for ever.
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] { (void)b.call(std::string(static_cast<size_t>(i + 1), 'x')); });
    awaitWaiting(b, static_cast<size_t>(i + 1));
    if (i < 2) {
      clock_.advance(90ms);
    }
  }
  clock_.advance(70ms);  // 250 ms after the first: 70 ms after the last, inside its idle window
  EXPECT_TRUE(eventually([&] { return runs_ == 1; }));
  clock_.advance(1s);  // had the cap failed, this lets the callers go anyway
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(sizes_, std::vector<size_t>{3});
}

TEST_F(BatcherTest, AFullBatchRunsAtOnceAndTheNextCallerStartsAnother) {
  IntBatcher b(clock_, {1h, 1h, 2}, run());
  std::thread first([&] { (void)b.call("a"); });
  awaitWaiting(b, 1);
  std::thread second([&] { (void)b.call("b"); });
  first.join();  // full at two: no clock advance needed
  second.join();
  EXPECT_EQ(runs_, 1);
  EXPECT_EQ(b.waitingForTest(), 0u);
}

TEST_F(BatcherTest, ZeroWindowRunsEachCallAlone) {
  IntBatcher b(clock_, {0ms, 0ms, 500}, run());
  EXPECT_EQ(b.call("a"), 1);
  EXPECT_EQ(b.call("bb"), 2);
  EXPECT_EQ(runs_, 2);
}

}  // namespace
}  // namespace nodewright::cloud::aws
