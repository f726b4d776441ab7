#include "emulators/engine/stats.h"

#include <gtest/gtest.h>

#include "emulators/engine/resource_store.h"

namespace nodewright::emulators {
namespace {

TEST(StatsTest, CountsRequestsErrorsAndCreatesAndRendersJson) {
  core::FakeClock clock;
  ResourceStore store(clock, 1);
  NewResource instance;
  instance.type = "instance";
  instance.idPrefix = "i";
  instance.state = "running";
  ASSERT_TRUE(store.create(instance));
  const std::string gone = store.create(instance)->resource.id;
  ASSERT_TRUE(store.retire("instance", gone, "terminated", std::chrono::hours(1)));

  Stats stats;
  stats.recordRequest("RunInstances");
  stats.recordRequest("RunInstances", "RequestLimitExceeded");
  stats.recordRequest("RunInstances", "RequestLimitExceeded");
  stats.recordRequest("DescribeInstances");
  stats.recordCreate("token-a");
  stats.recordCreate("token-b");
  stats.recordCreate("token-b");
  stats.recordCreate("");
  stats.recordCreate("");

  EXPECT_EQ(stats.requests("RunInstances"), 3u);
  EXPECT_EQ(stats.errors("RunInstances", "RequestLimitExceeded"), 2u);
  EXPECT_EQ(stats.errors("DescribeInstances", "RequestLimitExceeded"), 0u);
  EXPECT_EQ(stats.creates("token-b"), 2u);
  // Requests without a token are not duplicates of each other.
  EXPECT_EQ(stats.duplicateTokens(), std::vector<std::string>{"token-b"});

  EXPECT_EQ(stats.toJson(store), api::Json::parse(R"({
    "requests": {
      "DescribeInstances": {"count": 1, "errors": {}},
      "RunInstances": {"count": 3, "errors": {"RequestLimitExceeded": 2}}
    },
    "createsByClientToken": {"": 2, "token-a": 1, "token-b": 2},
    "duplicateClientTokens": ["token-b"],
    "live": {"instance": 1},
    "retained": {"instance": 1}
  })"));
}

}  // namespace
}  // namespace nodewright::emulators
