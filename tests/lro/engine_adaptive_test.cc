#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lro/engine.h"
#include "lro/engine_fixture.h"

namespace nodewright::lro::testing {
namespace {

// The engine's own observations (begin to the poll that saw the end, or parked at the end of
// the window) drive the adaptive timeout, all on simulated time: a fresh vnet per reconcile,
// 70% finishing log-normally around 800 ms, 30% taking 30-60 s.
TEST_F(EngineTest, AdaptiveCallTimeoutConvergesUnderALatencyDistribution) {
  EngineOptions options;  // adaptive on: min 500 ms, max 10 s, 50 samples, probe every 8th
  options.pollInterval = 100ms;
  restart(options);
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> quick(std::log(0.8), 0.5);
  std::uniform_real_distribution<double> slow(30, 60);
  std::bernoulli_distribution isSlow(0.3);
  std::vector<double> quickDrawn;
  cloud_.setLatencySource([&] {
    double seconds = isSlow(rng) ? slow(rng) : quick(rng);
    if (seconds < 10) {
      quickDrawn.push_back(seconds);
    }
    return std::chrono::duration_cast<milliseconds>(std::chrono::duration<double>(seconds));
  });

  for (int i = 0; i < 2500; ++i) {
    TestSpec spec(vnetRef("vnet-" + std::to_string(i)), vnetBody());
    OperationRecords futures;
    auto start = clock_.steadyNow();
    Outcome o = engine().createOrUpdate(spec, futures);
    ASSERT_NE(o.kind, Outcome::Kind::Failed);
    // No call blocks longer than the upper bound.
    ASSERT_LE(elapsedSince(start), 10s);
    milliseconds current = engine().adaptive().current("virtualnetworks", Verb::Put);
    ASSERT_GE(current, 500ms);
    ASSERT_LE(current, 10s);
  }

  std::sort(quickDrawn.begin(), quickDrawn.end());
  double p99 = quickDrawn[static_cast<size_t>(0.99 * static_cast<double>(quickDrawn.size()))];
  double got =
      std::chrono::duration<double>(engine().adaptive().current("virtualnetworks", Verb::Put))
          .count();
  EXPECT_NEAR(got, p99, 0.25 * p99);
  double gauge = metrics_->gauge("nodewright_lro_call_timeout_seconds", "", {"service", "verb"})
                     .with({"virtualnetworks", "PUT"})
                     .value();
  EXPECT_EQ(gauge, got);
}

// Only a park at the end of the window says "still running after the window"; a park at once
// for a Retry-After past the window, or after a poll error, says nothing about the duration
// and must not be counted as an operation that ran for ~0 s.
TEST_F(EngineTest, OnlyParksAtTheEndOfTheWindowAreCensoredSamples) {
  restart(EngineOptions{});  // adaptive on
  cloud_.setLatency(30s);
  const std::string service = "virtualnetworks";

  cloud_.setRetryAfter(7s);
  TestSpec later(vnetRef("retry-after"), vnetBody());
  OperationRecords f1;
  ASSERT_EQ(engine().createOrUpdate(later, f1).kind, Outcome::Kind::NotDone);
  EXPECT_EQ(engine().adaptive().sampleCount(service, Verb::Put), 0u);

  cloud_.setRetryAfter(std::nullopt);
  cloud_.failNext(FakeOperations::Method::Poll,
                  FakeOperations::error(CallError::Kind::Transient, "GatewayTimeout"));
  TestSpec failing(vnetRef("poll-error"), vnetBody());
  OperationRecords f2;
  ASSERT_EQ(engine().createOrUpdate(failing, f2).kind, Outcome::Kind::NotDone);
  EXPECT_EQ(engine().adaptive().sampleCount(service, Verb::Put), 0u);

  TestSpec slow(vnetRef("slow"), vnetBody());
  OperationRecords f3;
  ASSERT_EQ(engine().createOrUpdate(slow, f3).kind, Outcome::Kind::NotDone);
  EXPECT_EQ(engine().adaptive().sampleCount(service, Verb::Put), 1u);
}

}  // namespace
}  // namespace nodewright::lro::testing
