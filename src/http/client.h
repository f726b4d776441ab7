#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "http/server.h"

// A blocking HTTPS/1.1 client for one loopback peer with keep-alive: what the tests and
// benchmarks of the embedded API server use to speak to it as any client would. It verifies
// the server's certificate against the given CA and sends the bearer token.
namespace nodewright::http {

struct ClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  std::string caPem;
  std::string token;
};

class Client {
 public:
  virtual ~Client() = default;
  virtual core::Result<Response> send(std::string_view method, std::string_view target,
                                      std::string_view body = {},
                                      std::string_view contentType = "application/json") = 0;
  // A chunked GET (a watch): calls onLine for every newline-terminated line until it returns
  // false or the server ends the stream. The connection is not reused afterwards.
  virtual core::Status stream(std::string_view target,
                              const std::function<bool(std::string_view line)>& onLine) = 0;
};

core::Result<std::unique_ptr<Client>> connectClient(const ClientOptions& options);

}  // namespace nodewright::http
