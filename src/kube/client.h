#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "api/object.h"
#include "api/registry.h"
#include "core/check.h"
#include "core/clock.h"
#include "core/token_bucket.h"
#include "kube/config.h"
#include "kube/errors.h"
#include "kube/transport.h"

// A client for every kind of the resource model, over the API server's REST interface: what
// client-go's dynamic and typed clients give Go controllers.
namespace nodewright::kube {

// Told about every request, for metrics; the runtime implements it over its registry.
class RequestObserver {
 public:
  virtual ~RequestObserver() = default;
  // `code` is the HTTP status, or 0 when no response arrived.
  virtual void observe(const std::string& verb, const std::string& method, int code,
                       double seconds) = 0;
};

struct ListOptions {
  std::string labelSelector;
  std::string fieldSelector;
  int64_t limit = 0;  // 0: the server's default (all); list() pages by 500 when 0
  std::string continueToken;
  std::string resourceVersion;
  std::string resourceVersionMatch;  // NotOlderThan / Exact
  // Watch only.
  bool allowWatchBookmarks = true;
  int64_t timeoutSeconds = 0;
};

struct ObjectList {
  std::vector<api::Object> items;
  std::string resourceVersion;
  std::string continueToken;
};

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };
const char* watchEventTypeName(WatchEventType type);

struct WatchEvent {
  WatchEventType type;
  std::optional<api::Object> object;  // absent for Bookmark and Error
  std::string resourceVersion;        // of the object or the bookmark
  std::optional<ApiError> error;      // Error events (410 Gone among them)
};

enum class PatchType { Merge, Json, Strategic, Apply };

struct PatchOptions {
  std::string subresource;   // "" or "status"
  std::string fieldManager;  // required for Apply; defaults to the client's user agent
  bool force = false;        // Apply: take fields owned by other managers
};

enum class Propagation { Default, Background, Foreground, Orphan };

struct DeleteOptions {
  std::optional<std::string> preconditionUid;
  std::optional<std::string> preconditionResourceVersion;
  Propagation propagation = Propagation::Default;
  std::optional<int64_t> gracePeriodSeconds;
};

struct ClientOptions {
  const api::Registry* registry = nullptr;  // nullptr: api::builtinRegistry()
  // For the rate limiter and the retry helpers' backoff; nullptr: the system clock.
  const core::Clock* clock = nullptr;
  RequestObserver* observer = nullptr;  // nullptr: not reported
};

// Thread-safe; share one per process.
class Client {
 public:
  static core::Result<std::unique_ptr<Client>> create(const RestConfig& config,
                                                      ClientOptions options = {});
  Client(RestConfig config, std::unique_ptr<Transport> transport, ClientOptions options);

  const api::Registry& registry() const { return *registry_; }
  const RestConfig& config() const { return config_; }
  // The clock every wait of this client reads (rate limiting, retry backoff).
  const core::Clock& clock() const { return *clock_; }
  // Connections opened so far, to see that requests reuse them.
  uint64_t connectionsOpened() const { return transport_->connectionsOpened(); }

  ApiResult<api::Object> get(const api::KindInfo& kind, const std::string& ns,
                             const std::string& name);
  // One page.
  ApiResult<ObjectList> listPage(const api::KindInfo& kind, const std::string& ns,
                                 const ListOptions& options);
  // Every page, following continue tokens; the resourceVersion is the first page's.
  ApiResult<ObjectList> list(const api::KindInfo& kind, const std::string& ns,
                             ListOptions options = {});
  ApiResult<api::Object> create(const api::Object& object);
  // Optimistic concurrency: metadata.resourceVersion must be the stored one (else Conflict).
  ApiResult<api::Object> update(const api::Object& object);
  ApiResult<api::Object> updateStatus(const api::Object& object);
  // POSTs `body` to an object's subresource (pods/binding, pods/eviction) and returns the
  // server's answer, a Status on success.
  ApiResult<api::Json> postSubresource(const api::KindInfo& kind, const std::string& ns,
                                       const std::string& name, const std::string& subresource,
                                       const api::Json& body);
  ApiResult<api::Object> patch(const api::KindInfo& kind, const std::string& ns,
                               const std::string& name, PatchType type, const std::string& body,
                               const PatchOptions& options = {});
  // The object as the server returned it (with deletionTimestamp when finalizers hold it), or
  // nullopt when it was removed at once.
  ApiResult<std::optional<api::Object>> remove(const api::KindInfo& kind, const std::string& ns,
                                               const std::string& name,
                                               const DeleteOptions& options = {});
  // Streams events until onEvent returns false, the server ends the watch (timeoutSeconds) or
  // `stop` is requested. A 410 answer (too old a resourceVersion) returns Gone.
  ApiStatus watch(const api::KindInfo& kind, const std::string& ns, const ListOptions& options,
                  const std::function<bool(WatchEvent&&)>& onEvent, std::stop_token stop = {});

  // Decodes an object the server sent (non-strict: a newer server may know more fields).
  ApiResult<api::Object> decode(const api::Json& json) const;
  // The REST path of a kind: "/api/v1/namespaces/NS/pods" (ns "" for all namespaces).
  static std::string collectionPath(const api::KindInfo& kind, const std::string& ns);

 private:
  ApiResult<HttpResponse> call(HttpRequest request, const char* verb);
  ApiResult<api::Object> objectCall(HttpRequest request, const char* verb);

  RestConfig config_;
  std::unique_ptr<Transport> transport_;
  const api::Registry* registry_;
  const core::Clock* clock_;
  RequestObserver* observer_;
  std::unique_ptr<core::TokenBucket> limiter_;
};

// The registered kind whose C++ type is T (its newest version).
template <class T>
const api::KindInfo& kindOf(const api::Registry& registry = api::builtinRegistry()) {
  auto search = [](const api::Registry& r) -> const api::KindInfo* {
    for (const auto& k : r.kinds()) {
      if (k.type == &api::reflect::opsFor<T>()) {
        return &k;
      }
    }
    return nullptr;
  };
  // The built-in registry never changes, so its answer is kept; other registries are searched.
  static const api::KindInfo* builtin = search(api::builtinRegistry());
  const api::KindInfo* found = &registry == &api::builtinRegistry() ? builtin : search(registry);
  NW_CHECK(found != nullptr);
  return *found;
}

// The typed view of one kind: objects in and out as T.
template <class T>
class Typed {
 public:
  explicit Typed(Client& client) : client_(client), kind_(kindOf<T>(client.registry())) {}

  ApiResult<T> get(const std::string& ns, const std::string& name) {
    return unwrap(client_.get(kind_, ns, name));
  }
  ApiResult<std::vector<T>> list(const std::string& ns, const ListOptions& options = {}) {
    auto result = client_.list(kind_, ns, options);
    if (!result) {
      return tl::unexpected(result.error());
    }
    std::vector<T> out;
    out.reserve(result->items.size());
    for (auto& item : result->items) {
      out.push_back(*item.template as<T>());
    }
    return out;
  }
  ApiResult<T> create(const T& value) { return unwrap(client_.create(wrap(value))); }
  ApiResult<T> update(const T& value) { return unwrap(client_.update(wrap(value))); }
  ApiResult<T> updateStatus(const T& value) { return unwrap(client_.updateStatus(wrap(value))); }
  ApiResult<T> patch(const std::string& ns, const std::string& name, PatchType type,
                     const std::string& body, const PatchOptions& options = {}) {
    return unwrap(client_.patch(kind_, ns, name, type, body, options));
  }
  ApiResult<std::optional<api::Object>> remove(const std::string& ns, const std::string& name,
                                               const DeleteOptions& options = {}) {
    return client_.remove(kind_, ns, name, options);
  }
  const api::KindInfo& kind() const { return kind_; }

 private:
  api::Object wrap(const T& value) const { return api::Object(&kind_, std::make_shared<T>(value)); }
  static ApiResult<T> unwrap(ApiResult<api::Object> result) {
    if (!result) {
      return tl::unexpected(result.error());
    }
    return *result->template as<T>();
  }

  Client& client_;
  const api::KindInfo& kind_;
};

// Re-reads and re-applies `mutate` while the update conflicts, as client-go's
// retry.RetryOnConflict (bounded attempts, short jittered backoff).
ApiResult<api::Object> updateWithRetry(Client& client, const api::KindInfo& kind,
                                       const std::string& ns, const std::string& name,
                                       const std::function<bool(api::Object&)>& mutate,
                                       int attempts = 10);
// The same through the status subresource.
ApiResult<api::Object> updateStatusWithRetry(Client& client, const api::KindInfo& kind,
                                             const std::string& ns, const std::string& name,
                                             const std::function<bool(api::Object&)>& mutate,
                                             int attempts = 10);

}  // namespace nodewright::kube
