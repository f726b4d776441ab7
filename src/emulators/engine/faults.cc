#include "emulators/engine/faults.h"

#include <sstream>

#include "api/yaml.h"
#include "emulators/engine/config_fields.h"

namespace nodewright::emulators {
namespace {

using api::FieldPath;
using api::Json;
namespace fielderr = api::fielderr;

constexpr std::string_view kAnyAction = "*";

std::optional<ErrorRule> parseErrorRule(const Json& value, const FieldPath& path,
                                        api::FieldErrors& errors) {
  if (!value.is_object()) {
    errors.push_back({path.str(), fielderr::wrongType(value, "object")});
    return std::nullopt;
  }
  const size_t before = errors.size();
  ConfigFields f(value, path, errors);
  ErrorRule rule;
  if (auto code = f.string("code")) {
    if (code->empty()) {
      f.error("code", fielderr::required());
    }
    rule.code = *code;
  } else if (f.field("code") == nullptr) {
    f.error("code", fielderr::required());
  }
  rule.message = f.string("message").value_or("");
  if (auto p = f.number("probability")) {
    if (!(*p >= 0 && *p <= 1)) {
      f.error("probability", fielderr::invalid(*f.field("probability"), "must be from 0 to 1"));
    }
    rule.probability = *p;
  } else if (!f.field("probability")) {
    f.error("probability", fielderr::required());
  }
  if (auto status = f.integer("status")) {
    if (*status < 400 || *status > 599) {
      f.error("status", fielderr::invalid(*status, "must be an HTTP error status (400-599)"));
    }
    rule.status = static_cast<int>(*status);
  }
  f.rejectUnknown();
  if (errors.size() != before) {
    return std::nullopt;
  }
  return rule;
}

void parseErrors(const Json& value, const FieldPath& path, FaultConfig& out,
                 api::FieldErrors& errors) {
  if (!value.is_object()) {
    errors.push_back({path.str(), fielderr::wrongType(value, "object")});
    return;
  }
  for (const auto& [action, rules] : value.items()) {
    const FieldPath at = path.child(action);
    if (!rules.is_array()) {
      errors.push_back({at.str(), fielderr::wrongType(rules, "array")});
      continue;
    }
    std::vector<ErrorRule> parsed;
    double total = 0;
    for (size_t i = 0; i < rules.size(); ++i) {
      if (auto rule = parseErrorRule(rules[i], at.index(i), errors)) {
        total += rule->probability;
        parsed.push_back(std::move(*rule));
      }
    }
    // One roll picks at most one rule, so their shares must fit in one request.
    if (total > 1 + 1e-9) {
      std::ostringstream sum;
      sum << total;
      errors.push_back({at.str(), "probabilities add up to " + sum.str() + "; must be at most 1"});
    }
    out.errors[action] = std::move(parsed);
  }
}

std::optional<CapacityPool> parsePool(const Json& value, const FieldPath& path,
                                      api::FieldErrors& errors) {
  const size_t before = errors.size();
  if (!value.is_object()) {
    errors.push_back({path.str(), fielderr::wrongType(value, "object")});
    return std::nullopt;
  }
  ConfigFields f(value, path, errors);
  CapacityPool pool;
  pool.instanceType = f.string("instanceType").value_or("");
  pool.zone = f.string("zone").value_or("");
  pool.capacityType = f.string("capacityType").value_or("");
  if (auto remaining = f.integer("remaining")) {
    if (*remaining < 0) {
      f.error("remaining", fielderr::invalid(*remaining, "must not be negative"));
    }
    pool.remaining = *remaining;
  }
  f.rejectUnknown();
  if (errors.size() != before) {
    return std::nullopt;
  }
  return pool;
}

bool matches(const std::string& pattern, std::string_view value) {
  return pattern.empty() || pattern == "*" || pattern == value;
}

// The first pool of `pools` (const or not) matching `key`, or nullptr.
template <class Pools>
auto* findPool(Pools& pools, const CapacityKey& key) {
  decltype(&*pools.begin()) found = nullptr;
  for (auto& pool : pools) {
    if (matches(pool.instanceType, key.instanceType) && matches(pool.zone, key.zone) &&
        matches(pool.capacityType, key.capacityType)) {
      found = &pool;
      break;
    }
  }
  return found;
}

}  // namespace

core::Result<FaultConfig> parseFaultConfig(const Json& value) {
  api::FieldErrors errors;
  FaultConfig out;
  if (!value.is_object() && !value.is_null()) {
    errors.push_back({"", fielderr::wrongType(value, "object")});
    return core::fail(invalidConfig(errors));
  }
  ConfigFields f(value, FieldPath(), errors);
  if (const Json* seed = f.field("seed")) {
    const bool natural =
        seed->is_number_unsigned() || (seed->is_number_integer() && seed->get<int64_t>() >= 0);
    if (natural) {
      out.seed = seed->get<uint64_t>();
    } else {
      f.error("seed", fielderr::invalid(*seed, "must be a non-negative integer"));
    }
  }
  if (const Json* v = f.field("errors")) {
    parseErrors(*v, f.path("errors"), out, errors);
  }
  if (const Json* v = f.field("capacity")) {
    if (!v->is_array()) {
      f.error("capacity", fielderr::wrongType(*v, "array"));
    } else {
      for (size_t i = 0; i < v->size(); ++i) {
        if (auto pool = parsePool((*v)[i], f.path("capacity").index(i), errors)) {
          out.capacity.push_back(std::move(*pool));
        }
      }
    }
  }
  if (const Json* v = f.field("latencies")) {
    if (!v->is_object()) {
      f.error("latencies", fielderr::wrongType(*v, "object"));
    } else {
      for (const auto& [op, item] : v->items()) {
        if (auto latency = parseLatency(item, f.path("latencies").child(op), errors)) {
          out.latencies.emplace(op, *latency);
        }
      }
    }
  }
  if (auto throttling = f.boolean("throttling")) {
    out.throttling = *throttling;
  }
  f.rejectUnknown();
  if (!errors.empty()) {
    return core::fail(invalidConfig(errors));
  }
  return out;
}

core::Result<FaultConfig> parseFaultConfigText(std::string_view text) {
  auto docs = api::parseDocuments(text);
  if (!docs) {
    return core::fail(docs.error());
  }
  if (docs->size() > 1) {
    return core::fail(core::Error::invalid("holds " + std::to_string(docs->size()) +
                                           " documents; a fault configuration is one"));
  }
  if (docs->empty()) {
    return FaultConfig{};
  }
  if (!docs->front().errors.empty()) {
    return core::fail(invalidConfig(docs->front().errors));
  }
  return parseFaultConfig(docs->front().value);
}

Json toJson(const FaultConfig& config) {
  Json out = Json::object();
  out["seed"] = config.seed;
  Json errors = Json::object();
  for (const auto& [action, rules] : config.errors) {
    Json list = Json::array();
    for (const ErrorRule& rule : rules) {
      Json r = {{"code", rule.code}};
      if (!rule.message.empty()) {
        r["message"] = rule.message;
      }
      r["probability"] = rule.probability;
      if (rule.status != 0) {
        r["status"] = rule.status;
      }
      list.push_back(std::move(r));
    }
    errors[action] = std::move(list);
  }
  out["errors"] = std::move(errors);
  Json capacity = Json::array();
  for (const CapacityPool& pool : config.capacity) {
    Json p = Json::object();
    if (!pool.instanceType.empty()) {
      p["instanceType"] = pool.instanceType;
    }
    if (!pool.zone.empty()) {
      p["zone"] = pool.zone;
    }
    if (!pool.capacityType.empty()) {
      p["capacityType"] = pool.capacityType;
    }
    if (pool.remaining) {
      p["remaining"] = *pool.remaining;
    }
    capacity.push_back(std::move(p));
  }
  out["capacity"] = std::move(capacity);
  Json latencies = Json::object();
  for (const auto& [op, latency] : config.latencies) {
    latencies[op] = toJson(latency);
  }
  out["latencies"] = std::move(latencies);
  out["throttling"] = config.throttling;
  return out;
}

Faults::Faults(FaultConfig config) : config_(std::move(config)) {}

void Faults::replace(FaultConfig config) {
  std::lock_guard lock(mu_);
  config_ = std::move(config);
  streams_.clear();
}

core::Status Faults::replace(const Json& value) {
  auto config = parseFaultConfig(value);
  if (!config) {
    return core::fail(config.error());
  }
  replace(std::move(*config));
  return core::ok();
}

FaultConfig Faults::config() const {
  std::lock_guard lock(mu_);
  return config_;
}

std::optional<InjectedError> Faults::roll(std::string_view action) {
  std::lock_guard lock(mu_);
  auto rules = config_.errors.find(action);
  if (rules == config_.errors.end()) {
    rules = config_.errors.find(kAnyAction);
  }
  if (rules == config_.errors.end() || rules->second.empty()) {
    return std::nullopt;
  }
  auto stream = streams_.find(action);
  if (stream == streams_.end()) {
    stream = streams_.emplace(std::string(action), RandomStream::named(config_.seed, action)).first;
  }
  // One draw per request, whatever the rules, so adding a rule does not shift later rolls.
  const double u = stream->second.unit();
  double upTo = 0;
  for (const ErrorRule& rule : rules->second) {
    upTo += rule.probability;
    if (u < upTo) {
      return InjectedError{rule.code, rule.message, rule.status};
    }
  }
  return std::nullopt;
}

CapacityPool* Faults::poolLocked(const CapacityKey& key) {
  return findPool(config_.capacity, key);
}

std::optional<int64_t> remainingCapacity(const FaultConfig& config, const CapacityKey& key) {
  const CapacityPool* pool = findPool(config.capacity, key);
  return pool ? std::optional(pool->remaining.value_or(0)) : std::nullopt;
}

int64_t Faults::takeCapacity(const CapacityKey& key, int64_t wanted, int64_t atLeast) {
  std::lock_guard lock(mu_);
  CapacityPool* pool = poolLocked(key);
  if (pool == nullptr) {
    return wanted;
  }
  if (!pool->remaining || *pool->remaining < atLeast) {
    return 0;
  }
  const int64_t granted = std::min(wanted, *pool->remaining);
  *pool->remaining -= granted;
  return granted;
}

void Faults::returnCapacity(const CapacityKey& key, int64_t launches) {
  std::lock_guard lock(mu_);
  CapacityPool* pool = poolLocked(key);
  if (pool != nullptr && pool->remaining) {
    *pool->remaining += launches;
  }
}

std::optional<Latency> Faults::forcedLatency(std::string_view op) const {
  std::lock_guard lock(mu_);
  auto it = config_.latencies.find(op);
  if (it == config_.latencies.end()) {
    return std::nullopt;
  }
  return it->second;
}

bool Faults::throttling() const {
  std::lock_guard lock(mu_);
  return config_.throttling;
}

}  // namespace nodewright::emulators
