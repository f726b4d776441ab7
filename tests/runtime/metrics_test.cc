#include "runtime/metrics.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/apiserver/process.h"
#include "support/runtime/scrape.h"

namespace nodewright::runtime {
namespace {

using testing::findFamily;
using ::testing::HasSubstr;
using testing::parseWithPrometheus;
using testing::sampleValue;

TEST(MetricsTest, CountersAndGaugesKeepValuesPerLabelSet) {
  Registry registry;
  auto& requests = registry.counter("requests_total", "Requests.", {"code"});
  requests.with({"200"}).inc();
  requests.with({"200"}).inc(2);
  requests.with({"500"}).inc();
  requests.with({"500"}).inc(-5);  // ignored: counters only go up
  auto& depth = registry.gauge("depth", "Depth.");
  depth.get().set(7);
  depth.get().add(-2.5);

  EXPECT_EQ(requests.with({"200"}).value(), 3);
  EXPECT_EQ(requests.with({"500"}).value(), 1);
  EXPECT_EQ(depth.get().value(), 4.5);
  EXPECT_EQ(registry.render(),
            "# HELP depth Depth.\n"
            "# TYPE depth gauge\n"
            "depth 4.5\n"
            "# HELP requests_total Requests.\n"
            "# TYPE requests_total counter\n"
            "requests_total{code=\"200\"} 3\n"
            "requests_total{code=\"500\"} 1\n");
}

TEST(MetricsTest, SameNameAndTypeReturnsTheSameFamily) {
  Registry registry;
  auto& a = registry.counter("events_total", "Events.", {"kind"});
  auto& b = registry.counter("events_total", "Other help.", {"kind"});
  EXPECT_EQ(&a, &b);
  b.with({"x"}).inc();
  EXPECT_EQ(a.with({"x"}).value(), 1);
  EXPECT_THAT(registry.render(), HasSubstr("# HELP events_total Events.\n"));
}

TEST(MetricsTest, OtherTypeUnderATakenNameIsUsableButNotRendered) {
  Registry registry;
  registry.counter("work_total", "Work.").get().inc();
  auto& clash = registry.gauge("work_total", "Clash.");
  clash.get().set(99);
  EXPECT_EQ(clash.get().value(), 99);
  // Asked again, the same detached family comes back.
  EXPECT_EQ(&registry.gauge("work_total", "Clash."), &clash);
  EXPECT_EQ(registry.render(),
            "# HELP work_total Work.\n"
            "# TYPE work_total counter\n"
            "work_total 1\n");
}

TEST(MetricsTest, InvalidNamesAreNotRendered) {
  Registry registry;
  registry.counter("bad-name", "Bad.").get().inc();
  registry.gauge("ok_name", "Bad label.", {"bad-label"}).with({"x"}).set(1);
  registry.histogram("h", "Reserved le.", {"le"}).with({"1"}).observe(1);
  EXPECT_EQ(registry.render(), "");
}

TEST(MetricsTest, WrongLabelCountIsPaddedOrTruncated) {
  Registry registry;
  auto& family = registry.counter("calls_total", "Calls.", {"verb", "code"});
  family.with({"get"}).inc();
  family.with({"get", "200", "extra"}).inc(2);
  family.with({}).inc(4);
  EXPECT_EQ(&family.with({"get"}), &family.with({"get", ""}));
  EXPECT_EQ(family.with({"get", ""}).value(), 1);
  EXPECT_EQ(family.with({"get", "200"}).value(), 2);
  EXPECT_EQ(family.with({"", ""}).value(), 4);
  EXPECT_THAT(registry.render(), HasSubstr("calls_total{verb=\"get\",code=\"\"} 1\n"));
}

TEST(MetricsTest, EscapesLabelValuesAndHelp) {
  Registry registry;
  registry.counter("escaped_total", "Line one\nback\\slash \"quoted\"", {"path"})
      .with({"C:\\dir\n\"x\""})
      .inc();
  EXPECT_EQ(registry.render(),
            "# HELP escaped_total Line one\\nback\\\\slash \"quoted\"\n"
            "# TYPE escaped_total counter\n"
            "escaped_total{path=\"C:\\\\dir\\n\\\"x\\\"\"} 1\n");
}

TEST(MetricsTest, HistogramBucketsAreCumulativeWithInf) {
  Registry registry;
  auto& latency = registry.histogram("latency_seconds", "Latency.", {"op"}, {1, 0.5, 2, 1});
  Histogram& h = latency.with({"read"});
  for (double v : {0.1, 0.5, 0.7, 1.0, 1.5, 3.0, 100.0}) {
    h.observe(v);
  }

  EXPECT_EQ(h.bounds(), (std::vector<double>{0.5, 1, 2}));  // sorted, de-duplicated
  EXPECT_EQ(h.cumulative(), (std::vector<uint64_t>{2, 4, 5, 7}));
  EXPECT_EQ(h.count(), 7u);
  EXPECT_DOUBLE_EQ(h.sum(), 106.8);
  EXPECT_EQ(registry.render(),
            "# HELP latency_seconds Latency.\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{op=\"read\",le=\"0.5\"} 2\n"
            "latency_seconds_bucket{op=\"read\",le=\"1\"} 4\n"
            "latency_seconds_bucket{op=\"read\",le=\"2\"} 5\n"
            "latency_seconds_bucket{op=\"read\",le=\"+Inf\"} 7\n"
            "latency_seconds_sum{op=\"read\"} 106.8\n"
            "latency_seconds_count{op=\"read\"} 7\n");
}

TEST(MetricsTest, HistogramWithoutLabelsRendersZeroFromTheStart) {
  Registry registry;
  registry.histogram("empty_seconds", "Empty.", {}, {1});
  EXPECT_EQ(registry.render(),
            "# HELP empty_seconds Empty.\n"
            "# TYPE empty_seconds histogram\n"
            "empty_seconds_bucket{le=\"1\"} 0\n"
            "empty_seconds_bucket{le=\"+Inf\"} 0\n"
            "empty_seconds_sum 0\n"
            "empty_seconds_count 0\n");
}

TEST(MetricsTest, LabelledFamilyWithoutChildrenIsListedFromTheStart) {
  Registry registry;
  registry.counter("unused_total", "Unused.", {"x"});
  const std::string text = registry.render();
  EXPECT_EQ(text,
            "# HELP unused_total Unused.\n"
            "# TYPE unused_total counter\n");
  // Prometheus accepts a family without samples.
  EXPECT_EQ(testing::prometheusParserExitCode(text), 0);
}

TEST(MetricsTest, RemovedChildIsNoLongerRendered) {
  Registry registry;
  auto& nodes = registry.gauge("nodes", "Nodes.", {"node"});
  nodes.with({"a"}).set(1);
  nodes.with({"b"}).set(2);
  EXPECT_TRUE(nodes.remove({"a"}));
  EXPECT_FALSE(nodes.remove({"a"}));
  EXPECT_EQ(registry.render(),
            "# HELP nodes Nodes.\n"
            "# TYPE nodes gauge\n"
            "nodes{node=\"b\"} 2\n");
}

TEST(MetricsTest, SummaryRendersQuantilesSumAndCount) {
  Registry registry;
  auto& startup = registry.summary("startup_seconds", "Startup.", {"pool"});
  for (double v : {4.0, 1.0, 3.0, 2.0}) {
    startup.with({"a"}).observe(v);
  }
  const std::string text = registry.render();
  EXPECT_EQ(text,
            "# HELP startup_seconds Startup.\n"
            "# TYPE startup_seconds summary\n"
            "startup_seconds{pool=\"a\",quantile=\"0\"} 1\n"
            "startup_seconds{pool=\"a\",quantile=\"0.5\"} 2\n"
            "startup_seconds{pool=\"a\",quantile=\"0.9\"} 4\n"
            "startup_seconds{pool=\"a\",quantile=\"0.99\"} 4\n"
            "startup_seconds{pool=\"a\",quantile=\"1\"} 4\n"
            "startup_seconds_sum{pool=\"a\"} 10\n"
            "startup_seconds_count{pool=\"a\"} 4\n");
  EXPECT_EQ(testing::prometheusParserExitCode(text), 0);
}

TEST(MetricsTest, SummaryWithoutObservationsHasNaNQuantiles) {
  Registry registry;
  registry.summary("idle_seconds", "Idle.", {}, {0.5});
  EXPECT_EQ(registry.render(),
            "# HELP idle_seconds Idle.\n"
            "# TYPE idle_seconds summary\n"
            "idle_seconds{quantile=\"0.5\"} NaN\n"
            "idle_seconds_sum 0\n"
            "idle_seconds_count 0\n");
}

TEST(MetricsTest, SummaryKeepsOnlyTheLatestWindow) {
  Summary summary({0, 1});
  for (size_t i = 0; i < Summary::kWindow + 10; ++i) {
    summary.observe(static_cast<double>(i));
  }
  auto q = summary.quantiles();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].second, 10);  // the first ten fell out of the window
  EXPECT_EQ(q[1].second, static_cast<double>(Summary::kWindow + 9));
  EXPECT_EQ(summary.count(), Summary::kWindow + 10);
}

TEST(MetricsTest, FormatsNumbersAsPrometheusParsesThem) {
  EXPECT_EQ(formatMetricValue(0), "0");
  EXPECT_EQ(formatMetricValue(-0.0), "0");
  EXPECT_EQ(formatMetricValue(1e6), "1000000");
  EXPECT_EQ(formatMetricValue(-42), "-42");
  EXPECT_EQ(formatMetricValue(9007199254740991.0), "9007199254740991");
  EXPECT_EQ(formatMetricValue(0.005), "0.005");
  EXPECT_EQ(formatMetricValue(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(formatMetricValue(1e20), "1e+20");
  EXPECT_EQ(formatMetricValue(1.5e-7), "1.5e-07");
  EXPECT_EQ(formatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(formatMetricValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(formatMetricValue(std::nan("")), "NaN");
}

TEST(MetricsTest, BucketHelpers) {
  EXPECT_EQ(Registry::defaultBuckets().front(), 0.005);
  EXPECT_EQ(Registry::defaultBuckets().back(), 10);
  EXPECT_EQ(Registry::exponentialBuckets(0.001, 10, 4),
            (std::vector<double>{0.001, 0.001 * 10, 0.001 * 10 * 10, 0.001 * 10 * 10 * 10}));
  EXPECT_TRUE(Registry::exponentialBuckets(1, 2, 0).empty());
  EXPECT_TRUE(Registry::exponentialBuckets(0, 2, 3).empty());
  EXPECT_TRUE(Registry::exponentialBuckets(1, 1, 3).empty());
}

TEST(MetricsTest, PrometheusParserReadsTheRenderedText) {
  Registry registry;
  auto& reconciles = registry.counter("controller_runtime_reconcile_total", "Reconciles.",
                                      {"controller", "result"});
  reconciles.with({"nodeclaim", "success"}).inc(3);
  reconciles.with({"node\"claim\\\n", "error"}).inc();
  registry.gauge("workqueue_depth", "Depth with \\ and\nnewline.", {"name"})
      .with({"nodepool"})
      .set(1e20);
  registry.gauge("odd_values", "Odd.", {"kind"})
      .with({"inf"})
      .set(std::numeric_limits<double>::infinity());
  registry.gauge("odd_values", "Odd.", {"kind"}).with({"nan"}).set(std::nan(""));
  registry.gauge("odd_values", "Odd.", {"kind"}).with({"small"}).set(1.5e-7);
  auto& h = registry.histogram("reconcile_time_seconds", "Time.", {"controller"},
                               Registry::exponentialBuckets(0.001, 2, 3));
  h.with({"nodeclaim"}).observe(0.0015);
  h.with({"nodeclaim"}).observe(0.01);

  std::string text = registry.render();
  nlohmann::json families = parseWithPrometheus(text);
  ASSERT_EQ(families.size(), 4u) << families.dump(2);

  // The parser drops a counter's _total from the family name.
  const auto* counter = findFamily(families, "controller_runtime_reconcile");
  ASSERT_NE(counter, nullptr) << families.dump(2);
  EXPECT_EQ((*counter)["type"], "counter");
  EXPECT_EQ(sampleValue(*counter, "controller_runtime_reconcile_total",
                        {{"controller", "nodeclaim"}, {"result", "success"}}),
            3);
  EXPECT_EQ(sampleValue(*counter, "controller_runtime_reconcile_total",
                        {{"controller", "node\"claim\\\n"}, {"result", "error"}}),
            1);

  const auto* depth = findFamily(families, "workqueue_depth");
  ASSERT_NE(depth, nullptr);
  EXPECT_EQ((*depth)["type"], "gauge");
  EXPECT_EQ((*depth)["help"], "Depth with \\ and\nnewline.");
  EXPECT_EQ(sampleValue(*depth, "workqueue_depth", {{"name", "nodepool"}}), 1e20);

  const auto* odd = findFamily(families, "odd_values");
  ASSERT_NE(odd, nullptr);
  EXPECT_TRUE(std::isinf(sampleValue(*odd, "odd_values", {{"kind", "inf"}})));
  EXPECT_TRUE(std::isnan(sampleValue(*odd, "odd_values", {{"kind", "nan"}})));
  EXPECT_EQ(sampleValue(*odd, "odd_values", {{"kind", "small"}}), 1.5e-7);

  const auto* time = findFamily(families, "reconcile_time_seconds");
  ASSERT_NE(time, nullptr);
  EXPECT_EQ((*time)["type"], "histogram");
  const std::string bucket = "reconcile_time_seconds_bucket";
  EXPECT_EQ(sampleValue(*time, bucket, {{"controller", "nodeclaim"}, {"le", "0.001"}}), 0);
  EXPECT_EQ(sampleValue(*time, bucket, {{"controller", "nodeclaim"}, {"le", "0.002"}}), 1);
  EXPECT_EQ(sampleValue(*time, bucket, {{"controller", "nodeclaim"}, {"le", "0.004"}}), 1);
  EXPECT_EQ(sampleValue(*time, bucket, {{"controller", "nodeclaim"}, {"le", "+Inf"}}), 2);
  EXPECT_DOUBLE_EQ(sampleValue(*time, "reconcile_time_seconds_sum", {{"controller", "nodeclaim"}}),
                   0.0115);
  EXPECT_EQ(sampleValue(*time, "reconcile_time_seconds_count", {{"controller", "nodeclaim"}}), 2);
}

TEST(MetricsTest, ParserRejectsBrokenTextSoTheCheckCanFail) {
  EXPECT_NE(testing::prometheusParserExitCode("m{a=\"unterminated} 1\n"), 0);
}

TEST(MetricsTest, ConcurrentIncrementsAreAllCountedWhileRendering) {
  Registry registry;
  auto& family = registry.counter("hits_total", "Hits.", {"worker", "slot"});
  auto& shared = registry.counter("shared_total", "Shared.");
  auto& h = registry.histogram("obs", "Observations.", {}, {0.5});
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  std::atomic<bool> done{false};
  std::thread scraper([&] {
    while (!done) {
      std::string text = registry.render();
      // Whatever the moment, a histogram's _count is its +Inf bucket.
      auto inf = text.find("obs_bucket{le=\"+Inf\"} ");
      auto count = text.find("obs_count ");
      ASSERT_NE(inf, std::string::npos);
      ASSERT_NE(count, std::string::npos);
      std::string infValue = text.substr(inf + 22, text.find('\n', inf) - inf - 22);
      std::string countValue = text.substr(count + 10, text.find('\n', count) - count - 10);
      ASSERT_EQ(infValue, countValue);
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // New children appear while the scraper reads the family.
        family.with({std::to_string(t), std::to_string(i % 50)}).inc();
        shared.get().inc();
        h.get().observe(i % 2);
      }
    });
  }
  for (auto& w : workers) {
    w.join();
  }
  done = true;
  scraper.join();

  EXPECT_EQ(shared.get().value(), kThreads * kPerThread);
  EXPECT_EQ(h.get().count(), static_cast<uint64_t>(kThreads * kPerThread));
  EXPECT_EQ(h.get().cumulative()[0], static_cast<uint64_t>(kThreads * kPerThread / 2));
  EXPECT_EQ(h.get().sum(), kThreads * kPerThread / 2);
  double total = 0;
  for (const auto& [labels, counter] : family.children()) {
    total += counter->value();
  }
  EXPECT_EQ(total, kThreads * kPerThread);
  EXPECT_EQ(family.children().size(), static_cast<size_t>(kThreads * 50));
  EXPECT_THAT(registry.render(), HasSubstr("shared_total 80000\n"));
}

TEST(MetricsTest, DefaultRegistryIsOneInstance) {
  EXPECT_EQ(&defaultRegistry(), &defaultRegistry());
}

}  // namespace
}  // namespace nodewright::runtime
