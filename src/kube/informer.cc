#include "kube/informer.h"

#include <random>

#include "core/log.h"
#include "core/token_bucket.h"

namespace nodewright::kube {
namespace {

std::chrono::seconds jittered(std::chrono::seconds base) {
  thread_local std::minstd_rand rng(std::random_device{}());
  return base + std::chrono::seconds(base.count() > 0 ? rng() % base.count() : 0);
}

}  // namespace

Informer::Informer(Client& client, const api::KindInfo& kind, InformerOptions options)
    : client_(client),
      kind_(kind),
      options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : core::systemClock()) {}

Informer::~Informer() {
  stop();
}

void Informer::addHandler(EventHandler handler) {
  std::lock_guard lock(handlersMu_);
  if (handler.onAdd && synced_) {
    for (const auto& object : cache_.list()) {
      handler.onAdd(object);
    }
  }
  handlers_.push_back(std::move(handler));
}

void Informer::start() {
  if (thread_.joinable()) {
    return;
  }
  thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
  if (options_.resyncPeriod.count() > 0) {
    // The first period counts from start(), not from whenever the thread gets to run.
    auto first = clock_.steadyNow() + options_.resyncPeriod;
    resyncThread_ = std::jthread([this, first](std::stop_token stop) { resyncLoop(stop, first); });
  }
}

void Informer::stop() {
  for (auto* t : {&thread_, &resyncThread_}) {
    if (!t->joinable()) {
      continue;
    }
    t->request_stop();
    {
      std::lock_guard lock(mu_);
      cv_.notify_all();
    }
    t->join();
  }
}

bool Informer::waitForSync(std::chrono::milliseconds timeout, std::stop_token stop) {
  auto deadline = clock_.steadyNow() + timeout;
  // Registered before taking mu_: a callback that runs at once (stop already requested) takes
  // mu_ itself.
  std::stop_callback wake(stop, [this] {
    std::lock_guard inner(mu_);
    cv_.notify_all();
  });
  std::unique_lock lock(mu_);
  while (!synced_ && !stop.stop_requested() && clock_.steadyNow() < deadline) {
    clock_.waitUntil(lock, cv_, deadline);
  }
  return synced_;
}

Informer::Stats Informer::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void Informer::run(std::stop_token stop) {
  std::stop_callback wake(stop, [this] {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  });
  bool needList = true;
  while (!stop.stop_requested()) {
    if (needList) {
      if (!relist(stop)) {
        backoff(stop);
        continue;
      }
      needList = false;
    }
    needList = watchOnce(stop);
  }
}

bool Informer::relist(std::stop_token stop) {
  ListOptions list;
  list.labelSelector = options_.labelSelector;
  list.fieldSelector = options_.fieldSelector;
  list.limit = options_.pageSize;
  auto result = client_.list(kind_, options_.ns, list);
  if (stop.stop_requested()) {
    return false;
  }
  {
    std::lock_guard lock(mu_);
    ++stats_.lists;
    if (!result) {
      ++stats_.failures;
    }
  }
  if (!result) {
    core::logWarn("informer: list failed",
                  {{"resource", kind_.plural}, {"error", result.error().describe()}});
    return false;
  }
  auto changes = cache_.replace(std::move(result->items));
  {
    std::lock_guard lock(mu_);
    stats_.resourceVersion = result->resourceVersion;
    failures_ = 0;
  }
  for (auto& [previous, object] : changes.upserted) {
    if (previous) {
      dispatchUpdate(*previous, object);
    } else {
      dispatchAdd(object);
    }
  }
  for (auto& object : changes.removed) {
    dispatchDelete(object);
  }
  if (!synced_.exchange(true)) {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  }
  return true;
}

bool Informer::watchOnce(std::stop_token stop) {
  ListOptions watch;
  watch.labelSelector = options_.labelSelector;
  watch.fieldSelector = options_.fieldSelector;
  watch.allowWatchBookmarks = true;
  watch.timeoutSeconds = jittered(options_.watchTimeout).count();
  {
    std::lock_guard lock(mu_);
    watch.resourceVersion = stats_.resourceVersion;
    ++stats_.watches;
  }
  bool gone = false;
  bool failed = false;  // an error event other than 410
  bool received = false;
  auto status = client_.watch(
      kind_, options_.ns, watch,
      [&](WatchEvent&& event) {
        received = true;
        if (event.type == WatchEventType::Error) {
          gone = event.error && event.error->is(Reason::Gone);
          failed = !gone;
          if (failed && event.error) {
            core::logWarn("informer: watch error",
                          {{"resource", kind_.plural}, {"error", event.error->describe()}});
          }
          return false;
        }
        applyEvent(event);
        return true;
      },
      stop);
  if (stop.stop_requested()) {
    return false;
  }
  if (!status && status.error().is(Reason::Gone)) {
    gone = true;
  }
  if (gone) {
    std::lock_guard lock(mu_);
    ++stats_.gone;
    return true;
  }
  if (!status || failed) {
    {
      std::lock_guard lock(mu_);
      ++stats_.failures;
    }
    if (!status) {
      core::logDebug("informer: watch ended",
                     {{"resource", kind_.plural}, {"error", status.error().describe()}});
    }
    backoff(stop);
    return false;
  }
  // A clean end (the server's timeout) resumes from the last resourceVersion at once.
  if (received) {
    std::lock_guard lock(mu_);
    failures_ = 0;
  }
  return false;
}

void Informer::applyEvent(WatchEvent& event) {
  {
    std::lock_guard lock(mu_);
    if (!event.resourceVersion.empty()) {
      stats_.resourceVersion = event.resourceVersion;
    }
    if (event.type == WatchEventType::Bookmark) {
      ++stats_.bookmarks;
      return;
    }
    ++stats_.events;
    failures_ = 0;
  }
  if (!event.object) {
    return;
  }
  const api::Object& object = *event.object;
  if (event.type == WatchEventType::Deleted) {
    auto previous = cache_.erase(keyOf(object));
    // The watch's object is the final state; fall back to the cache only without one.
    dispatchDelete(object);
    (void)previous;
    return;
  }
  auto previous = cache_.upsert(object);
  if (previous) {
    dispatchUpdate(*previous, object);
  } else {
    dispatchAdd(object);
  }
}

void Informer::backoff(std::stop_token stop) {
  std::unique_lock lock(mu_);
  auto delay = core::ExponentialBackoff{options_.backoffBase, options_.backoffMax}.delay(failures_);
  ++failures_;
  auto deadline = clock_.steadyNow() + delay;
  while (!stop.stop_requested() && clock_.steadyNow() < deadline) {
    clock_.waitUntil(lock, cv_, deadline);
  }
}

void Informer::resyncLoop(std::stop_token stop, std::chrono::steady_clock::time_point deadline) {
  std::stop_callback wake(stop, [this] {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  });
  while (!stop.stop_requested()) {
    {
      std::unique_lock lock(mu_);
      while (!stop.stop_requested() && clock_.steadyNow() < deadline) {
        clock_.waitUntil(lock, cv_, deadline);
      }
      deadline = clock_.steadyNow() + options_.resyncPeriod;
    }
    if (stop.stop_requested() || !synced_) {
      continue;
    }
    for (const auto& object : cache_.list()) {
      dispatchUpdate(object, object);
    }
  }
}

void Informer::dispatchAdd(const api::Object& object) {
  std::lock_guard lock(handlersMu_);
  for (auto& h : handlers_) {
    if (h.onAdd) {
      h.onAdd(object);
    }
  }
}

void Informer::dispatchUpdate(const api::Object& oldObject, const api::Object& newObject) {
  std::lock_guard lock(handlersMu_);
  for (auto& h : handlers_) {
    if (h.onUpdate) {
      h.onUpdate(oldObject, newObject);
    }
  }
}

void Informer::dispatchDelete(const api::Object& object) {
  std::lock_guard lock(handlersMu_);
  for (auto& h : handlers_) {
    if (h.onDelete) {
      h.onDelete(object);
    }
  }
}

}  // namespace nodewright::kube
