// The SQLite-backed store under concurrency, damaged files and failing commits.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
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

// Runs SQL on the store's file while no store has it open, as damage or a fault would.
void runSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int code = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(code, SQLITE_OK) << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

std::unique_ptr<Store> mustOpen(const std::string& path, StoreOptions options = {}) {
  auto store = openSqliteStore(path, options);
  EXPECT_TRUE(store) << store.error().message();
  return store ? std::move(*store) : nullptr;
}

TEST(SqliteStoreTest, ConcurrentWritersGetUniqueContiguousRevisionsThatSurviveReopen) {
  testing::TempDir dir;
  const std::string path = dir.file("store.db");
  constexpr int kThreads = 8;
  constexpr int kPerThread = 500;
  std::map<std::string, int64_t> acked;
  std::mutex ackedMutex;
  {
    auto store = mustOpen(path);
    auto watch = store->watch("", 0);
    ASSERT_TRUE(watch);
    std::vector<std::thread> writers;
    for (int t = 0; t < kThreads; ++t) {
      writers.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          std::string key = "pods/ns" + std::to_string(t) + "/p" + std::to_string(i);
          auto stored = store->write(create(key, pod(key)));
          ASSERT_TRUE(stored) << stored.error().message();
          std::lock_guard lock(ackedMutex);
          acked[key] = (*stored)->revision;
        }
      });
    }
    // A watcher following along sees every revision once, in order.
    int64_t expected = 1;
    while (expected <= kThreads * kPerThread) {
      auto events = (*watch)->next(10s);
      ASSERT_TRUE(events) << events.error().message();
      ASSERT_FALSE(events->empty());
      for (const Event& event : *events) {
        ASSERT_EQ(event.stored->revision, expected++);
      }
    }
    for (auto& writer : writers) {
      writer.join();
    }
    EXPECT_EQ(store->revision(), kThreads * kPerThread);
  }
  ASSERT_EQ(acked.size(), size_t{kThreads * kPerThread});
  std::set<int64_t> revisions;
  for (const auto& [key, revision] : acked) {
    revisions.insert(revision);
  }
  EXPECT_EQ(revisions.size(), acked.size());
  EXPECT_EQ(*revisions.begin(), 1);
  EXPECT_EQ(*revisions.rbegin(), kThreads * kPerThread);

  auto reopened = mustOpen(path);
  EXPECT_EQ(reopened->revision(), kThreads * kPerThread);
  for (const auto& [key, revision] : acked) {
    StoredPtr stored = reopened->get(key);
    ASSERT_NE(stored, nullptr) << key;
    EXPECT_EQ(stored->revision, revision);
  }
}

TEST(SqliteStoreTest, OptimisticUpdatesFromManyThreadsLoseNothing) {
  testing::TempDir dir;
  auto store = mustOpen(dir.file("store.db"));
  ASSERT_TRUE(store->write(create("counters//c", {{"count", 0}})));
  constexpr int kThreads = 8;
  constexpr int kIncrements = 40;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int done = 0; done < kIncrements;) {
        StoredPtr current = store->get("counters//c");
        api::Json next = *current->object;
        next["count"] = next["count"].get<int>() + 1;
        auto written = store->write(put("counters//c", next, current->revision));
        if (written) {
          ++done;
        } else {
          ASSERT_EQ(written.error().code(), core::Code::Conflict) << written.error().message();
          ++conflicts;
        }
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_EQ((*store->get("counters//c")->object)["count"], kThreads * kIncrements);
  EXPECT_EQ(store->revision(), 1 + kThreads * kIncrements) << conflicts << " conflicts";
}

// Later ops of a batch see its earlier ones: a create after a create of the same key fails
// even when both are committed together.
TEST(SqliteStoreTest, RacingCreatesOfOneKeyHaveOneWinner) {
  testing::TempDir dir;
  auto store = mustOpen(dir.file("store.db"));
  constexpr int kThreads = 8;
  constexpr int kRounds = 50;
  std::atomic<int> winners{0};
  std::atomic<int> losers{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < kRounds; ++round) {
        auto result = store->write(create("pods/default/p" + std::to_string(round), pod("p")));
        if (result) {
          ++winners;
        } else {
          EXPECT_EQ(result.error().code(), core::Code::Conflict);
          ++losers;
        }
      }
    });
  }
  for (auto& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(winners, kRounds);
  EXPECT_EQ(losers, (kThreads - 1) * kRounds);
  EXPECT_EQ(store->revision(), kRounds);
}

TEST(SqliteStoreTest, FailedCommitFailsTheBatchAndKeepsTheStoreUsable) {
  testing::TempDir dir;
  const std::string path = dir.file("store.db");
  mustOpen(path).reset();  // creates the schema
  // A trigger stands in for a disk fault: any transaction writing this key fails.
  runSql(path,
         "CREATE TRIGGER poison BEFORE INSERT ON objects WHEN NEW.key = 'pods/default/poison' "
         "BEGIN SELECT RAISE(ABORT, 'injected fault'); END;");
  auto store = mustOpen(path);
  ASSERT_TRUE(store->write(create("pods/default/a", pod("a"))));
  auto watch = store->watch("", 1);
  ASSERT_TRUE(watch);

  auto poisoned = store->write(create("pods/default/poison", pod("poison")));
  ASSERT_FALSE(poisoned);
  EXPECT_EQ(poisoned.error().code(), core::Code::Internal);
  EXPECT_NE(poisoned.error().message().find("injected fault"), std::string::npos)
      << poisoned.error().message();
  EXPECT_EQ(store->revision(), 1);
  EXPECT_EQ(store->get("pods/default/poison"), nullptr);

  auto next = store->write(create("pods/default/b", pod("b")));
  ASSERT_TRUE(next) << next.error().message();
  EXPECT_EQ((*next)->revision, 2) << "the failed commit's revision is reused";
  auto events = (*watch)->next(10s);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].stored->key, "pods/default/b");

  store.reset();
  auto reopened = mustOpen(path);
  EXPECT_EQ(reopened->revision(), 2);
  EXPECT_EQ(reopened->get("pods/default/poison"), nullptr);
}

// Whichever ops share a batch with a failing one fail with it; every acknowledged write, and
// only those, is stored, with contiguous revisions.
TEST(SqliteStoreTest, AcknowledgementsMatchTheFileWhenCommitsFail) {
  testing::TempDir dir;
  const std::string path = dir.file("store.db");
  mustOpen(path).reset();
  runSql(path,
         "CREATE TRIGGER poison BEFORE INSERT ON objects WHEN NEW.key LIKE '%/poison%' "
         "BEGIN SELECT RAISE(ABORT, 'injected fault'); END;");
  std::set<std::string> acked;
  std::mutex ackedMutex;
  {
    auto store = mustOpen(path);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 100; ++i) {
          std::string key = "pods/ns" + std::to_string(t) + "/" + (i % 10 == t ? "poison" : "p") +
                            std::to_string(i);
          auto result = store->write(create(key, pod("p")));
          if (result) {
            std::lock_guard lock(ackedMutex);
            acked.insert(key);
          } else {
            EXPECT_EQ(result.error().code(), core::Code::Internal);
          }
        }
      });
    }
    for (auto& thread : threads) {
      thread.join();
    }
    EXPECT_EQ(store->revision(), static_cast<int64_t>(acked.size()));
  }
  auto reopened = mustOpen(path);
  ListResult all = reopened->list("", "", 0);
  std::set<std::string> stored;
  std::set<int64_t> revisions;
  for (const StoredPtr& item : all.items) {
    stored.insert(item->key);
    revisions.insert(item->revision);
  }
  EXPECT_EQ(stored, acked);
  EXPECT_EQ(revisions.size(), acked.size());
  if (!revisions.empty()) {
    EXPECT_EQ(*revisions.rbegin(), static_cast<int64_t>(acked.size()));
  }
}

// SQLite reuses its log only once a checkpoint has caught up with the last commit, which a
// background checkpoint never does while writes keep coming: the writer has to step in.
TEST(SqliteStoreTest, CheckpointsKeepTheLogBoundedUnderSustainedWrites) {
  testing::TempDir dir;
  const std::string path = dir.file("store.db");
  auto store = mustOpen(path, {.fsync = false});
  const api::Json big = {{"metadata", {{"name", "x"}}}, {"data", std::string(3000, 'x')}};
  constexpr int kWrites = 30000;  // about 60,000 log frames without checkpoints
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_TRUE(store->write(put("configmaps/default/c" + std::to_string(i % 500), big)));
  }
  const auto logBytes = std::filesystem::file_size(path + "-wal");
  EXPECT_LT(logBytes, 80u << 20) << "the log outgrew the writer's checkpoint threshold";
  EXPECT_GT(std::filesystem::file_size(path), 500u * 3000) << "nothing was checkpointed";
  store.reset();
  auto reopened = mustOpen(path);
  EXPECT_EQ(reopened->revision(), kWrites);
  EXPECT_EQ(reopened->list("configmaps/", "", 0).items.size(), 500u);
}

TEST(SqliteStoreTest, OpenFailsOnAFileThatIsNotADatabase) {
  testing::TempDir dir;
  const std::string path = dir.file("store.db");
  std::ofstream(path) << std::string(8192, 'x');
  auto store = openSqliteStore(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code(), core::Code::Internal);
}

TEST(SqliteStoreTest, OpenFailsOnAnObjectThatIsNotJson) {
  testing::TempDir dir;
  const std::string path = dir.file("store.db");
  mustOpen(path).reset();
  runSql(path, "INSERT INTO objects VALUES('pods/default/a', 0, '{broken');");
  auto store = openSqliteStore(path);
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message().find("pods/default/a"), std::string::npos)
      << store.error().message();
}

TEST(SqliteStoreTest, OpenFailsWhenAnObjectIsNewerThanTheCounter) {
  testing::TempDir dir;
  const std::string path = dir.file("store.db");
  mustOpen(path).reset();
  runSql(path, "INSERT INTO objects VALUES('pods/default/a', 9, '{}');");
  EXPECT_FALSE(openSqliteStore(path));
}

TEST(SqliteStoreTest, OpenRefusesANewerSchema) {
  testing::TempDir dir;
  const std::string path = dir.file("store.db");
  mustOpen(path).reset();
  runSql(path, "PRAGMA user_version = 99;");
  auto store = openSqliteStore(path);
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message().find("schema version 99"), std::string::npos)
      << store.error().message();
}

}  // namespace
}  // namespace nodewright::apiserver::storage
