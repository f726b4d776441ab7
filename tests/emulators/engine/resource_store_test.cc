#include "emulators/engine/resource_store.h"

#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "emulators/engine/latency.h"
#include "emulators/engine/scaled_clock.h"

namespace nodewright::emulators {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

struct InstanceDetails : Attributes {
  explicit InstanceDetails(std::string type) : instanceType(std::move(type)) {}
  std::string instanceType;
};

class ResourceStoreTest : public ::testing::Test {
 protected:
  NewResource instance(std::string state = "pending") {
    NewResource spec;
    spec.type = "instance";
    spec.idPrefix = "i";
    spec.state = std::move(state);
    return spec;
  }

  Resource launch(seconds latency) {
    NewResource spec = instance();
    spec.next = Transition{.to = "running", .at = clock_.now() + latency, .keepFor = {}};
    auto created = store_.create(std::move(spec));
    EXPECT_TRUE(created);
    return created->resource;
  }

  std::string stateOf(const std::string& id) {
    auto r = store_.get("instance", id);
    return r ? r->state : "<" + r.error().message() + ">";
  }

  core::FakeClock clock_;
  ResourceStore store_{clock_, 1};
};

TEST_F(ResourceStoreTest, GeneratesEc2StyleIds) {
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) {
    auto created = store_.create(instance());
    ASSERT_TRUE(created);
    EXPECT_TRUE(std::regex_match(created->resource.id, std::regex("i-[0-9a-f]{17}")))
        << created->resource.id;
    ids.insert(created->resource.id);
  }
  EXPECT_EQ(ids.size(), 1000u);
}

TEST_F(ResourceStoreTest, SameSeedCreatesTheSameIds) {
  ResourceStore other(clock_, 1);
  ResourceStore differentSeed(clock_, 2);
  auto a = store_.create(instance());
  auto b = other.create(instance());
  auto c = differentSeed.create(instance());
  EXPECT_EQ(a->resource.id, b->resource.id);
  EXPECT_NE(a->resource.id, c->resource.id);
}

TEST_F(ResourceStoreTest, ExplicitIdsConflict) {
  NewResource spec;
  spec.type = "launch-template";
  spec.id = "lt-1";
  ASSERT_TRUE(store_.create(spec));
  auto again = store_.create(spec);
  ASSERT_FALSE(again);
  EXPECT_TRUE(again.error().is(core::Code::Conflict));
}

TEST_F(ResourceStoreTest, BecomesRunningAtTheModelsLatencyNotBefore) {
  LatencyModel model(3);
  model.set("launch", Latency::uniform(seconds(5), seconds(50)));
  ScaledClock scaled(clock_, 1);
  const auto latency = model.sample("launch");
  NewResource spec = instance();
  spec.next = Transition{.to = "running", .at = scaled.after(latency), .keepFor = {}};
  auto created = store_.create(std::move(spec));
  ASSERT_TRUE(created);
  const std::string id = created->resource.id;
  EXPECT_EQ(created->resource.state, "pending");
  clock_.advance(latency - std::chrono::microseconds(1));
  EXPECT_EQ(stateOf(id), "pending");
  clock_.advance(std::chrono::microseconds(1));
  EXPECT_EQ(stateOf(id), "running");
  EXPECT_FALSE(store_.get("instance", id)->next);
}

TEST_F(ResourceStoreTest, TimeScaleShortensTheWait) {
  ScaledClock fast(clock_, 60);
  NewResource spec = instance();
  spec.next = Transition{.to = "running", .at = fast.after(minutes(3)), .keepFor = {}};
  const std::string id = store_.create(std::move(spec))->resource.id;
  clock_.advance(seconds(2));
  EXPECT_EQ(stateOf(id), "pending");
  clock_.advance(seconds(1));
  EXPECT_EQ(stateOf(id), "running");
}

TEST_F(ResourceStoreTest, TerminatedStaysVisibleForTheRetentionThenGoes) {
  const std::string id = launch(seconds(10)).id;
  clock_.advance(seconds(10));
  ASSERT_EQ(stateOf(id), "running");
  auto shutting = store_.transition(
      "instance", id, "shutting-down",
      Transition{.to = "terminated", .at = clock_.now() + seconds(20), .keepFor = hours(1)});
  ASSERT_TRUE(shutting);
  EXPECT_EQ(shutting->state, "shutting-down");
  EXPECT_EQ(store_.liveCount("instance"), 1u);

  clock_.advance(seconds(20));
  auto terminated = store_.get("instance", id);
  ASSERT_TRUE(terminated);
  EXPECT_EQ(terminated->state, "terminated");
  EXPECT_EQ(terminated->deleted, clock_.now());
  EXPECT_EQ(store_.liveCount("instance"), 0u);
  EXPECT_EQ(store_.retainedCounts()["instance"], 1u);
  EXPECT_EQ(store_.list("instance").size(), 1u);

  clock_.advance(hours(1) - seconds(1));
  EXPECT_EQ(stateOf(id), "terminated");
  clock_.advance(seconds(1));
  EXPECT_TRUE(store_.get("instance", id).error().is(core::Code::NotFound));
  EXPECT_TRUE(store_.list("instance").empty());
  EXPECT_EQ(store_.retainedCounts()["instance"], 0u);
}

TEST_F(ResourceStoreTest, OneLongAdvanceAppliesEveryStepInOrder) {
  const std::string id = launch(seconds(10)).id;
  ASSERT_TRUE(store_.transition(
      "instance", id, "shutting-down",
      Transition{.to = "terminated", .at = clock_.now() + seconds(5), .keepFor = minutes(1)}));
  clock_.advance(hours(2));
  EXPECT_TRUE(store_.get("instance", id).error().is(core::Code::NotFound));
}

TEST_F(ResourceStoreTest, TerminatingBeforeRunningReplacesThePendingTransition) {
  const std::string id = launch(seconds(30)).id;
  ASSERT_TRUE(store_.transition(
      "instance", id, "shutting-down",
      Transition{.to = "terminated", .at = clock_.now() + seconds(60), .keepFor = hours(1)}));
  clock_.advance(seconds(30));
  EXPECT_EQ(stateOf(id), "shutting-down");  // the launch's running transition is gone
  clock_.advance(seconds(30));
  EXPECT_EQ(stateOf(id), "terminated");
}

TEST_F(ResourceStoreTest, DeletedResourcesRefuseFurtherTransitions) {
  const std::string id = launch(seconds(1)).id;
  auto retired = store_.retire("instance", id, "terminated", minutes(5));
  ASSERT_TRUE(retired);
  EXPECT_EQ(retired->state, "terminated");
  EXPECT_FALSE(retired->live());
  auto again = store_.transition("instance", id, "running");
  ASSERT_FALSE(again);
  EXPECT_TRUE(again.error().is(core::Code::Conflict));
}

TEST_F(ResourceStoreTest, RetireWithoutRetentionRemovesAtOnce) {
  const std::string id = launch(seconds(1)).id;
  auto retired = store_.retire("instance", id, "deleted", seconds(0));
  ASSERT_TRUE(retired);
  EXPECT_EQ(retired->state, "deleted");
  EXPECT_TRUE(store_.get("instance", id).error().is(core::Code::NotFound));
}

TEST_F(ResourceStoreTest, ClientTokenMakesCreateIdempotent) {
  NewResource spec;
  spec.type = "fleet";
  spec.idPrefix = "fleet";
  spec.idHexDigits = 8;
  spec.clientToken = "token-1";
  auto first = store_.create(spec);
  auto second = store_.create(spec);
  ASSERT_TRUE(first && second);
  EXPECT_TRUE(first->created);
  EXPECT_FALSE(second->created);
  EXPECT_EQ(first->resource.id, second->resource.id);
  EXPECT_EQ(store_.liveCount("fleet"), 1u);
  EXPECT_EQ(store_.findByClientToken("fleet", "token-1")->id, first->resource.id);
  // Tokens are per type.
  spec.type = "instance";
  EXPECT_TRUE(store_.create(spec)->created);
}

TEST_F(ResourceStoreTest, ClientTokenIsFreedWhenTheResourceIsRemoved) {
  NewResource spec = instance();
  spec.clientToken = "t";
  const std::string id = store_.create(spec)->resource.id;
  ASSERT_TRUE(store_.remove("instance", id));
  auto again = store_.create(spec);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->created);
  EXPECT_NE(again->resource.id, id);
}

TEST_F(ResourceStoreTest, TagsStaySortedAndUpdateEditsOnlyTagsAndAttributes) {
  NewResource spec = instance("running");
  spec.tags = {{"b", "2"}, {"a", "1"}};
  spec.attributes = std::make_shared<InstanceDetails>("m5.large");
  const std::string id = store_.create(spec)->resource.id;
  auto updated = store_.update("instance", id, [](Resource& r) {
    setTags(r.tags, {{"c", "3"}, {"a", "10"}});
    r.attributes = std::make_shared<InstanceDetails>("m5.xlarge");
    r.state = "stopped";  // ignored: states change through transition()
    r.id = "i-other";     // ignored
  });
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->tags, (Tags{{"a", "10"}, {"b", "2"}, {"c", "3"}}));
  ASSERT_NE(updated->as<InstanceDetails>(), nullptr);
  EXPECT_EQ(updated->as<InstanceDetails>()->instanceType, "m5.xlarge");
  EXPECT_EQ(updated->state, "running");
  EXPECT_EQ(updated->id, id);
  EXPECT_EQ(*updated->tag("c"), "3");
  EXPECT_EQ(updated->tag("z"), nullptr);
  removeTags(updated->tags, {"b"});
  EXPECT_EQ(updated->tags, (Tags{{"a", "10"}, {"c", "3"}}));
}

TEST_F(ResourceStoreTest, ListsByTypeAndFilterAndPages) {
  for (int i = 0; i < 10; ++i) {
    NewResource spec = instance(i % 2 == 0 ? "running" : "pending");
    ASSERT_TRUE(store_.create(spec));
  }
  NewResource other;
  other.type = "fleet";
  other.idPrefix = "fleet";
  ASSERT_TRUE(store_.create(other));

  auto running = store_.list("instance", [](const Resource& r) { return r.state == "running"; });
  EXPECT_EQ(running.size(), 5u);
  EXPECT_TRUE(std::is_sorted(running.begin(), running.end(),
                             [](const Resource& a, const Resource& b) { return a.id < b.id; }));

  std::vector<std::string> paged;
  std::string after;
  int pages = 0;
  do {
    Page page = store_.page("instance", {}, after, 4);
    for (const Resource& r : page.items) {
      paged.push_back(r.id);
    }
    after = page.nextAfter;
    ++pages;
  } while (!after.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(paged.size(), 10u);
  EXPECT_EQ(std::set<std::string>(paged.begin(), paged.end()).size(), 10u);
  EXPECT_EQ(store_.liveCounts(), (std::map<std::string, size_t>{{"fleet", 1}, {"instance", 10}}));
  EXPECT_TRUE(store_.list("volume").empty());
}

TEST_F(ResourceStoreTest, ZeroLatencyTransitionsApplyBeforeCreateReturns) {
  NewResource spec = instance();
  spec.next = Transition{.to = "running", .at = clock_.now(), .keepFor = {}};
  auto created = store_.create(spec);
  ASSERT_TRUE(created);
  EXPECT_EQ(created->resource.state, "running");
}

TEST_F(ResourceStoreTest, HoldsTwentyThousandInstances) {
  size_t dueBy30s = 0;
  for (int i = 0; i < 20000; ++i) {
    dueBy30s += i % 60 <= 30 ? 1 : 0;
    NewResource spec = instance();
    spec.next = Transition{.to = "running", .at = clock_.now() + seconds(i % 60), .keepFor = {}};
    ASSERT_TRUE(store_.create(std::move(spec)));
  }
  EXPECT_EQ(store_.liveCount("instance"), 20000u);
  clock_.advance(seconds(30));
  auto running = store_.list("instance", [](const Resource& r) { return r.state == "running"; });
  EXPECT_EQ(running.size(), dueBy30s);
}

}  // namespace
}  // namespace nodewright::emulators
