#include "runtime/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <type_traits>

#include "core/log.h"

namespace nodewright::runtime {
namespace {

enum class Type { Counter = 0, Gauge = 1, Histogram = 2, Summary = 3 };

const char* typeName(Type type) {
  switch (type) {
    case Type::Counter:
      return "counter";
    case Type::Gauge:
      return "gauge";
    case Type::Histogram:
      return "histogram";
    case Type::Summary:
      return "summary";
  }
  return "untyped";
}

template <class M>
constexpr Type typeOf();
template <>
constexpr Type typeOf<Counter>() {
  return Type::Counter;
}
template <>
constexpr Type typeOf<Gauge>() {
  return Type::Gauge;
}
template <>
constexpr Type typeOf<Histogram>() {
  return Type::Histogram;
}
template <>
constexpr Type typeOf<Summary>() {
  return Type::Summary;
}

// C++20 has atomic<double>::fetch_add, but a CAS loop works on every standard library.
void atomicAdd(std::atomic<double>& target, double by) {
  double current = target.load(std::memory_order_relaxed);
  while (!target.compare_exchange_weak(current, current + by, std::memory_order_relaxed)) {
  }
}

bool validMetricName(const std::string& name) {
  if (name.empty()) {
    return false;
  }
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) {
      return false;
    }
  }
  return true;
}

// "__" names are reserved for Prometheus itself; "le" is a histogram's own label, "quantile" a
// summary's.
bool validLabelName(const std::string& name, Type type) {
  if (name.empty() || name.rfind("__", 0) == 0) {
    return false;
  }
  if (type == Type::Histogram && name == "le") {
    return false;
  }
  if (type == Type::Summary && name == "quantile") {
    return false;
  }
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) {
      return false;
    }
  }
  return true;
}

// HELP text escapes backslash and newline; label values also escape the double quote.
std::string escape(const std::string& text, bool quote) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

// `{a="x",b="y"}` with an optional trailing `le` (or `quantile`), or "" without any label.
std::string labelText(const Labels& names, const Labels& values, const std::string* le = nullptr,
                      const char* leName = "le") {
  if (names.empty() && !le) {
    return "";
  }
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    out += names[i] + "=\"" + escape(values[i], true) + '"';
  }
  if (le) {
    if (!names.empty()) {
      out += ',';
    }
    out += std::string(leName) + "=\"" + *le + '"';
  }
  out += '}';
  return out;
}

void sampleLine(std::string& out, const std::string& name, const std::string& labels, double v) {
  out += name;
  out += labels;
  out += ' ';
  out += formatMetricValue(v);
  out += '\n';
}

void renderChildren(std::string& out, const Family<Counter>& family) {
  for (const auto& [values, counter] : family.children()) {
    sampleLine(out, family.name(), labelText(family.labelNames(), values), counter->value());
  }
}

void renderChildren(std::string& out, const Family<Gauge>& family) {
  for (const auto& [values, gauge] : family.children()) {
    sampleLine(out, family.name(), labelText(family.labelNames(), values), gauge->value());
  }
}

void renderChildren(std::string& out, const Family<Histogram>& family) {
  for (const auto& [values, histogram] : family.children()) {
    // One snapshot of the buckets, so _count always equals the +Inf bucket.
    std::vector<uint64_t> cumulative = histogram->cumulative();
    const std::vector<double>& bounds = histogram->bounds();
    for (size_t i = 0; i < cumulative.size(); ++i) {
      std::string le = i < bounds.size() ? formatMetricValue(bounds[i]) : "+Inf";
      sampleLine(out, family.name() + "_bucket", labelText(family.labelNames(), values, &le),
                 static_cast<double>(cumulative[i]));
    }
    std::string labels = labelText(family.labelNames(), values);
    sampleLine(out, family.name() + "_sum", labels, histogram->sum());
    sampleLine(out, family.name() + "_count", labels, static_cast<double>(cumulative.back()));
  }
}

void renderChildren(std::string& out, const Family<Summary>& family) {
  for (const auto& [values, summary] : family.children()) {
    for (const auto& [q, v] : summary->quantiles()) {
      std::string quantile = formatMetricValue(q);
      sampleLine(out, family.name(), labelText(family.labelNames(), values, &quantile, "quantile"),
                 v);
    }
    std::string labels = labelText(family.labelNames(), values);
    sampleLine(out, family.name() + "_sum", labels, summary->sum());
    sampleLine(out, family.name() + "_count", labels, static_cast<double>(summary->count()));
  }
}

template <class M>
void renderFamily(std::string& out, const Family<M>& family) {
  std::string body;
  renderChildren(body, family);
  out += "# HELP " + family.name() + ' ' + escape(family.help(), false) + '\n';
  out += "# TYPE " + family.name() + ' ' + typeName(typeOf<M>()) + '\n';
  out += body;
}

}  // namespace

std::string formatMetricValue(double v) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (std::isinf(v)) {
    return v > 0 ? "+Inf" : "-Inf";
  }
  char buffer[64];
  // Exactly representable integers print without a fraction or exponent (1e+06 → 1000000).
  if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0) {
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, static_cast<int64_t>(v));
    return std::string(buffer, end);
  }
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, end);
}

// Counter

void Counter::inc(double by) {
  if (!(by >= 0)) {
    return;
  }
  atomicAdd(value_, by);
}

double Counter::value() const {
  return value_.load(std::memory_order_relaxed);
}

// Gauge

void Gauge::set(double v) {
  value_.store(v, std::memory_order_relaxed);
}

void Gauge::add(double by) {
  atomicAdd(value_, by);
}

double Gauge::value() const {
  return value_.load(std::memory_order_relaxed);
}

// Histogram

Histogram::Histogram(const std::vector<double>& bounds) {
  for (double b : bounds) {
    if (!std::isnan(b) && !(std::isinf(b) && b > 0)) {
      bounds_.push_back(b);
    }
  }
  std::sort(bounds_.begin(), bounds_.end());
  bounds_.erase(std::unique(bounds_.begin(), bounds_.end()), bounds_.end());
  buckets_ = std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1);
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    buckets_[i].store(0, std::memory_order_relaxed);
  }
}

void Histogram::observe(double v) {
  // lower_bound: the first bound >= v. NaN compares false with everything and lands in +Inf.
  size_t i = std::isnan(v)
                 ? bounds_.size()
                 : static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) -
                                       bounds_.begin());
  atomicAdd(sum_, v);
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
}

uint64_t Histogram::count() const {
  return cumulative().back();
}

double Histogram::sum() const {
  return sum_.load(std::memory_order_relaxed);
}

std::vector<uint64_t> Histogram::cumulative() const {
  std::vector<uint64_t> out(bounds_.size() + 1);
  uint64_t total = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    total += buckets_[i].load(std::memory_order_relaxed);
    out[i] = total;
  }
  return out;
}

// Summary

Summary::Summary(const std::vector<double>& quantiles) {
  for (double q : quantiles) {
    if (q >= 0 && q <= 1) {
      quantiles_.push_back(q);
    }
  }
  std::sort(quantiles_.begin(), quantiles_.end());
  quantiles_.erase(std::unique(quantiles_.begin(), quantiles_.end()), quantiles_.end());
}

void Summary::observe(double v) {
  std::lock_guard lock(mu_);
  ++count_;
  sum_ += v;
  if (std::isnan(v)) {
    return;  // counted and summed as Go does, but never a quantile
  }
  if (window_.size() < kWindow) {
    window_.push_back(v);
  } else {
    window_[next_] = v;
    next_ = (next_ + 1) % kWindow;
  }
}

uint64_t Summary::count() const {
  std::lock_guard lock(mu_);
  return count_;
}

double Summary::sum() const {
  std::lock_guard lock(mu_);
  return sum_;
}

std::vector<std::pair<double, double>> Summary::quantiles() const {
  std::vector<double> sorted;
  {
    std::lock_guard lock(mu_);
    sorted = window_;
  }
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::pair<double, double>> out;
  out.reserve(quantiles_.size());
  for (double q : quantiles_) {
    if (sorted.empty()) {
      out.emplace_back(q, std::nan(""));
      continue;
    }
    // The nearest rank: the smallest observation with at least q of them at or below it.
    auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    out.emplace_back(q, sorted[rank == 0 ? 0 : rank - 1]);
  }
  return out;
}

// Family

template <class M>
M& Family<M>::with(const Labels& values) {
  const Labels* key = &values;
  Labels fitted;
  if (values.size() != labelNames_.size()) {
    if (!warnedLabels_.exchange(true)) {
      core::logError("metrics: wrong number of label values, padding or truncating",
                     {{"metric", name_}, {"want", labelNames_.size()}, {"got", values.size()}});
    }
    fitted = values;
    fitted.resize(labelNames_.size());
    key = &fitted;
  }
  {
    std::shared_lock lock(mu_);
    auto it = children_.find(*key);
    if (it != children_.end()) {
      return *it->second;
    }
  }
  std::unique_lock lock(mu_);
  auto& child = children_[*key];
  if (!child) {
    if constexpr (std::is_same_v<M, Histogram> || std::is_same_v<M, Summary>) {
      child = std::make_unique<M>(bounds_);
    } else {
      child = std::make_unique<M>();
    }
  }
  return *child;
}

template <class M>
bool Family<M>::remove(const Labels& values) {
  std::unique_lock lock(mu_);
  return children_.erase(values) > 0;
}

template <class M>
std::vector<std::pair<Labels, const M*>> Family<M>::children() const {
  std::shared_lock lock(mu_);
  std::vector<std::pair<Labels, const M*>> out;
  out.reserve(children_.size());
  for (const auto& [values, child] : children_) {
    out.emplace_back(values, child.get());
  }
  return out;
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;
template class Family<Summary>;

// Registry

struct Registry::Entry {
  Type type;
  std::unique_ptr<Family<Counter>> counter;
  std::unique_ptr<Family<Gauge>> gauge;
  std::unique_ptr<Family<Histogram>> histogram;
  std::unique_ptr<Family<Summary>> summary;

  template <class M>
  std::unique_ptr<Family<M>>& slot() {
    if constexpr (std::is_same_v<M, Counter>) {
      return counter;
    } else if constexpr (std::is_same_v<M, Gauge>) {
      return gauge;
    } else if constexpr (std::is_same_v<M, Histogram>) {
      return histogram;
    } else {
      return summary;
    }
  }
};

Registry::Registry() = default;
Registry::~Registry() = default;

template <class M>
Family<M>& Registry::family(const std::string& name, const std::string& help, Labels labelNames,
                            std::vector<double> bounds) {
  constexpr Type type = typeOf<M>();
  std::lock_guard lock(mu_);
  auto it = families_.find(name);
  if (it != families_.end() && it->second->type == type) {
    Family<M>& existing = *it->second->template slot<M>();
    if (existing.labelNames() != labelNames) {
      core::logWarn("metrics: registered again with other label names, keeping the first",
                    {{"metric", name}});
    }
    return existing;
  }

  bool valid = validMetricName(name) &&
               std::all_of(labelNames.begin(), labelNames.end(),
                           [&](const std::string& l) { return validLabelName(l, type); });
  std::unique_ptr<Entry>* slot = nullptr;
  if (valid && it == families_.end()) {
    slot = &families_[name];
  } else {
    auto key = std::make_pair(name, static_cast<int>(type));
    slot = &detached_[key];
    if (*slot) {
      return *(*slot)->template slot<M>();
    }
    if (!valid) {
      core::logError("metrics: invalid metric or label name, not exported", {{"metric", name}});
    } else {
      core::logError("metrics: name registered with another type, not exported",
                     {{"metric", name},
                      {"type", typeName(type)},
                      {"existing-type", typeName(it->second->type)}});
    }
  }
  auto entry = std::make_unique<Entry>();
  entry->type = type;
  auto& family = entry->template slot<M>();
  family.reset(new Family<M>(name, help, std::move(labelNames), std::move(bounds)));
  // A family without labels shows its zero value from the start, as the Go client does.
  if (family->labelNames().empty()) {
    family->get();
  }
  *slot = std::move(entry);
  return *(*slot)->template slot<M>();
}

Family<Counter>& Registry::counter(const std::string& name, const std::string& help,
                                   Labels labelNames) {
  return family<Counter>(name, help, std::move(labelNames), {});
}

Family<Gauge>& Registry::gauge(const std::string& name, const std::string& help,
                               Labels labelNames) {
  return family<Gauge>(name, help, std::move(labelNames), {});
}

Family<Histogram>& Registry::histogram(const std::string& name, const std::string& help,
                                       Labels labelNames, std::vector<double> bounds) {
  return family<Histogram>(name, help, std::move(labelNames), std::move(bounds));
}

Family<Summary>& Registry::summary(const std::string& name, const std::string& help,
                                   Labels labelNames, std::vector<double> quantiles) {
  return family<Summary>(name, help, std::move(labelNames), std::move(quantiles));
}

std::string Registry::render() const {
  // Families are never removed, so pointers taken under the lock stay valid after it; rendering
  // outside it keeps registrations from waiting on a scrape.
  std::vector<const Entry*> entries;
  {
    std::lock_guard lock(mu_);
    entries.reserve(families_.size());
    for (const auto& [name, entry] : families_) {
      entries.push_back(entry.get());
    }
  }
  std::string out;
  for (const Entry* entry : entries) {
    switch (entry->type) {
      case Type::Counter:
        renderFamily(out, *entry->counter);
        break;
      case Type::Gauge:
        renderFamily(out, *entry->gauge);
        break;
      case Type::Histogram:
        renderFamily(out, *entry->histogram);
        break;
      case Type::Summary:
        renderFamily(out, *entry->summary);
        break;
    }
  }
  return out;
}

std::vector<double> Registry::defaultBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

std::vector<double> Registry::exponentialBuckets(double base, double factor, int count) {
  std::vector<double> out;
  if (count < 1 || !(base > 0) || !(factor > 1)) {
    return out;
  }
  double bound = base;
  for (int i = 0; i < count; ++i) {
    out.push_back(bound);
    bound *= factor;
  }
  return out;
}

Registry& defaultRegistry() {
  static Registry registry;
  return registry;
}

}  // namespace nodewright::runtime
