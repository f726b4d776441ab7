#include "runtime/endpoints.h"

#include <atomic>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/runtime/scrape.h"

namespace nodewright::runtime {
namespace {

using testing::fetch;
using testing::Fetched;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class EndpointsTest : public ::testing::Test {
 protected:
  std::unique_ptr<Endpoints> start(bool metrics = true, bool health = true) {
    EndpointsOptions options;
    options.registry = &registry_;
    options.serveMetrics = metrics;
    options.serveHealth = health;
    auto started = Endpoints::start(options);
    EXPECT_TRUE(started) << started.error().message();
    if (!started) {
      return nullptr;
    }
    EXPECT_NE((*started)->port(), 0);
    return std::move(*started);
  }

  Registry registry_;
};

TEST_F(EndpointsTest, ServesMetricsInTextFormat) {
  registry_.counter("scrapes_total", "Scrapes.", {"job"}).with({"test"}).inc(5);
  auto endpoints = start();
  ASSERT_TRUE(endpoints);

  Fetched got = fetch(endpoints->port(), "/metrics");
  ASSERT_EQ(got.error, "");
  EXPECT_EQ(got.status, 200);
  EXPECT_THAT(got.contentType, StartsWith("text/plain; version=0.0.4"));
  EXPECT_EQ(got.body, registry_.render());
  EXPECT_THAT(got.body, HasSubstr("scrapes_total{job=\"test\"} 5\n"));

  // Each scrape renders afresh.
  registry_.counter("scrapes_total", "Scrapes.", {"job"}).with({"test"}).inc();
  EXPECT_THAT(fetch(endpoints->port(), "/metrics").body,
              HasSubstr("scrapes_total{job=\"test\"} 6\n"));
}

TEST_F(EndpointsTest, HealthzIsOkWithoutChecks) {
  auto endpoints = start();
  ASSERT_TRUE(endpoints);
  for (const char* path : {"/healthz", "/readyz"}) {
    Fetched got = fetch(endpoints->port(), path);
    ASSERT_EQ(got.error, "") << path;
    EXPECT_EQ(got.status, 200) << path;
    EXPECT_EQ(got.body, "ok") << path;
  }
}

TEST_F(EndpointsTest, ReadyzFlipsToOkWhenItsCheckPasses) {
  auto endpoints = start();
  ASSERT_TRUE(endpoints);
  std::atomic<bool> synced{false};
  endpoints->addReadyCheck("informers-synced", [&]() -> core::Status {
    if (synced) {
      return core::ok();
    }
    return core::fail(core::Error::internal("NodeClaim informer\nnot synced"));
  });
  endpoints->addReadyCheck("leader", [] { return core::ok(); });

  Fetched before = fetch(endpoints->port(), "/readyz");
  ASSERT_EQ(before.error, "");
  EXPECT_EQ(before.status, 500);
  EXPECT_EQ(before.body,
            "[+]ping ok\n"
            "[-]informers-synced failed: NodeClaim informer not synced\n"
            "[+]leader ok\n"
            "readyz check failed\n");
  // Liveness does not depend on readiness checks.
  EXPECT_EQ(fetch(endpoints->port(), "/healthz").status, 200);

  synced = true;
  Fetched after = fetch(endpoints->port(), "/readyz");
  EXPECT_EQ(after.status, 200);
  EXPECT_EQ(after.body, "ok");
}

TEST_F(EndpointsTest, VerboseListsEveryCheck) {
  auto endpoints = start();
  ASSERT_TRUE(endpoints);
  endpoints->addHealthCheck("workers", [] { return core::ok(); });
  Fetched got = fetch(endpoints->port(), "/healthz?verbose");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body,
            "[+]ping ok\n"
            "[+]workers ok\n"
            "healthz check passed\n");
}

TEST_F(EndpointsTest, ExcludedChecksDoNotFailTheProbe) {
  auto endpoints = start();
  ASSERT_TRUE(endpoints);
  endpoints->addHealthCheck("broken", [] { return core::fail(core::Error::internal("down")); });
  EXPECT_EQ(fetch(endpoints->port(), "/healthz").status, 500);
  Fetched got = fetch(endpoints->port(), "/healthz?exclude=broken&exclude=missing&verbose");
  EXPECT_EQ(got.status, 200);
  EXPECT_THAT(got.body, HasSubstr("[+]broken excluded: ok\n"));
  EXPECT_THAT(got.body, HasSubstr("no matches for \"missing\""));
}

TEST_F(EndpointsTest, AddingACheckTwiceReplacesIt) {
  auto endpoints = start();
  ASSERT_TRUE(endpoints);
  endpoints->addHealthCheck("x", [] { return core::fail(core::Error::internal("old")); });
  endpoints->addHealthCheck("x", [] { return core::ok(); });
  Fetched got = fetch(endpoints->port(), "/healthz?verbose");
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, "[+]ping ok\n[+]x ok\nhealthz check passed\n");
}

TEST_F(EndpointsTest, SeparateListenersServeOnlyTheirPaths) {
  auto metrics = start(/*metrics=*/true, /*health=*/false);
  auto health = start(/*metrics=*/false, /*health=*/true);
  ASSERT_TRUE(metrics && health);
  EXPECT_NE(metrics->port(), health->port());
  EXPECT_EQ(fetch(metrics->port(), "/metrics").status, 200);
  EXPECT_EQ(fetch(metrics->port(), "/healthz").status, 404);
  EXPECT_EQ(fetch(health->port(), "/readyz").status, 200);
  EXPECT_EQ(fetch(health->port(), "/metrics").status, 404);
}

TEST_F(EndpointsTest, RejectsUnknownPathsAndMethods) {
  auto endpoints = start();
  ASSERT_TRUE(endpoints);
  EXPECT_EQ(fetch(endpoints->port(), "/nope").status, 404);
  EXPECT_EQ(fetch(endpoints->port(), "/metrics", "POST").status, 405);
}

TEST_F(EndpointsTest, StopClosesTheListener) {
  auto endpoints = start();
  ASSERT_TRUE(endpoints);
  uint16_t port = endpoints->port();
  endpoints->stop();
  endpoints->stop();  // idempotent
  EXPECT_NE(fetch(port, "/healthz").error, "");
}

TEST_F(EndpointsTest, ReportsAnAddressItCannotUse) {
  EndpointsOptions options;
  options.registry = &registry_;
  options.host = "not-an-address";
  auto started = Endpoints::start(options);
  ASSERT_FALSE(started);
  EXPECT_THAT(started.error().message(), HasSubstr("not-an-address"));
}

}  // namespace
}  // namespace nodewright::runtime
