#include "apiserver/discovery/document_cache.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "apiserver/discovery/test_resources.h"

namespace nodewright::apiserver::discovery {
namespace {

using Snapshot = DocumentCache::Snapshot;

Snapshot snapshotOf(std::vector<ResourcePtr> resources) {
  return std::make_shared<const std::vector<ResourcePtr>>(std::move(resources));
}

// A builder that counts its calls and describes the snapshot it was given.
struct CountingBuilder {
  int calls = 0;
  DocumentCache::Builder builder() {
    return [this](const std::vector<ResourcePtr>& resources) -> core::Result<api::Json> {
      ++calls;
      return api::Json{{"resources", resources.size()}};
    };
  }
};

TEST(DocumentCacheTest, BuildsOncePerSnapshotAndKey) {
  DocumentCache cache;
  CountingBuilder index;
  const Snapshot snapshot = snapshotOf({testing::makeResource("", "v1", "Pod", "pods", true)});
  for (int i = 0; i < 3; ++i) {
    auto body = cache.get(snapshot, "openapi/v3", index.builder());
    ASSERT_TRUE(body);
    EXPECT_EQ(**body, R"({"resources":1})");
  }
  EXPECT_EQ(index.calls, 1);
  CountingBuilder other;
  ASSERT_TRUE(cache.get(snapshot, "openapi/v3/api/v1", other.builder()));
  EXPECT_EQ(other.calls, 1) << "another key is another document";
}

TEST(DocumentCacheTest, ANewSnapshotRebuilds) {
  DocumentCache cache;
  CountingBuilder index;
  const Snapshot before = snapshotOf({testing::makeResource("", "v1", "Pod", "pods", true)});
  ASSERT_TRUE(cache.get(before, "openapi/v3", index.builder()));
  // A CRD published a snapshot with one more kind: the cached index must not be served.
  const Snapshot after =
      snapshotOf({testing::makeResource("", "v1", "Pod", "pods", true),
                  testing::makeResource("example.com", "v1", "Widget", "widgets", true, {}, true)});
  auto body = cache.get(after, "openapi/v3", index.builder());
  ASSERT_TRUE(body);
  EXPECT_EQ(**body, R"({"resources":2})");
  EXPECT_EQ(index.calls, 2);
}

TEST(DocumentCacheTest, FailuresAreNotStored) {
  DocumentCache cache;
  int calls = 0;
  auto failing = [&calls](const std::vector<ResourcePtr>&) -> core::Result<api::Json> {
    ++calls;
    return core::fail(core::Error::notFound("no such group version"));
  };
  const Snapshot snapshot = snapshotOf({});
  EXPECT_FALSE(cache.get(snapshot, "openapi/v3/apis/nope/v1", failing));
  EXPECT_FALSE(cache.get(snapshot, "openapi/v3/apis/nope/v1", failing));
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace nodewright::apiserver::discovery
