// Feeds arbitrary bytes to the HTTP server as one client connection would send them: request
// lines, headers, Content-Length and chunked framing, Expect: 100-continue, pipelined requests,
// and the API server's admission (bearer token, in-flight limits, long-running detection)
// before any body is read. Nothing may crash, hang or leak, and two promises must hold: the
// handler never sees a body over the limit, and never sees a request without the token.
//
// The first byte picks the server: a tiny body limit (so chunked and Content-Length overflows
// are cheap to reach) or kube-apiserver's 3 MiB.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "apiserver/authentication.h"
#include "apiserver/max_in_flight.h"
#include "http/server.h"

namespace apiserver = nodewright::apiserver;
namespace http = nodewright::http;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "fuzz-token";

std::unique_ptr<http::Server> startFuzzServer(size_t maxBody) {
  static apiserver::MaxInFlight inFlight(apiserver::InFlightLimits{.maxMutating = 4,
                                                                   .maxReadOnly = 4});
  http::ServerOptions options;
  options.maxBodyBytes = maxBody;
  options.limits.maxConnections = 64;
  // Every read ends at the client's half-close; these only bound a server that would not.
  options.limits.headerTimeout = 2s;
  options.limits.bodyTimeout = 2s;
  options.limits.idleTimeout = 2s;
  options.limits.drainTimeout = 2s;
  options.admit = [](const http::Request& head) {
    if (apiserver::isHealthPath(head.path)) {
      return http::Admission{};
    }
    if (!apiserver::authenticated(head, kToken)) {
      return http::Admission{http::Response{401, "text/plain", "unauthorized", {}}, nullptr};
    }
    return inFlight.admit(head);
  };
  auto server = http::startServer(std::move(options), [maxBody](const http::Request& r,
                                                                http::Exchange& e) {
    if (r.body.size() > maxBody) {
      std::fprintf(stderr, "handler got a %zu-byte body over the %zu limit\n", r.body.size(),
                   maxBody);
      std::abort();
    }
    if (!apiserver::isHealthPath(r.path) && !apiserver::authenticated(r, kToken)) {
      std::fprintf(stderr, "handler got a request without the token\n");
      std::abort();
    }
    if (r.path.rfind("/stream", 0) == 0) {
      http::Stream& stream = e.startStream(200, "application/json");
      for (int i = 0; i < 3 && stream.write("{\"type\":\"ADDED\"}\n"); ++i) {
      }
      return;
    }
    e.respond(http::Response{200, "text/plain", std::to_string(r.body.size()), {}});
  });
  if (!server) {
    std::fprintf(stderr, "starting the server: %s\n", server.error().message().c_str());
    std::abort();
  }
  return std::move(*server);
}

// Sends `bytes`, half-closes, and reads until the server closes.
void exchange(uint16_t port, std::string_view bytes) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  // Closing with a reset once the server has closed: the server's side then skips TIME_WAIT,
  // so thousands of runs a second do not run out of port pairs (which stalls connects).
  linger reset{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  // libFuzzer's timeout alarm interrupts system calls; an interrupted connect goes on.
  while (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    if (errno == EISCONN) {
      break;
    }
    if (errno != EINTR && errno != EALREADY) {
      std::fprintf(stderr, "connecting to the server: %s\n", std::strerror(errno));
      std::abort();
    }
  }
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;  // the server answered early and closed
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  ::shutdown(fd, SHUT_WR);
  char buffer[16 * 1024];
  std::string received;
  for (;;) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) {
      break;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      std::fprintf(stderr, "the server did not close within 5 s (%s); it sent:\n%s\n",
                   std::strerror(errno), received.c_str());
      std::abort();
    }
    received.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::unique_ptr<http::Server> tiny = startFuzzServer(64);
  static std::unique_ptr<http::Server> kube = startFuzzServer(3 * 1024 * 1024);
  if (size == 0) {
    return 0;
  }
  http::Server& server = (data[0] & 1) ? *kube : *tiny;
  exchange(server.port(), std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  return 0;
}
