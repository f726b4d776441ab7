#include "runtime/events.h"

#include <fmt/format.h>

#include "api/reflect/json.h"
#include "core/log.h"

namespace nodewright::runtime {
namespace {

using api::corev1::Event;
using SteadyTime = std::chrono::steady_clock::time_point;

// Where events about cluster-scoped objects go, as kube's recorder puts them.
constexpr const char* kDefaultNamespace = "default";
// Names are DNS subdomains (253); the suffix takes 17 of them.
constexpr size_t kMaxNamePrefix = 236;
// Past this many remembered objects or keys, entries that no longer matter are dropped.
constexpr size_t kPruneAbove = 4096;
constexpr int kAttempts = 3;
constexpr std::chrono::seconds kRetryBase{1};

// Timestamps are metav1.Time: whole seconds.
core::Time wholeSeconds(core::TimePoint t) {
  return core::Time(std::chrono::floor<std::chrono::seconds>(t));
}

std::string objectKey(const api::ObjectReference& ref) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", ref.apiVersion, ref.kind, ref.namespace_,
                     ref.name, ref.uid);
}

}  // namespace

EventRecorder::EventRecorder(kube::Client& client, const core::Clock& clock,
                             EventRecorderOptions options)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      events_(client_),
      random_(std::random_device{}()) {
  sender_ = std::thread([this] { sendLoop(); });
}

EventRecorder::~EventRecorder() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  sender_.join();  // the sender drains the queue first
}

void EventRecorder::event(const api::Object& object, EventType type, const std::string& reason,
                          const std::string& message) {
  const api::ObjectMeta& meta = object.metadata();
  const core::Time now = wholeSeconds(clock_.now());
  Event event;
  event.apiVersion = events_.kind().apiVersion();
  event.kind = events_.kind().kind;
  event.involvedObject.apiVersion = object.info().apiVersion();
  event.involvedObject.kind = object.info().kind;
  event.involvedObject.name = meta.name;
  event.involvedObject.namespace_ = meta.namespace_;
  event.involvedObject.uid = meta.uid;
  event.involvedObject.resourceVersion = meta.resourceVersion;
  event.metadata.namespace_ = meta.namespace_.empty() ? kDefaultNamespace : meta.namespace_;
  event.reason = reason;
  event.message = message;
  event.type =
      type == EventType::Warning ? api::corev1::kEventTypeWarning : api::corev1::kEventTypeNormal;
  event.source.component = options_.component;
  event.source.host = options_.host;
  event.reportingComponent = options_.component;
  event.reportingInstance = options_.host;
  event.firstTimestamp = now;
  event.lastTimestamp = now;
  event.count = 1;

  // client-go's correlation key: the resourceVersion is left out, it changes with every write.
  const std::string involved = objectKey(event.involvedObject);
  std::string key = fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", involved, options_.component,
                                options_.host, event.type, reason, message);
  const SteadyTime at = clock_.steadyNow();

  std::lock_guard lock(mu_);
  if (stopping_ || queue_.size() >= kMaxQueued || !takeToken(involved, at)) {
    ++stats_.dropped;
    return;
  }
  event.metadata.name =
      (meta.name.empty() ? event.involvedObject.kind : meta.name).substr(0, kMaxNamePrefix) + "." +
      uniqueSuffix();
  queue_.push_back(Pending{std::move(event), std::move(key), at});
  wake_.notify_one();
}

void EventRecorder::flush() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

EventRecorder::Stats EventRecorder::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

bool EventRecorder::takeToken(const std::string& objectKey, SteadyTime now) {
  const auto full = options_.refill * options_.burst;
  if (buckets_.size() > kPruneAbove) {
    // A bucket idle long enough to be full again is the same as a new one.
    std::erase_if(buckets_, [&](const auto& entry) { return now - entry.second.lastUsed >= full; });
  }
  auto [it, added] = buckets_.try_emplace(objectKey);
  Bucket& bucket = it->second;
  if (added) {
    const double qps = 1.0 / std::chrono::duration<double>(options_.refill).count();
    bucket.tokens = std::make_unique<core::TokenBucket>(clock_, qps, options_.burst);
  }
  bucket.lastUsed = now;
  return bucket.tokens->tryTake();
}

std::string EventRecorder::uniqueSuffix() {
  return fmt::format("{:016x}", random_());
}

void EventRecorder::sendLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) {
      return;  // stopping, and everything queued is written
    }
    Pending pending = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    send(std::move(pending));
    lock.lock();
    busy_ = false;
    if (queue_.empty()) {
      idle_.notify_all();
    }
  }
}

void EventRecorder::send(Pending&& pending) {
  if (written_.size() > kPruneAbove) {
    std::erase_if(written_, [&](const auto& entry) {
      return pending.at - entry.second.last >= options_.aggregationWindow;
    });
  }
  auto it = written_.find(pending.key);
  if (it == written_.end() || pending.at - it->second.last >= options_.aggregationWindow) {
    create(std::move(pending.event), pending.key, pending.at);
    return;
  }

  Written& written = it->second;
  const int32_t count = written.event.count + 1;
  const api::Json body = {{"count", count},
                          {"lastTimestamp", pending.event.lastTimestamp.toString()}};
  auto patched = withRetry([&] {
    return events_.patch(written.ns, written.name, kube::PatchType::Merge, api::dumpJson(body));
  });
  if (patched) {
    written.event = std::move(*patched);
    written.last = pending.at;
    std::lock_guard lock(mu_);
    ++stats_.aggregated;
    return;
  }
  if (!patched.error().is(kube::Reason::NotFound)) {
    core::logWarn("events: updating event failed", {{"event", written.ns + "/" + written.name},
                                                    {"reason", pending.event.reason},
                                                    {"error", patched.error().describe()}});
    return;
  }
  // Deleted meanwhile (TTL, or by hand): write it again with the count so far.
  Event again = written.event;
  again.metadata = api::ObjectMeta{};
  again.metadata.name = written.name;
  again.metadata.namespace_ = written.ns;
  again.count = count;
  again.lastTimestamp = pending.event.lastTimestamp;
  create(std::move(again), pending.key, pending.at);
}

bool EventRecorder::create(Event event, const std::string& key, SteadyTime at) {
  auto created = withRetry([&] { return events_.create(event); });
  if (!created) {
    core::logWarn("events: creating event failed",
                  {{"event", event.metadata.namespace_ + "/" + event.metadata.name},
                   {"reason", event.reason},
                   {"error", created.error().describe()}});
    return false;
  }
  Written& written = written_[key];
  written.name = created->metadata.name;
  written.ns = created->metadata.namespace_;
  written.event = std::move(*created);
  written.last = at;
  std::lock_guard lock(mu_);
  ++stats_.created;
  return true;
}

template <class F>
auto EventRecorder::withRetry(F&& write) -> decltype(write()) {
  for (int attempt = 1;; ++attempt) {
    auto result = write();
    if (result || !result.error().transient() || attempt >= kAttempts) {
      return result;
    }
    // Back off on the injected clock; on shutdown the remaining events get one attempt each.
    const SteadyTime deadline = clock_.steadyNow() + kRetryBase * (1 << (attempt - 1));
    std::unique_lock lock(mu_);
    while (!stopping_ && clock_.steadyNow() < deadline) {
      clock_.waitUntil(lock, wake_, deadline);
    }
    if (stopping_) {
      return result;
    }
  }
}

}  // namespace nodewright::runtime
