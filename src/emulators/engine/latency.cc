#include "emulators/engine/latency.h"

#include <cmath>
#include <numbers>

#include "core/check.h"
#include "emulators/engine/config_fields.h"

namespace nodewright::emulators {
namespace {

using std::chrono::microseconds;

// The standard normal's 99th percentile: ln(p99 / p50) = sigma * kZ99.
constexpr double kZ99 = 2.3263478740408408;

double standardNormal(RandomStream& random) {
  // Box-Muller; 1 - unit() is in (0, 1], so the log is finite.
  const double u1 = 1.0 - random.unit();
  const double u2 = random.unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

microseconds roundMicros(double us) {
  // A log-normal tail can be far out; a year is beyond any emulated latency.
  constexpr double kYear = 365.0 * 24 * 3600 * 1e6;
  return microseconds(static_cast<int64_t>(std::llround(std::min(std::max(us, 0.0), kYear))));
}

}  // namespace

Latency Latency::fixed(microseconds d) {
  NW_CHECK(d.count() >= 0);
  Latency l;
  l.kind = Kind::Fixed;
  l.value = d;
  return l;
}

Latency Latency::uniform(microseconds min, microseconds max) {
  NW_CHECK(min.count() >= 0 && min <= max);
  Latency l;
  l.kind = Kind::Uniform;
  l.min = min;
  l.max = max;
  return l;
}

Latency Latency::logNormal(microseconds p50, microseconds p99) {
  NW_CHECK(p50.count() > 0 && p50 <= p99);
  Latency l;
  l.kind = Kind::LogNormal;
  l.p50 = p50;
  l.p99 = p99;
  return l;
}

std::optional<Latency> parseLatency(const api::Json& value, const api::FieldPath& path,
                                    api::FieldErrors& errors) {
  if (value.is_string()) {
    auto d = readDuration(value, path, errors);
    return d ? std::optional(Latency::fixed(*d)) : std::nullopt;
  }
  if (!value.is_object()) {
    errors.push_back({path.str(), api::fielderr::invalid(
                                      value, "must be a duration, {min, max} or {p50, p99}")});
    return std::nullopt;
  }
  const size_t before = errors.size();
  ConfigFields f(value, path, errors);
  auto fixed = f.duration("fixed");
  auto min = f.duration("min");
  auto max = f.duration("max");
  auto p50 = f.duration("p50");
  auto p99 = f.duration("p99");
  f.rejectUnknown();
  if (errors.size() != before) {
    return std::nullopt;
  }
  const int kinds = int(fixed.has_value()) + int(min || max) + int(p50 || p99);
  if (kinds != 1) {
    errors.push_back({path.str(), "must set exactly one of fixed, {min, max} or {p50, p99}"});
    return std::nullopt;
  }
  if (fixed) {
    return Latency::fixed(*fixed);
  }
  if (min || max) {
    if (!min || !max) {
      errors.push_back({path.child(min ? "max" : "min").str(), api::fielderr::required()});
      return std::nullopt;
    }
    if (*max < *min) {
      errors.push_back({path.child("max").str(),
                        api::fielderr::invalid(renderDuration(*max), "must not be below min")});
      return std::nullopt;
    }
    return Latency::uniform(*min, *max);
  }
  if (!p50 || !p99) {
    errors.push_back({path.child(p50 ? "p99" : "p50").str(), api::fielderr::required()});
    return std::nullopt;
  }
  if (p50->count() == 0) {
    errors.push_back({path.child("p50").str(), api::fielderr::invalid("0s", "must be above 0")});
    return std::nullopt;
  }
  if (*p99 < *p50) {
    errors.push_back({path.child("p99").str(),
                      api::fielderr::invalid(renderDuration(*p99), "must not be below p50")});
    return std::nullopt;
  }
  return Latency::logNormal(*p50, *p99);
}

api::Json toJson(const Latency& latency) {
  switch (latency.kind) {
    case Latency::Kind::Fixed:
      return renderDuration(latency.value);
    case Latency::Kind::Uniform:
      return {{"min", renderDuration(latency.min)}, {"max", renderDuration(latency.max)}};
    case Latency::Kind::LogNormal:
      return {{"p50", renderDuration(latency.p50)}, {"p99", renderDuration(latency.p99)}};
  }
  NW_CHECK(false);
  return {};
}

microseconds draw(const Latency& latency, RandomStream& random) {
  switch (latency.kind) {
    case Latency::Kind::Fixed:
      return latency.value;
    case Latency::Kind::Uniform: {
      const double span = static_cast<double>((latency.max - latency.min).count());
      return latency.min + roundMicros(random.unit() * span);
    }
    case Latency::Kind::LogNormal: {
      const double p50 = static_cast<double>(latency.p50.count());
      const double sigma = std::log(static_cast<double>(latency.p99.count()) / p50) / kZ99;
      return roundMicros(p50 * std::exp(sigma * standardNormal(random)));
    }
  }
  NW_CHECK(false);
  return {};
}

LatencyModel::LatencyModel(uint64_t seed, Latency fallback) : seed_(seed), fallback_(fallback) {}

void LatencyModel::set(std::string op, Latency latency) {
  std::lock_guard lock(mu_);
  entries_.insert_or_assign(std::move(op), latency);
}

core::Status LatencyModel::configure(const api::Json& value, const api::FieldPath& root) {
  api::FieldErrors errors;
  std::map<std::string, Latency, std::less<>> entries;
  if (!value.is_object()) {
    errors.push_back({root.str(), api::fielderr::wrongType(value, "object")});
  } else {
    for (const auto& [op, item] : value.items()) {
      if (auto latency = parseLatency(item, root.child(op), errors)) {
        entries.emplace(op, *latency);
      }
    }
  }
  if (!errors.empty()) {
    return core::fail(invalidConfig(errors));
  }
  std::lock_guard lock(mu_);
  entries_ = std::move(entries);
  return core::ok();
}

Latency LatencyModel::lookup(std::string_view op) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(op);
  return it == entries_.end() ? fallback_ : it->second;
}

microseconds LatencyModel::sample(std::string_view op) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(op);
  return draw(it == entries_.end() ? fallback_ : it->second, streamLocked(op));
}

microseconds LatencyModel::sample(std::string_view op, const Latency& latency) {
  std::lock_guard lock(mu_);
  return draw(latency, streamLocked(op));
}

api::Json LatencyModel::toJson() const {
  std::lock_guard lock(mu_);
  api::Json out = api::Json::object();
  for (const auto& [op, latency] : entries_) {
    out[op] = emulators::toJson(latency);
  }
  return out;
}

RandomStream& LatencyModel::streamLocked(std::string_view op) {
  auto it = streams_.find(op);
  if (it == streams_.end()) {
    it = streams_.emplace(std::string(op), RandomStream::named(seed_, op)).first;
  }
  return it->second;
}

}  // namespace nodewright::emulators
