// Watches through the Store interface: ordering, prefixes, resumption, expiry and close.
#include <thread>

#include <gtest/gtest.h>

#include "apiserver/storage/store.h"
#include "apiserver/storage/store_test_support.h"

namespace nodewright::apiserver::storage {
namespace {

using namespace std::chrono_literals;
using testing::create;
using testing::pod;
using testing::put;
using testing::remove;

// Long enough never to expire in a passing test; events are always present before next().
constexpr auto kWait = 10s;

class StoreWatchTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = open({}); }
  std::unique_ptr<Store> open(StoreOptions options) {
    auto store = openSqliteStore(path_, options);
    EXPECT_TRUE(store) << store.error().message();
    return store ? std::move(*store) : nullptr;
  }
  void write(WriteOp op) {
    auto stored = store_->write(std::move(op));
    ASSERT_TRUE(stored) << stored.error().message();
  }
  std::unique_ptr<Watch> watch(std::string_view prefix, int64_t from) {
    auto watch = store_->watch(prefix, from);
    EXPECT_TRUE(watch) << watch.error().message();
    return watch ? std::move(*watch) : nullptr;
  }
  // Collects events until `count` arrived.
  static std::vector<Event> take(Watch& watch, size_t count) {
    std::vector<Event> all;
    while (all.size() < count) {
      auto events = watch.next(kWait);
      EXPECT_TRUE(events) << events.error().message();
      if (!events || events->empty()) {
        break;
      }
      all.insert(all.end(), events->begin(), events->end());
    }
    return all;
  }

  testing::TempDir dir_;
  std::string path_ = dir_.file("store.db");
  std::unique_ptr<Store> store_;
};

TEST_F(StoreWatchTest, DeliversAddedModifiedDeletedInOrder) {
  auto w = watch("pods/", 0);
  write(create("pods/default/a", pod("a")));
  write(put("pods/default/a", pod("a"), 1));
  write(remove("pods/default/a"));
  std::vector<Event> events = take(*w, 3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, EventType::Added);
  EXPECT_EQ(events[1].type, EventType::Modified);
  EXPECT_EQ(events[2].type, EventType::Deleted);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(events[i].stored->revision, i + 1);
    EXPECT_EQ((*events[i].stored->object)["metadata"]["resourceVersion"], std::to_string(i + 1));
  }
  EXPECT_EQ(w->cursor(), 3);
}

TEST_F(StoreWatchTest, FiltersByPrefixAndAdvancesPastOthers) {
  auto w = watch("pods/default/", 0);
  write(create("pods/default2/a", pod("a")));
  write(create("pods/kube-system/a", pod("a")));
  write(create("pods/default/a", pod("a")));
  std::vector<Event> events = take(*w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].stored->key, "pods/default/a");
  EXPECT_EQ(w->cursor(), 3);
}

TEST_F(StoreWatchTest, NextReturnsNothingWhenOnlyOtherPrefixesChanged) {
  auto w = watch("pods/", 0);
  write(create("nodes//n1", pod("n1")));
  auto events = w->next(1ms);
  ASSERT_TRUE(events);
  EXPECT_TRUE(events->empty());
  EXPECT_EQ(w->cursor(), 1);
}

TEST_F(StoreWatchTest, ResumesFromAnOlderRevision) {
  write(create("pods/default/a", pod("a")));
  write(create("pods/default/b", pod("b")));
  write(create("pods/default/c", pod("c")));
  auto w = watch("pods/", 1);
  std::vector<Event> events = take(*w, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].stored->key, "pods/default/b");
  EXPECT_EQ(events[1].stored->key, "pods/default/c");
}

TEST_F(StoreWatchTest, WatchFromTheFutureWaitsForIt) {
  auto w = watch("pods/", 2);
  write(create("pods/default/a", pod("a")));
  write(create("pods/default/b", pod("b")));
  write(create("pods/default/c", pod("c")));
  std::vector<Event> events = take(*w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].stored->revision, 3);
}

TEST_F(StoreWatchTest, TooOldRevisionIsConflictOnceHistoryOverflows) {
  store_.reset();
  store_ = open({.historySize = 3});
  auto lagging = watch("", 0);
  for (int i = 0; i < 5; ++i) {
    write(create("pods/default/p" + std::to_string(i), pod("p")));
  }
  EXPECT_EQ(store_->oldestWatchable(), 2);
  auto tooOld = store_->watch("", 1);
  ASSERT_FALSE(tooOld);
  EXPECT_EQ(tooOld.error().code(), core::Code::Conflict);
  EXPECT_EQ(tooOld.error().message(), "too old resource version: 1 (2)");

  auto expired = lagging->next(kWait);
  ASSERT_FALSE(expired);
  EXPECT_EQ(expired.error().code(), core::Code::Conflict);

  auto recent = watch("", 2);
  EXPECT_EQ(take(*recent, 3).size(), 3u);
}

TEST_F(StoreWatchTest, HistoryRestartsAtStoredRevisionAfterReopen) {
  write(create("pods/default/a", pod("a")));
  write(create("pods/default/b", pod("b")));
  store_.reset();
  store_ = open({});
  EXPECT_EQ(store_->oldestWatchable(), 2);
  EXPECT_FALSE(store_->watch("", 1));
  auto w = watch("", 2);
  write(create("pods/default/c", pod("c")));
  std::vector<Event> events = take(*w, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].stored->revision, 3);
}

TEST_F(StoreWatchTest, CloseWakesABlockedWatch) {
  auto w = watch("", 0);
  core::Result<std::vector<Event>> result = std::vector<Event>{};
  std::thread waiter([&] { result = w->next(std::chrono::hours(1)); });
  store_->close();
  waiter.join();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), core::Code::Internal);
}

TEST_F(StoreWatchTest, WatchOutlivingItsStoreReportsTheClose) {
  auto w = watch("", 0);
  store_.reset();
  auto result = w->next(kWait);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), core::Code::Internal);
}

TEST_F(StoreWatchTest, CloseWinsOverUndeliveredEvents) {
  auto w = watch("", 0);
  write(create("pods/default/a", pod("a")));
  store_->close();
  auto result = w->next(kWait);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code(), core::Code::Internal);
}

}  // namespace
}  // namespace nodewright::apiserver::storage
