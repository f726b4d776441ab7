// Saving and restoring the engine's parts: a store's contents as JSON, the state file, the
// saver thread and the clock that never goes back.
#include <gtest/gtest.h>

#include "emulators/engine/offset_clock.h"
#include "emulators/engine/resource_store.h"
#include "emulators/engine/state_file.h"
#include "emulators/engine/state_saver.h"
#include "emulators/engine/store_codec.h"
#include "support/emulators/state_dir.h"

namespace nodewright::emulators {
namespace {

using std::chrono::seconds;
using testing::eventually;
using testing::readWhole;
using testing::StateDir;
using testing::writeWhole;

struct Size : Attributes {
  int64_t cores = 0;
};

[[maybe_unused]] static void to_json(api::Json& j, const Size& s) {
  j = api::Json{{"cores", s.cores}};
}
[[maybe_unused]] static void from_json(const api::Json& j, Size& s) {
  s.cores = j.at("cores").get<int64_t>();
}

const AttributeCodecs& codecs() {
  static const AttributeCodecs c{{"instance", fieldsCodec<Size>()}};
  return c;
}

class StoreStateTest : public ::testing::Test {
 protected:
  Resource launch(ResourceStore& store, std::string token = "") {
    NewResource spec;
    spec.type = "instance";
    spec.idPrefix = "i";
    spec.state = "pending";
    spec.clientToken = std::move(token);
    spec.tags = {{"b", "2"}, {"a", "1"}};
    auto size = std::make_shared<Size>();
    size->cores = 4;
    spec.attributes = size;
    spec.next = Transition{.to = "running", .at = clock_.now() + seconds(30), .keepFor = {}};
    auto created = store.create(std::move(spec));
    EXPECT_TRUE(created);
    return created->resource;
  }

  // `from`'s contents through JSON into a new store on the same clock.
  std::unique_ptr<ResourceStore> roundTrip(ResourceStore& from) {
    auto json = encodeStore(from.contents(), codecs());
    EXPECT_TRUE(json) << json.error().message();
    auto contents = decodeStore(api::Json::parse(json->dump()), codecs());
    EXPECT_TRUE(contents) << contents.error().message();
    auto to = std::make_unique<ResourceStore>(clock_, 1);
    EXPECT_TRUE(to->restore(std::move(*contents)));
    return to;
  }

  core::FakeClock clock_;
};

TEST_F(StoreStateTest, RestoredStoreKeepsFieldsSchedulesAndClientTokens) {
  ResourceStore store(clock_, 1);
  const Resource pending = launch(store, "token-1");
  const Resource gone = launch(store);
  ASSERT_TRUE(store.retire("instance", gone.id, "terminated", seconds(60)));
  clock_.advance(seconds(10));

  auto restored = roundTrip(store);
  auto got = restored->get("instance", pending.id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->state, "pending");
  EXPECT_EQ(got->created, pending.created);
  EXPECT_EQ(got->tags, (Tags{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(got->as<Size>()->cores, 4);
  auto again = restored->findByClientToken("instance", "token-1");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id, pending.id);
  EXPECT_EQ(restored->get("instance", gone.id)->state, "terminated");

  clock_.advance(seconds(20));
  EXPECT_EQ(restored->get("instance", pending.id)->state, "running");
  clock_.advance(seconds(30));  // the retention of the retired one ends at 60 s
  EXPECT_FALSE(restored->get("instance", gone.id));
}

TEST_F(StoreStateTest, RestoredStoreDrawsTheIdsTheOriginalWouldHaveDrawnNext) {
  ResourceStore store(clock_, 1);
  std::set<std::string> before{launch(store).id, launch(store).id};
  auto restored = roundTrip(store);
  const std::string original = launch(store).id;
  const std::string continued = launch(*restored).id;
  EXPECT_EQ(continued, original);
  EXPECT_FALSE(before.contains(continued));
}

TEST_F(StoreStateTest, GenerationMovesWithChangesOnly) {
  ResourceStore store(clock_, 1);
  const uint64_t start = store.generation();
  const Resource r = launch(store);
  const uint64_t launched = store.generation();
  EXPECT_GT(launched, start);
  clock_.advance(seconds(60));  // pending -> running on the clock: already in a saved state
  EXPECT_EQ(store.get("instance", r.id)->state, "running");
  EXPECT_EQ(store.generation(), launched);
  ASSERT_TRUE(store.update("instance", r.id, [](Resource& x) { x.tags.push_back({"c", "3"}); }));
  EXPECT_GT(store.generation(), launched);
}

TEST_F(StoreStateTest, MalformedResourcesAreInvalidWithTheirIndex) {
  auto unknown = decodeStore(api::Json::parse(R"({"idStream": 1, "resources": [
      {"type": "instance", "id": "i-1", "state": "running", "created": 1,
       "attributes": {"cores": 2}},
      {"type": "volume", "id": "v-1", "state": "ok", "created": 1, "attributes": {}}]})"),
                             codecs());
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message(), "store.resources[1]: unknown resource type volume");
  auto wrongType = decodeStore(api::Json::parse(R"({"idStream": 1, "resources": [
      {"type": "instance", "id": "i-1", "state": "running", "created": "yesterday"}]})"),
                               codecs());
  ASSERT_FALSE(wrongType);
  EXPECT_TRUE(wrongType.error().message().starts_with("store.resources[0]: "))
      << wrongType.error().message();

  ResourceStore store(clock_, 1);
  StoreContents twice;
  twice.resources.resize(2);
  for (Resource& r : twice.resources) {
    r.type = "instance";
    r.id = "i-1";
  }
  EXPECT_FALSE(store.restore(twice));
}

TEST(StateFileTest, MissingFileIsNoStateAndAWrittenOneReadsBack) {
  StateDir dir;
  const std::string path = dir.file("ec2.json");
  auto missing = readStateFile(path, "test-state", 1);
  ASSERT_TRUE(missing);
  EXPECT_FALSE(*missing);

  ASSERT_TRUE(writeStateFile(path, {{"format", "test-state"}, {"version", 1}, {"x", 2}}));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  auto read = readStateFile(path, "test-state", 1);
  ASSERT_TRUE(read && *read);
  EXPECT_EQ((**read)["x"], 2);
}

TEST(StateFileTest, UnusableFilesAreErrorsNamingTheFile) {
  StateDir dir;
  const std::string path = dir.file("state.json");
  for (const char* text :
       {"", "{\"format\": \"test-state\", \"version\": 1", R"({"format": "other", "version": 1})",
        R"({"format": "test-state", "version": 2})", R"({"format": "test-state"})"}) {
    writeWhole(path, text);
    auto read = readStateFile(path, "test-state", 1);
    ASSERT_FALSE(read) << text;
    EXPECT_TRUE(read.error().message().starts_with("state file " + path + ": "))
        << read.error().message();
    EXPECT_EQ(readWhole(path), text);  // never rewritten
  }
}

TEST(StateSaverTest, SavesAnIntervalAfterAChangeAndOnStop) {
  StateDir dir;
  core::FakeClock clock;
  std::atomic<uint64_t> generation{0};
  std::atomic<int> value{0};
  StateSaver saver(clock, dir.file("s.json"),
                   {[&] { return generation.load(); },
                    [&]() -> core::Result<api::Json> {
                      return api::Json{{"value", value.load()}};
                    }});
  saver.start();
  value = 1;
  ++generation;
  clock.advance(seconds(1));
  ASSERT_TRUE(eventually([&] { return saver.saves() == 1; }));
  EXPECT_EQ(api::Json::parse(readWhole(saver.path()))["value"], 1);

  value = 2;
  ++generation;
  ASSERT_TRUE(saver.stop());
  EXPECT_EQ(api::Json::parse(readWhole(saver.path()))["value"], 2);
  EXPECT_EQ(saver.saves(), 2u);
}

TEST(StateSaverTest, DoesNotSaveWhileNothingChanged) {
  StateDir dir;
  core::FakeClock clock;
  StateSaver saver(clock, dir.file("s.json"),
                   {[] { return uint64_t{7}; },
                    []() -> core::Result<api::Json> { return api::Json::object(); }});
  saver.start();
  for (int i = 0; i < 5; ++i) {
    clock.advance(seconds(2));
  }
  EXPECT_FALSE(eventually([&] { return saver.saves() > 0; }, std::chrono::milliseconds(50)));
}

TEST(OffsetClockTest, ContinuesFromALaterPointAndNeverGoesBack) {
  core::FakeClock base;
  OffsetClock clock(base);
  const core::TimePoint start = base.now();
  clock.continueFrom(start - seconds(100));
  EXPECT_EQ(clock.now(), start);
  clock.continueFrom(start + seconds(100));
  EXPECT_EQ(clock.now(), start + seconds(100));
  base.advance(seconds(1));
  EXPECT_EQ(clock.now(), start + seconds(101));
  EXPECT_EQ(clock.offset(), seconds(100));
}

}  // namespace
}  // namespace nodewright::emulators
