#include "lro/adaptive_timeout.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/metrics.h"

namespace nodewright::lro {
namespace {

using namespace std::chrono_literals;
using std::chrono::microseconds;
using std::chrono::milliseconds;

DurationSample done(microseconds d) {
  return DurationSample{d, true};
}
DurationSample running(microseconds d) {
  return DurationSample{d, false};
}

TEST(QuickQuantileTest, IsTheEmpiricalQuantileWithoutCensoring) {
  std::vector<DurationSample> samples;
  for (int i = 1; i <= 100; ++i) {
    samples.push_back(done(milliseconds(i)));
  }
  EXPECT_EQ(quickQuantile(samples, 0.99, 10s), microseconds(99ms));
  EXPECT_EQ(quickQuantile(samples, 0.5, 10s), microseconds(50ms));
}

TEST(QuickQuantileTest, CountsParkedOperationsAsStillRunning) {
  // Kaplan-Meier: F(1) = 1/4; 2 is censored; F(3) = 1 - 3/4 * 1/2 = 5/8; F(4) = 1.
  std::vector<DurationSample> samples = {done(1s), running(2s), done(3s), done(4s)};
  EXPECT_EQ(quickQuantile(samples, 0.25, 10s), microseconds(1s));
  EXPECT_EQ(quickQuantile(samples, 0.5, 10s), microseconds(3s));
  EXPECT_EQ(quickQuantile(samples, 0.7, 10s), microseconds(4s));
}

TEST(QuickQuantileTest, IgnoresOperationsSlowerThanMax) {
  std::vector<DurationSample> samples;
  for (int i = 1; i <= 100; ++i) {
    samples.push_back(done(milliseconds(i)));
    samples.push_back(done(45s));  // a VM: not quick
    samples.push_back(running(10s));
  }
  EXPECT_EQ(quickQuantile(samples, 0.99, 10s), microseconds(99ms));
}

TEST(QuickQuantileTest, IsNothingWhenNoOperationFinishesWithinMax) {
  EXPECT_EQ(quickQuantile({running(2s), done(11s)}, 0.99, 10s), std::nullopt);
  EXPECT_EQ(quickQuantile({}, 0.99, 10s), std::nullopt);
}

class AdaptiveTimeoutsTest : public ::testing::Test {
 protected:
  AdaptiveOptions options() const {
    AdaptiveOptions o;
    o.minSamples = 50;
    return o;
  }
  runtime::Registry metrics_;
};

TEST_F(AdaptiveTimeoutsTest, StaysAtTheCallTimeoutUntilEnoughSamples) {
  AdaptiveTimeouts a(options(), 2s, &metrics_);
  for (int i = 0; i < 49; ++i) {
    a.finished("subnets", Verb::Put, 800ms);
  }
  EXPECT_EQ(a.current("subnets", Verb::Put), 2s);
  a.finished("subnets", Verb::Put, 800ms);
  EXPECT_EQ(a.current("subnets", Verb::Put), 800ms);
  EXPECT_EQ(a.current("subnets", Verb::Delete), 2s);  // per verb
  EXPECT_EQ(a.current("publicips", Verb::Put), 2s);   // per service
}

TEST_F(AdaptiveTimeoutsTest, ClampsToTheMinimum) {
  AdaptiveTimeouts a(options(), 2s, nullptr);
  for (int i = 0; i < 50; ++i) {
    a.finished("subnets", Verb::Put, 30ms);
  }
  EXPECT_EQ(a.current("subnets", Verb::Put), 500ms);
}

TEST_F(AdaptiveTimeoutsTest, DropsToTheMinimumWhenNothingFinishesQuickly) {
  AdaptiveTimeouts a(options(), 2s, nullptr);
  for (int i = 0; i < 50; ++i) {
    a.parked("bastionhosts", Verb::Put, i % 8 == 0 ? 10s : 2s);
  }
  EXPECT_EQ(a.current("bastionhosts", Verb::Put), 500ms);
}

TEST_F(AdaptiveTimeoutsTest, ProbesEveryNthOperationWithTheMaximum) {
  AdaptiveTimeouts a(options(), 2s, nullptr);
  std::vector<int> probes;
  for (int i = 1; i <= 16; ++i) {
    AdaptiveTimeouts::Window w = a.begin("subnets", Verb::Put);
    EXPECT_EQ(w.timeout, w.probe ? milliseconds(10s) : milliseconds(2s));
    if (w.probe) {
      probes.push_back(i);
    }
  }
  EXPECT_EQ(probes, (std::vector<int>{8, 16}));
}

TEST_F(AdaptiveTimeoutsTest, DisabledKeepsTheCallTimeout) {
  AdaptiveOptions o = options();
  o.enabled = false;
  AdaptiveTimeouts a(o, 2s, nullptr);
  for (int i = 0; i < 100; ++i) {
    a.finished("subnets", Verb::Put, 30ms);
    EXPECT_FALSE(a.begin("subnets", Verb::Put).probe);
  }
  EXPECT_EQ(a.current("subnets", Verb::Put), 2s);
}

// Off, the window is the fixed call timeout; it is still what operators need to see.
TEST_F(AdaptiveTimeoutsTest, DisabledStillExportsTheCallTimeout) {
  AdaptiveOptions o = options();
  o.enabled = false;
  AdaptiveTimeouts a(o, 2s, &metrics_);
  EXPECT_EQ(a.begin("subnets", Verb::Put).timeout, 2s);
  EXPECT_NE(metrics_.render().find("nodewright_lro_call_timeout_seconds{service=\"subnets\","
                                   "verb=\"PUT\"} 2"),
            std::string::npos)
      << metrics_.render();
}

TEST_F(AdaptiveTimeoutsTest, ExportsTheTimeoutAsAGauge) {
  AdaptiveTimeouts a(options(), 2s, &metrics_);
  auto& gauge = metrics_.gauge("nodewright_lro_call_timeout_seconds", "", {"service", "verb"});
  a.begin("subnets", Verb::Delete);
  EXPECT_EQ(gauge.with({"subnets", "DELETE"}).value(), 2.0);
  for (int i = 0; i < 50; ++i) {
    a.finished("subnets", Verb::Delete, 1500ms);
  }
  EXPECT_EQ(gauge.with({"subnets", "DELETE"}).value(), 1.5);
  EXPECT_NE(metrics_.render().find("nodewright_lro_call_timeout_seconds{service=\"subnets\","
                                   "verb=\"DELETE\"} 1.5"),
            std::string::npos);
}

TEST_F(AdaptiveTimeoutsTest, KeepsOnlyTheLastWindowOfSamples) {
  AdaptiveOptions o = options();
  o.window = 64;
  AdaptiveTimeouts a(o, 2s, nullptr);
  for (int i = 0; i < 64; ++i) {
    a.finished("subnets", Verb::Put, 5s);
  }
  EXPECT_EQ(a.current("subnets", Verb::Put), 5s);
  for (int i = 0; i < 64; ++i) {
    a.finished("subnets", Verb::Put, 1s);
  }
  EXPECT_EQ(a.sampleCount("subnets", Verb::Put), 64u);
  EXPECT_EQ(a.current("subnets", Verb::Put), 1s);
}

// Quick operations log-normal around 800 ms (p99 about 2.56 s), 30% slow ones (30-60 s). Each
// operation is observed the way the engine observes it: finished if it ends within its window,
// otherwise parked (censored) at the window. The timeout must end near the p99 of the quick
// ones and never leave its bounds. A p99 from a 1,024-sample window is itself noisy (about 10%
// without censoring), hence a per-run tolerance and a tighter one on the mean over runs.
TEST_F(AdaptiveTimeoutsTest, ConvergesToTheP99OfQuickOperations) {
  std::vector<double> ratios;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    AdaptiveTimeouts a(options(), 2s, nullptr);
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> quick(std::log(0.8), 0.5);
    std::uniform_real_distribution<double> slow(30, 60);
    std::bernoulli_distribution isSlow(0.3);
    std::vector<double> quickDrawn;
    for (int i = 0; i < 4000; ++i) {
      double seconds = isSlow(rng) ? slow(rng) : quick(rng);
      if (seconds < 10) {
        quickDrawn.push_back(seconds);
      }
      auto d = std::chrono::duration_cast<microseconds>(std::chrono::duration<double>(seconds));
      AdaptiveTimeouts::Window w = a.begin("vms", Verb::Put);
      if (d <= w.timeout) {
        a.finished("vms", Verb::Put, d);
      } else {
        a.parked("vms", Verb::Put, w.timeout);
      }
      ASSERT_GE(a.current("vms", Verb::Put), 500ms);
      ASSERT_LE(a.current("vms", Verb::Put), 10s);
    }
    std::sort(quickDrawn.begin(), quickDrawn.end());
    double p99 = quickDrawn[static_cast<size_t>(0.99 * static_cast<double>(quickDrawn.size()))];
    double got = std::chrono::duration<double>(a.current("vms", Verb::Put)).count();
    EXPECT_NEAR(got, p99, 0.3 * p99) << "seed " << seed;
    ratios.push_back(got / p99);
  }
  double mean = 0;
  for (double r : ratios) {
    mean += r / static_cast<double>(ratios.size());
  }
  EXPECT_NEAR(mean, 1.0, 0.1);
}

TEST_F(AdaptiveTimeoutsTest, IsSafeToUseFromManyThreads) {
  AdaptiveOptions o = options();
  o.window = 256;
  AdaptiveTimeouts a(o, 2s, &metrics_);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&a, t] {
      for (int i = 0; i < 500; ++i) {
        Verb verb = i % 2 == 0 ? Verb::Put : Verb::Delete;
        AdaptiveTimeouts::Window w = a.begin("subnets", verb);
        if (i % 3 == 0) {
          a.parked("subnets", verb, w.timeout);
        } else {
          a.finished("subnets", verb, milliseconds(100 + 10 * t));
        }
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  EXPECT_EQ(a.sampleCount("subnets", Verb::Put), 256u);
  EXPECT_EQ(a.sampleCount("subnets", Verb::Delete), 256u);
}

}  // namespace
}  // namespace nodewright::lro
