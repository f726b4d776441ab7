#include "kube/client.h"

#include <random>

#include <fmt/format.h>

#include "api/reflect/json.h"
#include "core/sleep.h"

namespace nodewright::kube {
namespace {

std::string queryEscape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

class Query {
 public:
  Query& add(std::string_view key, std::string_view value) {
    if (value.empty()) {
      return *this;
    }
    text_ += text_.empty() ? '?' : '&';
    text_ += key;
    text_ += '=';
    text_ += queryEscape(value);
    return *this;
  }
  Query& add(std::string_view key, int64_t value) {
    return value > 0 ? add(key, std::to_string(value)) : *this;
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

std::string objectPath(const api::KindInfo& kind, const api::ObjectMeta& meta) {
  return Client::collectionPath(kind, kind.namespaced ? meta.namespace_ : "") + "/" +
         queryEscape(meta.name);
}

const char* propagationName(Propagation p) {
  switch (p) {
    case Propagation::Background:
      return "Background";
    case Propagation::Foreground:
      return "Foreground";
    case Propagation::Orphan:
      return "Orphan";
    case Propagation::Default:
      break;
  }
  return "";
}

const char* patchContentType(PatchType type) {
  switch (type) {
    case PatchType::Merge:
      return "application/merge-patch+json";
    case PatchType::Json:
      return "application/json-patch+json";
    case PatchType::Strategic:
      return "application/strategic-merge-patch+json";
    case PatchType::Apply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

HttpRequest makeRequest(std::string method, std::string target, std::string body = {},
                        std::string contentType = "application/json") {
  HttpRequest request;
  request.method = std::move(method);
  request.target = std::move(target);
  request.body = std::move(body);
  request.contentType = std::move(contentType);
  return request;
}

ApiError decodeError(const std::string& what) {
  return ApiError{Reason::Other, 0, "decoding the server's answer: " + what, {}, std::nullopt};
}

}  // namespace

const char* watchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added:
      return "ADDED";
    case WatchEventType::Modified:
      return "MODIFIED";
    case WatchEventType::Deleted:
      return "DELETED";
    case WatchEventType::Bookmark:
      return "BOOKMARK";
    case WatchEventType::Error:
      return "ERROR";
  }
  return "ERROR";
}

core::Result<std::unique_ptr<Client>> Client::create(const RestConfig& config,
                                                     ClientOptions options) {
  auto transport = makeTransport(config);
  if (!transport) {
    return core::fail(transport.error());
  }
  return std::make_unique<Client>(config, std::move(*transport), options);
}

Client::Client(RestConfig config, std::unique_ptr<Transport> transport, ClientOptions options)
    : config_(std::move(config)),
      transport_(std::move(transport)),
      registry_(options.registry ? options.registry : &api::builtinRegistry()),
      clock_(options.clock ? options.clock : &core::systemClock()),
      observer_(options.observer) {
  if (config_.qps > 0) {
    limiter_ = std::make_unique<core::TokenBucket>(*clock_, config_.qps, config_.burst);
  }
}

std::string Client::collectionPath(const api::KindInfo& kind, const std::string& ns) {
  std::string path =
      kind.group.empty() ? "/api/" + kind.version : "/apis/" + kind.group + "/" + kind.version;
  if (kind.namespaced && !ns.empty()) {
    path += "/namespaces/" + queryEscape(ns);
  }
  return path + "/" + kind.plural;
}

ApiResult<api::Object> Client::decode(const api::Json& json) const {
  if (!json.is_object()) {
    return tl::unexpected(decodeError("not an object"));
  }
  const api::KindInfo* kind = registry_->find(json.value("apiVersion", ""), json.value("kind", ""));
  if (!kind) {
    return tl::unexpected(decodeError(
        fmt::format("unknown kind {} {}", json.value("apiVersion", ""), json.value("kind", ""))));
  }
  api::Object object(kind, kind->make());
  api::FieldErrors errors;
  api::reflect::DecodeOptions lenient{.strict = false};
  api::reflect::DecodeContext ctx{lenient, errors};
  kind->type->decode(json, object.raw(), api::reflect::PathNode{}, ctx);
  if (!errors.empty()) {
    return tl::unexpected(decodeError(errors.front().path + ": " + errors.front().message));
  }
  return object;
}

ApiResult<HttpResponse> Client::call(HttpRequest request, const char* verb) {
  if (limiter_) {
    auto wait = limiter_->reserve();
    core::sleepFor(*clock_, wait);
  }
  auto start = clock_->steadyNow();
  auto response = transport_->send(request);
  if (observer_) {
    observer_->observe(verb, request.method, response ? response->status : 0,
                       std::chrono::duration<double>(clock_->steadyNow() - start).count());
  }
  if (!response) {
    return response;
  }
  if (response->status >= 300) {
    return tl::unexpected(classify(response->status, response->body, response->retryAfter));
  }
  return response;
}

ApiResult<api::Object> Client::objectCall(HttpRequest request, const char* verb) {
  auto response = call(std::move(request), verb);
  if (!response) {
    return tl::unexpected(response.error());
  }
  auto json = api::Json::parse(response->body, nullptr, false);
  if (json.is_discarded()) {
    return tl::unexpected(decodeError("invalid JSON"));
  }
  return decode(json);
}

ApiResult<api::Object> Client::get(const api::KindInfo& kind, const std::string& ns,
                                   const std::string& name) {
  return objectCall(makeRequest("GET", collectionPath(kind, ns) + "/" + queryEscape(name)), "GET");
}

ApiResult<ObjectList> Client::listPage(const api::KindInfo& kind, const std::string& ns,
                                       const ListOptions& options) {
  Query query;
  query.add("labelSelector", options.labelSelector)
      .add("fieldSelector", options.fieldSelector)
      .add("limit", options.limit)
      .add("continue", options.continueToken)
      .add("resourceVersion", options.resourceVersion)
      .add("resourceVersionMatch", options.resourceVersionMatch);
  auto response = call(makeRequest("GET", collectionPath(kind, ns) + query.str()), "LIST");
  if (!response) {
    return tl::unexpected(response.error());
  }
  auto json = api::Json::parse(response->body, nullptr, false);
  if (!json.is_object()) {
    return tl::unexpected(decodeError("a list that is not an object"));
  }
  ObjectList out;
  if (auto meta = json.find("metadata"); meta != json.end() && meta->is_object()) {
    out.resourceVersion = meta->value("resourceVersion", "");
    out.continueToken = meta->value("continue", "");
  }
  auto items = json.find("items");
  if (items == json.end() || !items->is_array()) {
    return out;
  }
  out.items.reserve(items->size());
  for (auto& item : *items) {
    // Items of built-in lists carry no apiVersion/kind.
    if (!item.contains("kind")) {
      item["apiVersion"] = kind.apiVersion();
      item["kind"] = kind.kind;
    }
    auto object = decode(item);
    if (!object) {
      return tl::unexpected(object.error());
    }
    out.items.push_back(std::move(*object));
  }
  return out;
}

ApiResult<ObjectList> Client::list(const api::KindInfo& kind, const std::string& ns,
                                   ListOptions options) {
  if (options.limit == 0) {
    options.limit = 500;
  }
  ObjectList all;
  for (bool first = true;; first = false) {
    auto page = listPage(kind, ns, options);
    if (!page) {
      return tl::unexpected(page.error());
    }
    if (first) {
      all.resourceVersion = page->resourceVersion;
    }
    for (auto& item : page->items) {
      all.items.push_back(std::move(item));
    }
    if (page->continueToken.empty()) {
      return all;
    }
    // Later pages come from the first page's snapshot; resourceVersion must not be repeated.
    options.continueToken = page->continueToken;
    options.resourceVersion.clear();
    options.resourceVersionMatch.clear();
  }
}

ApiResult<api::Object> Client::create(const api::Object& object) {
  return objectCall(makeRequest("POST", collectionPath(object.info(), object.metadata().namespace_),
                                api::dumpJson(object.toJson())),
                    "POST");
}

ApiResult<api::Object> Client::update(const api::Object& object) {
  return objectCall(makeRequest("PUT", objectPath(object.info(), object.metadata()),
                                api::dumpJson(object.toJson())),
                    "PUT");
}

ApiResult<api::Object> Client::updateStatus(const api::Object& object) {
  return objectCall(makeRequest("PUT", objectPath(object.info(), object.metadata()) + "/status",
                                api::dumpJson(object.toJson())),
                    "PUT");
}

ApiResult<api::Json> Client::postSubresource(const api::KindInfo& kind, const std::string& ns,
                                             const std::string& name,
                                             const std::string& subresource,
                                             const api::Json& body) {
  auto response = call(
      makeRequest("POST", collectionPath(kind, ns) + "/" + queryEscape(name) + "/" + subresource,
                  api::dumpJson(body)),
      "POST");
  if (!response) {
    return tl::unexpected(response.error());
  }
  auto json = api::Json::parse(response->body, nullptr, false);
  if (json.is_discarded()) {
    return tl::unexpected(decodeError("invalid JSON"));
  }
  return json;
}

ApiResult<api::Object> Client::patch(const api::KindInfo& kind, const std::string& ns,
                                     const std::string& name, PatchType type,
                                     const std::string& body, const PatchOptions& options) {
  std::string path = collectionPath(kind, ns) + "/" + queryEscape(name);
  if (!options.subresource.empty()) {
    path += "/" + options.subresource;
  }
  Query query;
  if (type == PatchType::Apply) {
    query.add("fieldManager",
              options.fieldManager.empty() ? config_.userAgent : options.fieldManager);
    if (options.force) {
      query.add("force", "true");
    }
  } else {
    query.add("fieldManager", options.fieldManager);
  }
  HttpRequest request = makeRequest("PATCH", path + query.str(), body, patchContentType(type));
  return objectCall(std::move(request), "PATCH");
}

ApiResult<std::optional<api::Object>> Client::remove(const api::KindInfo& kind,
                                                     const std::string& ns, const std::string& name,
                                                     const DeleteOptions& options) {
  api::Json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (options.preconditionUid || options.preconditionResourceVersion) {
    api::Json pre = api::Json::object();
    if (options.preconditionUid) {
      pre["uid"] = *options.preconditionUid;
    }
    if (options.preconditionResourceVersion) {
      pre["resourceVersion"] = *options.preconditionResourceVersion;
    }
    body["preconditions"] = std::move(pre);
  }
  if (options.propagation != Propagation::Default) {
    body["propagationPolicy"] = propagationName(options.propagation);
  }
  if (options.gracePeriodSeconds) {
    body["gracePeriodSeconds"] = *options.gracePeriodSeconds;
  }
  auto response = call(makeRequest("DELETE", collectionPath(kind, ns) + "/" + queryEscape(name),
                                   api::dumpJson(body)),
                       "DELETE");
  if (!response) {
    return tl::unexpected(response.error());
  }
  auto json = api::Json::parse(response->body, nullptr, false);
  // A Status answer means the object is gone; the object itself means it is still terminating.
  if (!json.is_object() || json.value("kind", "") == "Status") {
    return std::optional<api::Object>();
  }
  auto object = decode(json);
  if (!object) {
    return tl::unexpected(object.error());
  }
  return std::optional<api::Object>(std::move(*object));
}

ApiStatus Client::watch(const api::KindInfo& kind, const std::string& ns,
                        const ListOptions& options,
                        const std::function<bool(WatchEvent&&)>& onEvent, std::stop_token stop) {
  Query query;
  query.add("watch", "true")
      .add("labelSelector", options.labelSelector)
      .add("fieldSelector", options.fieldSelector)
      .add("resourceVersion", options.resourceVersion)
      .add("timeoutSeconds", options.timeoutSeconds);
  if (options.allowWatchBookmarks) {
    query.add("allowWatchBookmarks", "true");
  }
  HttpRequest request = makeRequest("GET", collectionPath(kind, ns) + query.str());
  // The server ends the watch after timeoutSeconds; the client's own limit is a little later.
  int64_t serverSeconds = options.timeoutSeconds > 0 ? options.timeoutSeconds : 1800;
  request.timeout = std::chrono::seconds(serverSeconds + 30);
  std::optional<ApiError> decodeFailure;
  auto status = transport_->stream(
      request,
      [&](std::string_view line) {
        auto json = api::Json::parse(line, nullptr, false);
        if (!json.is_object()) {
          decodeFailure = decodeError("a watch line that is not a JSON object");
          return false;
        }
        WatchEvent event{WatchEventType::Error, std::nullopt, {}, std::nullopt};
        std::string type = json.value("type", "");
        auto& raw = json["object"];
        if (type == "ERROR") {
          event.error = classify(raw.value("code", 500), api::dumpJson(raw), "");
          return onEvent(std::move(event));
        }
        if (type == "ADDED") {
          event.type = WatchEventType::Added;
        } else if (type == "MODIFIED") {
          event.type = WatchEventType::Modified;
        } else if (type == "DELETED") {
          event.type = WatchEventType::Deleted;
        } else if (type == "BOOKMARK") {
          event.type = WatchEventType::Bookmark;
        } else {
          decodeFailure = decodeError("unknown watch event type \"" + type + "\"");
          return false;
        }
        if (raw.is_object()) {
          if (auto meta = raw.find("metadata"); meta != raw.end() && meta->is_object()) {
            event.resourceVersion = meta->value("resourceVersion", "");
          }
        }
        if (event.type != WatchEventType::Bookmark) {
          if (!raw.contains("kind")) {
            raw["apiVersion"] = kind.apiVersion();
            raw["kind"] = kind.kind;
          }
          auto object = decode(raw);
          if (!object) {
            decodeFailure = object.error();
            return false;
          }
          event.object = std::move(*object);
        }
        return onEvent(std::move(event));
      },
      stop);
  if (decodeFailure) {
    return tl::unexpected(*decodeFailure);
  }
  return status;
}

namespace {

using Write = ApiResult<api::Object> (Client::*)(const api::Object&);

ApiResult<api::Object> writeWithRetry(Client& client, const api::KindInfo& kind,
                                      const std::string& ns, const std::string& name,
                                      const std::function<bool(api::Object&)>& mutate, int attempts,
                                      Write write) {
  thread_local std::minstd_rand jitter(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    auto current = client.get(kind, ns, name);
    if (!current) {
      return current;
    }
    if (!mutate(*current)) {
      return current;
    }
    auto updated = (client.*write)(*current);
    if (updated || !updated.error().is(Reason::Conflict) || attempt >= attempts) {
      return updated;
    }
    // client-go's DefaultRetry: 10 ms, ×1, jitter 0.1 — keeps contending writers apart.
    core::sleepFor(client.clock(), std::chrono::microseconds(10000 + jitter() % 1000));
  }
}

}  // namespace

ApiResult<api::Object> updateWithRetry(Client& client, const api::KindInfo& kind,
                                       const std::string& ns, const std::string& name,
                                       const std::function<bool(api::Object&)>& mutate,
                                       int attempts) {
  return writeWithRetry(client, kind, ns, name, mutate, attempts, &Client::update);
}

ApiResult<api::Object> updateStatusWithRetry(Client& client, const api::KindInfo& kind,
                                             const std::string& ns, const std::string& name,
                                             const std::function<bool(api::Object&)>& mutate,
                                             int attempts) {
  return writeWithRetry(client, kind, ns, name, mutate, attempts, &Client::updateStatus);
}

}  // namespace nodewright::kube
