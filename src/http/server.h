#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

// A small HTTP/1.1 server (HTTPS when given a certificate) on Boost.Beast: one thread per
// connection, keep-alive, chunked streaming for watches. Connections are few and long-lived
// (informers, kubectl), so blocking I/O per connection keeps each request's code straight-line.
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

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0 picks a free port
  // Empty: plain HTTP (metrics and health endpoints on loopback).
  std::string certificatePem;
  std::string privateKeyPem;
  // Larger bodies get 413 before they are read (kube-apiserver's limit is 3 MiB).
  size_t maxBodyBytes = 3 * 1024 * 1024;
  // Called for bodies over the limit, to render the 413 in the API's error format.
  std::function<Response(size_t limit)> tooLarge;
};

class Server {
 public:
  virtual ~Server() = default;
  virtual uint16_t port() const = 0;
  // Closes the listener and every connection, and joins their threads.
  virtual void stop() = 0;
};

core::Result<std::unique_ptr<Server>> startServer(ServerOptions options, Handler handler);

// "%2F" → "/"; "+" is kept (query values are decoded separately).
std::string percentDecode(std::string_view text, bool plusIsSpace = false);

}  // namespace nodewright::http
