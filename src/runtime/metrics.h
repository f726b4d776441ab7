#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

// Prometheus metrics: counters, gauges and histograms with labels, rendered in the text
// exposition format (version 0.0.4) for /metrics. Thread-safe; observing a metric that exists
// takes one shared lock and an atomic add.
//
// Misuse is an environment problem here, not a bug worth a crash: a wrong number of label values
// is padded with "" or truncated, and a name registered twice with different types (or an
// invalid name) yields a working family that is never rendered; each is logged once.
namespace nodewright::runtime {

using Labels = std::vector<std::string>;  // label values, in the order of the family's names

class Counter {
 public:
  // Negative or NaN increments are ignored: a counter only goes up.
  void inc(double by = 1);
  double value() const;

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void set(double v);
  void add(double by);
  double value() const;

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // Upper bounds, sorted and de-duplicated here; +Inf is implicit (given, it is dropped).
  explicit Histogram(const std::vector<double>& bounds);
  // v lands in the first bucket whose bound is >= v (Prometheus' "le"); NaN in +Inf only.
  void observe(double v);
  // The sum of the buckets, so it always equals the +Inf bucket of cumulative().
  uint64_t count() const;
  double sum() const;
  // Cumulative counts per upper bound, then +Inf.
  std::vector<uint64_t> cumulative() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // per bucket, not cumulative; last is +Inf
  std::atomic<double> sum_{0};
};

// client_golang's Summary as Karpenter configures it: quantiles over recent observations, plus
// a running sum and count. Where client_golang estimates the quantiles over a ten-minute window
// (CKMS, error 0.01), this keeps the last kWindow observations and computes them exactly, so a
// scrape never depends on wall time. NaN quantiles before the first observation, as Go renders.
class Summary {
 public:
  static constexpr size_t kWindow = 1024;
  explicit Summary(const std::vector<double>& quantiles);
  void observe(double v);
  uint64_t count() const;
  double sum() const;
  // (quantile, value) for each configured quantile, in ascending order of quantile.
  std::vector<std::pair<double, double>> quantiles() const;

 private:
  std::vector<double> quantiles_;  // fixed after construction
  mutable std::mutex mu_;
  std::vector<double> window_;  // GUARDED_BY(mu_): a ring of the last kWindow observations
  size_t next_ = 0;             // GUARDED_BY(mu_)
  uint64_t count_ = 0;          // GUARDED_BY(mu_)
  double sum_ = 0;              // GUARDED_BY(mu_)
};

// A named family of one metric type; children are created on first use of a label set and live
// as long as the registry, so references from with() stay valid and may be cached.
template <class M>
class Family {
 public:
  // values.size() should equal the number of label names; fewer are padded with "", extra ones
  // dropped (logged once per family).
  M& with(const Labels& values);
  // For families without labels.
  M& get() { return with({}); }
  // Drops the child of these label values (a gauge whose subject is gone, as DeleteLabelValues
  // does); false if there was none. References to it from with() dangle afterwards, so only
  // families whose children are never cached may use it.
  bool remove(const Labels& values);
  // Every child with its label values, sorted.
  std::vector<std::pair<Labels, const M*>> children() const;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const Labels& labelNames() const { return labelNames_; }

 private:
  friend class Registry;
  Family(std::string name, std::string help, Labels labelNames, std::vector<double> bounds)
      : name_(std::move(name)),
        help_(std::move(help)),
        labelNames_(std::move(labelNames)),
        bounds_(std::move(bounds)) {}
  // Fixed after construction.
  const std::string name_;
  const std::string help_;
  const Labels labelNames_;
  const std::vector<double> bounds_;  // histogram bounds or summary quantiles
  std::atomic<bool> warnedLabels_{false};
  mutable std::shared_mutex mu_;
  std::map<Labels, std::unique_ptr<M>> children_;  // GUARDED_BY(mu_)
};

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The same name and type return the same family (help, label names and bounds of the first
  // registration win). The same name with another type, or an invalid metric or label name,
  // returns a detached family: usable, never rendered, logged once.
  Family<Counter>& counter(const std::string& name, const std::string& help,
                           Labels labelNames = {});
  Family<Gauge>& gauge(const std::string& name, const std::string& help, Labels labelNames = {});
  Family<Histogram>& histogram(const std::string& name, const std::string& help,
                               Labels labelNames = {},
                               std::vector<double> bounds = defaultBuckets());
  Family<Summary>& summary(const std::string& name, const std::string& help, Labels labelNames = {},
                           std::vector<double> quantiles = {0, 0.5, 0.9, 0.99, 1});

  // Text exposition format 0.0.4, families sorted by name, children by label values. A family
  // with labels and no children yet renders its HELP and TYPE lines alone, so every family
  // registered at start is listed on /metrics before its first event.
  std::string render() const;

  // Prometheus client's default buckets (5 ms .. 10 s).
  static std::vector<double> defaultBuckets();
  // base·factor^i for i in [0, count); empty for count < 1, base <= 0 or factor <= 1.
  static std::vector<double> exponentialBuckets(double base, double factor, int count);

 private:
  struct Entry;
  template <class M>
  Family<M>& family(const std::string& name, const std::string& help, Labels labelNames,
                    std::vector<double> bounds);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>> families_;  // GUARDED_BY(mu_), rendered
  // GUARDED_BY(mu_): conflicting or invalid registrations, by name and type; never rendered.
  std::map<std::pair<std::string, int>, std::unique_ptr<Entry>> detached_;
};

// Formats a sample value or bucket bound as Prometheus parses it: integers plainly ("42"),
// others in the shortest form that round-trips, "+Inf", "-Inf", "NaN".
std::string formatMetricValue(double v);

// The registry every component of this process reports to.
Registry& defaultRegistry();

}  // namespace nodewright::runtime
