#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/error.h"

// A small HTTP/1.1 server (HTTPS when given a certificate) on Boost.Beast: one thread per
// connection, keep-alive, chunked streaming for watches. Connections are few and long-lived
// (informers, kubectl), so blocking I/O per connection keeps each request's code straight-line.
// What a hostile client can make it spend is bounded (ConnectionLimits): the number of
// connections, the time each phase of a request may take, and the body's size, counted as it
// arrives. A request's line and headers are shown to an admission hook before its body is read.
namespace nodewright::http {

struct Request {
  std::string method;
  std::string path;  // decoded, without the query
  std::multimap<std::string, std::string> query;
  std::string rawQuery;  // after '?', as sent (signatures cover the encoded form)
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;

  std::string header(std::string_view name) const;
  bool hasParam(std::string_view name) const;
  std::string param(std::string_view name) const;  // first value or ""
};

struct Response {
  int status = 200;
  std::string contentType = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// A chunked response body in progress.
class Stream {
 public:
  virtual ~Stream() = default;
  // False once the client is gone; the caller then stops.
  virtual bool write(std::string_view chunk) = 0;
};

// The reply side of one request: either one response or one stream.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual void respond(Response response) = 0;
  virtual Stream& startStream(int status, std::string contentType) = 0;
};

using Handler = std::function<void(const Request&, Exchange&)>;

// The verdict on a request whose line and headers have arrived; its body is not read yet.
struct Admission {
  // Sent instead of calling the handler (401, 429, ...); the body is then never buffered.
  std::optional<Response> refusal;
  // Kept until the request is answered (an in-flight slot, released by its destructor).
  std::shared_ptr<void> hold;
};
// Called with the request's method, target and headers (an empty body). Thread-safe.
using Admit = std::function<Admission(const Request& head)>;

// Defaults follow kube-apiserver's serving (Go's net/http with ReadHeaderTimeout 32 s and
// IdleTimeout 90 s; its request timeout of 60 s bounds reading the body). A zero duration
// disables that timeout.
struct ConnectionLimits {
  // Open connections. Beyond it the one waiting longest without an admitted request (TLS
  // handshake, idle keep-alive, headers) is closed to make room; if every connection is
  // serving a request, the new one is closed.
  size_t maxConnections = 1024;
  std::chrono::milliseconds handshakeTimeout{std::chrono::seconds(10)};
  std::chrono::milliseconds headerTimeout{std::chrono::seconds(32)};  // from the first byte
  std::chrono::milliseconds idleTimeout{std::chrono::seconds(90)};    // between requests
  std::chrono::milliseconds bodyTimeout{std::chrono::seconds(60)};    // the whole body
  // The handler and the writing of its answer; for a stream, the writing of each chunk.
  std::chrono::milliseconds requestTimeout{std::chrono::seconds(60)};
  // After an early answer (a refusal, 413): how long and how much of the unread body is read
  // and discarded, so that a client still sending gets the answer rather than a reset.
  std::chrono::milliseconds drainTimeout{std::chrono::seconds(1)};
  size_t maxDrainBytes = 4 * 1024 * 1024;
  size_t maxHeaderBytes = 64 * 1024;
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0 picks a free port
  // Empty: plain HTTP (metrics and health endpoints on loopback).
  std::string certificatePem;
  std::string privateKeyPem;
  // Bodies over it get 413: at once when Content-Length says so, else (chunked) as soon as the
  // bytes that arrived pass it (kube-apiserver's limit is 3 MiB).
  size_t maxBodyBytes = 3 * 1024 * 1024;
  // Called for bodies over the limit, to render the 413 in the API's error format.
  std::function<Response(size_t limit)> tooLarge;
  // Empty: every request is admitted.
  Admit admit;
  ConnectionLimits limits;
  // Reads time for the timeouts; null: the system clock. Must outlive the server.
  const core::Clock* clock = nullptr;
};

class Server {
 public:
  virtual ~Server() = default;
  virtual uint16_t port() const = 0;
  // Connections open now (not yet closed by a timeout, eviction or the client).
  virtual size_t openConnections() const = 0;
  // Closes the listener and every connection, and joins their threads.
  virtual void stop() = 0;
};

core::Result<std::unique_ptr<Server>> startServer(ServerOptions options, Handler handler);

// "%2F" → "/"; "+" is kept (query values are decoded separately).
std::string percentDecode(std::string_view text, bool plusIsSpace = false);

}  // namespace nodewright::http
