#include "apiserver/storage/store.h"

#include <gtest/gtest.h>

#include "apiserver/storage/store_test_support.h"

namespace nodewright::apiserver::storage {
namespace {

using testing::create;
using testing::pod;
using testing::put;
using testing::remove;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = open(); }

  std::unique_ptr<Store> open(StoreOptions options = {}) {
    auto store = openSqliteStore(path_, options);
    EXPECT_TRUE(store) << store.error().message();
    return store ? std::move(*store) : nullptr;
  }
  void reopen(StoreOptions options = {}) {
    store_.reset();
    store_ = open(options);
  }
  StoredPtr mustWrite(WriteOp op) {
    auto stored = store_->write(std::move(op));
    EXPECT_TRUE(stored) << stored.error().message();
    return stored ? *stored : nullptr;
  }

  testing::TempDir dir_;
  std::string path_ = dir_.file("store.db");
  std::unique_ptr<Store> store_;
};

TEST_F(StoreTest, CreateStampsRevisionAsResourceVersion) {
  StoredPtr stored = mustWrite(create("pods/default/a", pod("a")));
  ASSERT_NE(stored, nullptr);
  EXPECT_EQ(stored->revision, 1);
  EXPECT_EQ(stored->key, "pods/default/a");
  EXPECT_EQ((*stored->object)["metadata"]["resourceVersion"], "1");
  EXPECT_EQ(api::Json::parse(*stored->text), *stored->object);
  EXPECT_EQ(store_->get("pods/default/a"), stored);
  EXPECT_EQ(store_->revision(), 1);
}

TEST_F(StoreTest, ClientResourceVersionIsOverwritten) {
  api::Json object = pod("a");
  object["metadata"]["resourceVersion"] = "999";
  StoredPtr stored = mustWrite(create("pods/default/a", object));
  EXPECT_EQ((*stored->object)["metadata"]["resourceVersion"], "1");
}

TEST_F(StoreTest, CreateOfExistingKeyConflicts) {
  mustWrite(create("pods/default/a", pod("a")));
  auto again = store_->write(create("pods/default/a", pod("a")));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), core::Code::Conflict);
  EXPECT_EQ(store_->revision(), 1) << "a failed write takes no revision";
}

TEST_F(StoreTest, UpdateChecksExpectedRevision) {
  mustWrite(create("pods/default/a", pod("a")));
  mustWrite(put("pods/default/a", pod("a"), 1));
  auto stale = store_->write(put("pods/default/a", pod("a"), 1));
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code(), core::Code::Conflict);
  StoredPtr fresh = mustWrite(put("pods/default/a", pod("a"), 2));
  EXPECT_EQ(fresh->revision, 3);
}

TEST_F(StoreTest, UpdateOfMissingKeyIsNotFound) {
  auto missing = store_->write(put("pods/default/a", pod("a"), 4));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), core::Code::NotFound);
}

TEST_F(StoreTest, UnconditionalPutCreatesThenReplaces) {
  EXPECT_EQ(mustWrite(put("pods/default/a", pod("a")))->revision, 1);
  EXPECT_EQ(mustWrite(put("pods/default/a", pod("a")))->revision, 2);
}

TEST_F(StoreTest, DeleteOfMissingKeyIsNotFound) {
  auto missing = store_->write(remove("pods/default/a"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), core::Code::NotFound);
}

TEST_F(StoreTest, DeleteWithStaleRevisionConflicts) {
  mustWrite(create("pods/default/a", pod("a")));
  mustWrite(put("pods/default/a", pod("a")));
  auto stale = store_->write(remove("pods/default/a", 1));
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code(), core::Code::Conflict);
  EXPECT_NE(store_->get("pods/default/a"), nullptr);
}

TEST_F(StoreTest, DeleteReturnsLastStateAtDeletionRevision) {
  api::Json object = pod("a");
  object["spec"]["nodeName"] = "n7";
  mustWrite(create("pods/default/a", object));
  StoredPtr deleted = mustWrite(remove("pods/default/a", 1));
  EXPECT_EQ(deleted->revision, 2);
  EXPECT_EQ((*deleted->object)["metadata"]["resourceVersion"], "2");
  EXPECT_EQ((*deleted->object)["spec"]["nodeName"], "n7");
  EXPECT_EQ(store_->get("pods/default/a"), nullptr);
  EXPECT_EQ(store_->revision(), 2);
}

TEST_F(StoreTest, RejectsMalformedWrites) {
  EXPECT_EQ(store_->write(put("", pod("a"))).error().code(), core::Code::Invalid);
  EXPECT_EQ(store_->write(put("pods/default/a", api::Json::array())).error().code(),
            core::Code::Invalid);
  EXPECT_EQ(store_->write(put("pods/default/a", {{"metadata", "x"}})).error().code(),
            core::Code::Invalid);
  EXPECT_EQ(store_->write(put("pods/default/a", pod("a"), -7)).error().code(), core::Code::Invalid);
  EXPECT_EQ(store_->revision(), 0);
}

TEST_F(StoreTest, ObjectWithoutMetadataGetsOne) {
  StoredPtr stored = mustWrite(put("things//x", {{"a", 1}}));
  EXPECT_EQ((*stored->object)["metadata"]["resourceVersion"], "1");
}

TEST_F(StoreTest, ObjectsAndRevisionSurviveReopen) {
  mustWrite(create("pods/default/a", pod("a")));
  mustWrite(create("pods/default/b", pod("b")));
  StoredPtr b = mustWrite(put("pods/default/b", pod("b"), 2));
  mustWrite(remove("pods/default/a"));  // revision 4 exists only in the counter now
  reopen();
  EXPECT_EQ(store_->revision(), 4);
  EXPECT_EQ(store_->get("pods/default/a"), nullptr);
  StoredPtr reloaded = store_->get("pods/default/b");
  ASSERT_NE(reloaded, nullptr);
  EXPECT_EQ(reloaded->revision, 3);
  EXPECT_EQ(*reloaded->object, *b->object);
  EXPECT_EQ(*reloaded->text, *b->text);
  EXPECT_EQ(mustWrite(create("pods/default/c", pod("c")))->revision, 5);
}

TEST_F(StoreTest, UnsyncedStoreIsAlsoReadBack) {
  reopen({.fsync = false});
  mustWrite(create("pods/default/a", pod("a")));
  reopen();
  EXPECT_NE(store_->get("pods/default/a"), nullptr);
}

class StoreListTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    for (const char* key : {"pods/default/a", "pods/default/b", "pods/default/c", "pods/default/d",
                            "pods/default2/a", "pods/kube-system/a", "nodes//n1"}) {
      mustWrite(create(key, pod("x")));
    }
  }
  static std::vector<std::string> keys(const ListResult& result) {
    std::vector<std::string> out;
    for (const StoredPtr& item : result.items) {
      out.push_back(item->key);
    }
    return out;
  }
};

TEST_F(StoreListTest, ListsPrefixInKeyOrder) {
  ListResult all = store_->list("pods/default/", "", 0);
  EXPECT_EQ(keys(all), (std::vector<std::string>{"pods/default/a", "pods/default/b",
                                                 "pods/default/c", "pods/default/d"}));
  EXPECT_EQ(all.revision, 7);
  EXPECT_FALSE(all.lastKey);
  EXPECT_EQ(all.remaining, 0u);
  EXPECT_EQ(store_->list("pods/", "", 0).items.size(), 6u);
  EXPECT_EQ(store_->list("", "", 0).items.size(), 7u);
  EXPECT_TRUE(store_->list("services/", "", 0).items.empty());
}

TEST_F(StoreListTest, LimitSetsLastKeyAndRemaining) {
  ListResult page = store_->list("pods/default/", "", 3);
  EXPECT_EQ(keys(page),
            (std::vector<std::string>{"pods/default/a", "pods/default/b", "pods/default/c"}));
  EXPECT_EQ(page.lastKey, "pods/default/c");
  EXPECT_EQ(page.remaining, 1u);
  ListResult rest = store_->list("pods/default/", *page.lastKey, 3);
  EXPECT_EQ(keys(rest), std::vector<std::string>{"pods/default/d"});
  EXPECT_FALSE(rest.lastKey);
  EXPECT_EQ(rest.remaining, 0u);
}

TEST_F(StoreListTest, LimitEqualToSizeLeavesNoContinuation) {
  ListResult page = store_->list("pods/default/", "", 4);
  EXPECT_EQ(page.items.size(), 4u);
  EXPECT_FALSE(page.lastKey);
}

TEST_F(StoreListTest, StartAfterBeforePrefixStartsAtPrefix) {
  EXPECT_EQ(store_->list("pods/default/", "nodes//n1", 0).items.size(), 4u);
  EXPECT_TRUE(store_->list("pods/default/", "pods/default/z", 0).items.empty());
}

TEST_F(StoreListTest, FilteredOutItemsDoNotCountTowardLimit) {
  int calls = 0;
  // Rejects every other object by visit order: a, c pass; b, d are rejected.
  auto everyOther = [&calls](const api::Json&) { return calls++ % 2 == 0; };
  ListResult page = store_->list("pods/default/", "", 2, everyOther);
  EXPECT_EQ(keys(page), (std::vector<std::string>{"pods/default/a", "pods/default/c"}));
  EXPECT_EQ(page.lastKey, "pods/default/c");
  EXPECT_EQ(page.remaining, 1u) << "remaining counts unfiltered keys, as kube-apiserver does";
}

TEST_F(StoreListTest, FilterSeesObjects) {
  mustWrite(put("pods/default/b", [] {
    api::Json object = pod("b");
    object["spec"]["nodeName"] = "n2";
    return object;
  }()));
  ListResult page = store_->list(
      "pods/", "", 0, [](const api::Json& object) { return object["spec"]["nodeName"] == "n2"; });
  EXPECT_EQ(keys(page), std::vector<std::string>{"pods/default/b"});
}

TEST_F(StoreTest, OwnerIndexFollowsWrites) {
  mustWrite(create("pods/default/a", pod("a", "uid-1")));
  mustWrite(create("pods/default/b", pod("b", "uid-1")));
  mustWrite(create("pods/default/c", pod("c")));
  EXPECT_EQ(store_->dependentsOf("uid-1"),
            (std::vector<std::string>{"pods/default/a", "pods/default/b"}));
  mustWrite(put("pods/default/a", pod("a", "uid-2")));
  EXPECT_EQ(store_->dependentsOf("uid-1"), std::vector<std::string>{"pods/default/b"});
  EXPECT_EQ(store_->dependentsOf("uid-2"), std::vector<std::string>{"pods/default/a"});
  mustWrite(remove("pods/default/b"));
  EXPECT_TRUE(store_->dependentsOf("uid-1").empty());
  reopen();
  EXPECT_EQ(store_->dependentsOf("uid-2"), std::vector<std::string>{"pods/default/a"});
}

TEST_F(StoreTest, OpenFailsWhileAnotherStoreHoldsTheFile) {
  mustWrite(create("pods/default/a", pod("a")));
  auto second = openSqliteStore(path_);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), core::Code::Conflict) << second.error().message();
  store_.reset();
  EXPECT_TRUE(openSqliteStore(path_)) << "the lock goes with the store";
}

TEST_F(StoreTest, WritesFailAfterClose) {
  store_->close();
  store_->close();  // idempotent
  auto late = store_->write(create("pods/default/a", pod("a")));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code(), core::Code::Internal);
  EXPECT_FALSE(store_->watch("", 0));
}

TEST(StoreOpenTest, FailsInMissingDirectory) {
  testing::TempDir dir;
  auto store = openSqliteStore(dir.file("no/such/dir/store.db"));
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code(), core::Code::Internal);
}

}  // namespace
}  // namespace nodewright::apiserver::storage
