#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/reflect/json.h"
#include "core/clock.h"
#include "lro/operation.h"

// An in-process cloud for the engine's logic tests: operations end `latency` after they begin
// on the injected clock, resources change when they do, and every call is counted. Tokens are
// "op-N"; they stay valid across engines (the fake is the cloud, not the client), so a new
// Engine on the same fake is a restarted process. Thread-safe.
namespace nodewright::lro::testing {

using std::chrono::milliseconds;

class FakeOperations final : public Operations {
 public:
  enum class Method { Get, Begin, Poll };

  explicit FakeOperations(const core::Clock& clock) : clock_(clock) {}

  // Operations.
  CallResult<api::Json> get(const ResourceRef& resource, milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++gets_;
    timeouts_.push_back(timeout);
    if (auto e = nextFailure(Method::Get)) {
      return tl::unexpected(*e);
    }
    auto it = resources_.find(resource.id);
    if (it == resources_.end()) {
      return tl::unexpected(error(CallError::Kind::NotFound, "ResourceNotFound"));
    }
    return it->second;
  }

  CallResult<OpState> begin(Verb verb, const ResourceRef& resource, const api::Json& parameters,
                            milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++begins_[verb];
    timeouts_.push_back(timeout);
    if (auto e = nextFailure(Method::Begin)) {
      return tl::unexpected(*e);
    }
    if (verb == Verb::Delete && resources_.count(resource.id) == 0) {
      return tl::unexpected(error(CallError::Kind::NotFound, "ResourceNotFound"));
    }
    for (auto& [token, op] : ops_) {
      if (op.id == resource.id && !op.applied) {
        return tl::unexpected(error(CallError::Kind::Conflict, "AnotherOperationInProgress"));
      }
    }
    Op op;
    op.verb = verb;
    op.id = resource.id;
    op.parameters = parameters;
    op.completeAt = clock_.steadyNow() + latency_();
    op.endsAs = endsAs_;
    op.retryAfter = retryAfter_;
    std::string token = "op-" + std::to_string(++nextOp_);
    lastToken_ = token;
    auto& stored = ops_.emplace(token, std::move(op)).first->second;
    return stateOf(token, stored);
  }

  CallResult<OpState> poll(const std::string& resumeToken, milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++polls_;
    timeouts_.push_back(timeout);
    if (auto e = nextFailure(Method::Poll)) {
      return tl::unexpected(*e);
    }
    if (resumeToken.rfind("op-", 0) != 0) {
      return tl::unexpected(error(CallError::Kind::BadToken, "InvalidToken"));
    }
    auto it = ops_.find(resumeToken);
    if (it == ops_.end() || forgetAll_) {
      return tl::unexpected(error(CallError::Kind::NotFound, "OperationNotFound"));
    }
    return stateOf(resumeToken, it->second);
  }

  // ARM's rule: any provisioningState but Succeeded, Failed and Canceled means an operation runs.
  std::optional<std::string> operationInProgress(const api::Json& resource) const override {
    if (!resource.is_object() || !resource.contains("properties") ||
        !resource["properties"].is_object()) {
      return std::nullopt;
    }
    const std::string state = resource["properties"].value("provisioningState", "");
    if (state.empty() || state == "Succeeded" || state == "Failed" || state == "Canceled") {
      return std::nullopt;
    }
    return state;
  }

  // Scripting; applies to operations begun afterwards.
  void setLatency(milliseconds latency) {
    std::lock_guard<std::mutex> lock(mu_);
    latency_ = [latency] { return latency; };
  }
  void setLatencySource(std::function<milliseconds()> source) {
    std::lock_guard<std::mutex> lock(mu_);
    latency_ = std::move(source);
  }
  void endAs(OpStatus status, std::string code = "", std::string message = "") {
    std::lock_guard<std::mutex> lock(mu_);
    endsAs_ = status;
    failCode_ = std::move(code);
    failMessage_ = std::move(message);
  }
  // Sent with every InProgress state.
  void setRetryAfter(std::optional<milliseconds> retryAfter) {
    std::lock_guard<std::mutex> lock(mu_);
    retryAfter_ = retryAfter;
  }
  void failNext(Method method, CallError error) {
    std::lock_guard<std::mutex> lock(mu_);
    failures_[method].push_back(std::move(error));
  }
  // Every poll answers NotFound.
  void forgetAllOperations() {
    std::lock_guard<std::mutex> lock(mu_);
    forgetAll_ = true;
  }
  void forget(const std::string& token) {
    std::lock_guard<std::mutex> lock(mu_);
    ops_.erase(token);
  }
  // Someone else deleted the resource; the cloud forgets its operations.
  void deleteExternally(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    resources_.erase(id);
    std::erase_if(ops_, [&](const auto& entry) { return entry.second.id == id; });
  }
  void putResource(const std::string& id, api::Json body) {
    std::lock_guard<std::mutex> lock(mu_);
    resources_[id] = std::move(body);
  }
  std::optional<api::Json> resource(const std::string& id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resources_.find(id);
    return it == resources_.end() ? std::nullopt : std::optional<api::Json>(it->second);
  }

  int gets() const {
    std::lock_guard<std::mutex> lock(mu_);
    return gets_;
  }
  int begins(Verb verb) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = begins_.find(verb);
    return it == begins_.end() ? 0 : it->second;
  }
  int polls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return polls_;
  }
  std::string lastToken() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lastToken_;
  }
  // The timeout every call was given, in order.
  std::vector<milliseconds> timeouts() const {
    std::lock_guard<std::mutex> lock(mu_);
    return timeouts_;
  }

  static CallError error(CallError::Kind kind, std::string code,
                         std::optional<milliseconds> retryAfter = std::nullopt) {
    CallError e;
    e.kind = kind;
    e.code = std::move(code);
    e.message = "fake " + e.code;
    e.retryAfter = retryAfter;
    return e;
  }

 private:
  struct Op {
    Verb verb = Verb::Put;
    std::string id;
    api::Json parameters;
    std::chrono::steady_clock::time_point completeAt;
    OpStatus endsAs = OpStatus::Succeeded;
    std::optional<milliseconds> retryAfter;
    bool applied = false;
  };

  std::optional<CallError> nextFailure(Method method) {
    auto& queue = failures_[method];
    if (queue.empty()) {
      return std::nullopt;
    }
    CallError e = std::move(queue.front());
    queue.pop_front();
    return e;
  }

  OpState stateOf(const std::string& token, Op& op) {
    OpState s;
    if (clock_.steadyNow() < op.completeAt) {
      s.resumeToken = token;
      s.retryAfter = op.retryAfter;
      return s;
    }
    if (!op.applied && op.endsAs == OpStatus::Succeeded) {
      if (op.verb == Verb::Delete) {
        resources_.erase(op.id);
      } else {
        api::Json body = op.parameters;
        body["properties"]["provisioningState"] = "Succeeded";
        resources_[op.id] = std::move(body);
      }
    }
    op.applied = true;
    s.status = op.endsAs;
    if (op.endsAs == OpStatus::Succeeded) {
      auto it = resources_.find(op.id);
      if (it != resources_.end()) {
        s.result = it->second;
      }
    } else {
      s.errorCode = failCode_;
      s.errorMessage = failMessage_;
    }
    return s;
  }

  const core::Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, api::Json> resources_;
  std::map<std::string, Op> ops_;
  std::function<milliseconds()> latency_ = [] { return milliseconds(0); };
  OpStatus endsAs_ = OpStatus::Succeeded;
  std::string failCode_;
  std::string failMessage_;
  std::optional<milliseconds> retryAfter_;
  std::map<Method, std::deque<CallError>> failures_;
  bool forgetAll_ = false;
  uint64_t nextOp_ = 0;
  std::string lastToken_;
  int gets_ = 0;
  int polls_ = 0;
  std::map<Verb, int> begins_;
  std::vector<milliseconds> timeouts_;
};

// A FakeClock whose waits jump to their deadline: simulated time for a single-threaded engine
// call, which never blocks and whose polls land at exact times.
class AutoAdvanceClock final : public core::Clock {
 public:
  explicit AutoAdvanceClock(core::FakeClock& fake) : fake_(fake) {}
  core::TimePoint now() const override { return fake_.now(); }
  std::chrono::steady_clock::time_point steadyNow() const override { return fake_.steadyNow(); }
  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable&,
                 std::chrono::steady_clock::time_point deadline) const override {
    auto now = fake_.steadyNow();
    if (deadline > now) {
      fake_.advance(std::chrono::duration_cast<std::chrono::microseconds>(deadline - now));
    }
    // A waiter lets go of the lock, or whoever it waits for could never take it.
    lock.unlock();
    std::this_thread::yield();
    lock.lock();
  }

 private:
  core::FakeClock& fake_;
};

// A resource spec that wants `body`, and is up to date when the existing resource has the same
// "properties" (minus provisioningState).
class TestSpec final : public ResourceSpec {
 public:
  TestSpec(ResourceRef ref, api::Json body) : ref_(std::move(ref)), body_(std::move(body)) {}
  ResourceRef resource() const override { return ref_; }
  core::Result<std::optional<api::Json>> parameters(const api::Json& existing) const override {
    if (error_) {
      return core::fail(*error_);
    }
    if (onParameters_) {
      onParameters_();
    }
    if (!existing.is_null()) {
      api::Json props = existing.value("properties", api::Json::object());
      props.erase("provisioningState");
      if (props == body_.value("properties", api::Json::object())) {
        return std::optional<api::Json>();
      }
    }
    return std::optional<api::Json>(body_);
  }
  void failWith(core::Error e) { error_ = std::move(e); }
  // Called by every parameters() (on the calling thread).
  void onParameters(std::function<void()> hook) { onParameters_ = std::move(hook); }

 private:
  ResourceRef ref_;
  api::Json body_;
  std::optional<core::Error> error_;
  std::function<void()> onParameters_;
};

}  // namespace nodewright::lro::testing
