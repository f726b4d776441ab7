#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "api/registry.h"
#include "apiserver/discovery/document_cache.h"
#include "apiserver/resources.h"
#include "apiserver/rest/objects.h"
#include "apiserver/storage/store.h"
#include "core/clock.h"
#include "http/server.h"

// Routes every request of the Kubernetes REST API: discovery, OpenAPI, and the verbs on
// resources and their subresources.
namespace nodewright::apiserver::rest {

struct HandlerOptions {
  std::string token;  // the bearer token every request must carry
  // How often a watch with allowWatchBookmarks=true gets a BOOKMARK.
  std::chrono::milliseconds bookmarkInterval{std::chrono::seconds(15)};
  // Watches without timeoutSeconds end after this long (clients reconnect).
  std::chrono::seconds defaultWatchTimeout{std::chrono::minutes(30)};
};

// What a resource path names.
struct Target {
  ResourcePtr resource;
  std::string ns;
  std::string name;
  std::string subresource;
  // The deprecated /watch/ path form (GET .../watch/namespaces/NS/pods): a watch whatever the
  // query says.
  bool watchPath = false;
};

class Handler {
 public:
  Handler(ResourceTable& resources, storage::Store& store, const core::Clock& clock,
          const api::Registry& registry, HandlerOptions options);

  void handle(const http::Request& request, http::Exchange& exchange);
  // Ends running watches promptly (server shutdown).
  void stop() { stopping_ = true; }

  Objects& objects() { return objects_; }

 private:
  void handleResource(const http::Request& request, const Target& target, http::Exchange& exchange);
  void getOne(const http::Request& request, const Target& target, http::Exchange& exchange);
  void list(const http::Request& request, const Target& target, http::Exchange& exchange);
  void watch(const http::Request& request, const Target& target, http::Exchange& exchange);
  void create(const http::Request& request, const Target& target, http::Exchange& exchange);
  void replace(const http::Request& request, const Target& target, http::Exchange& exchange);
  void patch(const http::Request& request, const Target& target, http::Exchange& exchange);
  void remove(const http::Request& request, const Target& target, http::Exchange& exchange);
  void removeCollection(const http::Request& request, const Target& target,
                        http::Exchange& exchange);
  void bind(const http::Request& request, const Target& target, http::Exchange& exchange);
  void evict(const http::Request& request, const Target& target, http::Exchange& exchange);
  void scale(const http::Request& request, const Target& target, http::Exchange& exchange);

  // Called after a CustomResourceDefinition changed, to serve its kinds.
  void crdChanged(const api::Json& crd, bool deleted);

  ResourceTable& resources_;
  storage::Store& store_;
  const core::Clock& clock_;
  HandlerOptions options_;
  Objects objects_;
  discovery::DocumentCache documents_;
  std::atomic<bool> stopping_{false};
};

// A URL path's non-empty segments: "/api/v1/pods" -> {"api", "v1", "pods"}.
std::vector<std::string> splitPath(const std::string& path);

}  // namespace nodewright::apiserver::rest
