// The embedded API server against clients that try to take it down, holding a token or not:
// idle connections by the thousand, large bodies without a token, slow headers, more requests
// at once than the in-flight limits. Each gets its 4xx (or is cut off) promptly, clients that
// behave keep being served, and the process's memory stays bounded.

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/apiserver/fixtures.h"
#include "support/apiserver/test_server.h"
#include "support/build_flavor.h"
#include "support/http/raw_connection.h"

namespace nodewright::apiserver {
namespace {

using api::Json;
using namespace std::chrono_literals;
using http::testing::eventually;
using http::testing::processStatus;
using http::testing::Steady;
using http::testing::TcpConnection;
using http::testing::TlsConnection;

constexpr size_t kBodyLimit = 3 * 1024 * 1024;  // kube-apiserver's MaxRequestBodyBytes
// 300 MiB in the optimised build; the sanitizer build's shadow memory and quarantine get room.
constexpr long kMaxRssKiB = (test_support::kOptimisedBuild ? 300 : 1500) * 1024;

std::string head(const std::string& method, const std::string& path, size_t contentLength,
                 const std::string& token = "") {
  std::string text = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                     "Content-Type: application/json\r\nContent-Length: " +
                     std::to_string(contentLength) + "\r\n";
  if (!token.empty()) {
    text += "Authorization: Bearer " + token + "\r\n";
  }
  return text + "\r\n";
}

const std::string kConfigMaps = "/api/v1/namespaces/default/configmaps";

double millisSince(Steady::time_point start) {
  return std::chrono::duration<double, std::milli>(Steady::now() - start).count();
}

TEST(HostileClients, IdleConnectionsBeyondTheCapDoNotStarveKubectl) {
  constexpr long kCap = 64;
  ApiServerOptions options;
  options.connections.maxConnections = kCap;
  testing::TestApiServer server(options);
  const long threadsBefore = processStatus("Threads");

  std::atomic<bool> stop{false};
  std::atomic<int> succeeded{0};
  std::atomic<int> failed{0};
  std::string lastFailure;
  std::thread kubectlLoop([&] {
    while (!stop) {
      auto ran = testing::kubectl(server, {"get", "namespaces", "-o", "name"});
      if (ran.code == 0 && ran.out.find("namespace/default") != std::string::npos) {
        ++succeeded;
      } else {
        lastFailure = ran.err;
        ++failed;
      }
    }
  });
  std::vector<std::unique_ptr<TcpConnection>> idle;
  for (int i = 0; i < 1000; ++i) {
    idle.push_back(std::make_unique<TcpConnection>(server.port()));
    ASSERT_TRUE(idle.back()->connected());
  }
  const int before = succeeded;
  auto client = server.client();
  for (int i = 0; i < 20; ++i) {
    auto response = client->send("GET", "/api/v1/namespaces");
    ASSERT_TRUE(response) << response.error().message();
    EXPECT_EQ(response->status, 200);
  }
  EXPECT_TRUE(eventually([&] { return succeeded >= before + 3; }, 60s));
  stop = true;
  kubectlLoop.join();
  EXPECT_EQ(failed, 0) << lastFailure;

  // No thread per idle connection beyond the cap: they were closed to make room.
  EXPECT_TRUE(eventually([&] { return processStatus("Threads") <= threadsBefore + kCap; }, 10s))
      << processStatus("Threads") << " threads, " << threadsBefore << " before";
  EXPECT_LT(processStatus("VmRSS"), kMaxRssKiB);
}

TEST(HostileClients, BodiesWithoutATokenGet401BeforeTheyAreRead) {
  testing::TestApiServer server;
  // The body never comes: the answer cannot have waited for it.
  TlsConnection withheld(server.port());
  ASSERT_TRUE(withheld.ready());
  auto start = Steady::now();
  ASSERT_TRUE(withheld.send(head("POST", kConfigMaps, kBodyLimit)));
  auto response = withheld.read(5s);
  const double withheldMs = millisSince(start);
  EXPECT_EQ(http::testing::statusOf(response.data), 401) << response.data;
  EXPECT_LT(withheldMs, 1000);

  // The whole 3 MiB sent: answered 401 within a second, and the connection closes.
  TlsConnection full(server.port());
  ASSERT_TRUE(full.ready());
  start = Steady::now();
  ASSERT_TRUE(full.send(head("POST", kConfigMaps, kBodyLimit) + std::string(kBodyLimit, '{')));
  response = full.read(5s);
  const double fullMs = millisSince(start);
  EXPECT_EQ(http::testing::statusOf(response.data), 401) << response.data;
  Json status = Json::parse(http::testing::bodyOf(response.data), nullptr, false);
  EXPECT_EQ(status["reason"], "Unauthorized");
  EXPECT_LT(fullMs, 1000);
  std::cout << "time-to-401-body-withheld " << withheldMs << " ms\n"
            << "time-to-401-3MiB-body " << fullMs << " ms\n";
}

TEST(HostileClients, ContentLengthOverTheLimitGets413AtOnce) {
  testing::TestApiServer server;
  TlsConnection connection(server.port());
  ASSERT_TRUE(connection.ready());
  const auto start = Steady::now();
  ASSERT_TRUE(connection.send(head("POST", kConfigMaps, kBodyLimit + 1, server.token())));
  auto response = connection.read(5s);
  const double took = millisSince(start);
  EXPECT_EQ(http::testing::statusOf(response.data), 413) << response.data;
  Json status = Json::parse(http::testing::bodyOf(response.data), nullptr, false);
  EXPECT_EQ(status["reason"], "RequestEntityTooLarge");
  EXPECT_EQ(status["message"], "Request entity too large: limit is 3145728");
  EXPECT_LT(took, 1000);
  std::cout << "time-to-413-content-length " << took << " ms\n";
}

TEST(HostileClients, SlowHandshakesAndHeadersAreCutOff) {
  ApiServerOptions options;
  options.connections.handshakeTimeout = 300ms;
  options.connections.headerTimeout = 300ms;
  testing::TestApiServer server(options);

  TcpConnection noHandshake(server.port());
  ASSERT_TRUE(noHandshake.connected());
  auto start = Steady::now();
  EXPECT_TRUE(noHandshake.closedWithin(5s));
  const double handshakeMs = millisSince(start);
  EXPECT_LT(handshakeMs, 2000);

  TlsConnection slow(server.port());
  ASSERT_TRUE(slow.ready());
  start = Steady::now();
  ASSERT_TRUE(slow.send("GET /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "));
  auto read = slow.read(5s);
  const double headerMs = millisSince(start);
  EXPECT_TRUE(read.closed);
  EXPECT_EQ(read.data, "");
  EXPECT_GE(headerMs, 250);
  EXPECT_LT(headerMs, 2000);

  // Clients that behave are unaffected.
  auto response = server.client()->send("GET", "/api/v1/namespaces");
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, 200);
  std::cout << "time-to-close-no-handshake " << handshakeMs << " ms\n"
            << "time-to-close-slow-header " << headerMs << " ms\n";
}

// Connections whose requests (headers sent, body withheld) hold an in-flight slot: once a probe
// of the same kind gets 429. A held request may arrive while a probe is being served and be
// refused itself, so another is sent until a probe finds the slot taken; all are kept open.
std::vector<std::unique_ptr<TlsConnection>> holdSlot(const testing::TestApiServer& server,
                                                     const std::string& method,
                                                     const std::function<int()>& probe) {
  std::vector<std::unique_ptr<TlsConnection>> held;
  for (int attempt = 0; attempt < 50; ++attempt) {
    held.push_back(std::make_unique<TlsConnection>(server.port()));
    if (held.back()->ready() && held.back()->send(head(method, kConfigMaps, 100, server.token())) &&
        probe() == 429) {
      return held;
    }
  }
  return {};
}

TEST(HostileClients, RequestsBeyondTheInFlightLimitsGet429) {
  ApiServerOptions options;
  options.inFlight = InFlightLimits{.maxMutating = 1, .maxReadOnly = 1};
  testing::TestApiServer server(options);
  auto client = server.client();
  int created = 0;
  auto createConfigMap = [&] {
    Json object = testing::configMap("default", "in-flight-" + std::to_string(created++));
    return client->send("POST", kConfigMaps, api::dumpJson(object));
  };

  // Each held request is admitted and waits for a body that never comes.
  http::Response refused;
  Steady::time_point start;
  auto heldMutating = holdSlot(server, "POST", [&] {
    start = Steady::now();
    auto response = createConfigMap();
    refused = response ? *response : http::Response{};
    return refused.status;
  });
  ASSERT_FALSE(heldMutating.empty());
  ASSERT_EQ(refused.status, 429);
  const double tooManyMs = millisSince(start);
  EXPECT_LT(tooManyMs, 1000);
  Json status = Json::parse(refused.body, nullptr, false);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["reason"], "TooManyRequests");
  EXPECT_EQ(status["code"], 429);
  EXPECT_EQ(status["details"]["retryAfterSeconds"], 1);
  bool retryAfter = false;
  for (const auto& [name, value] : refused.headers) {
    retryAfter = retryAfter || (name == "Retry-After" && value == "1");
  }
  EXPECT_TRUE(retryAfter);

  // Read-only requests have their own limit, still free.
  auto list = client->send("GET", kConfigMaps);
  ASSERT_TRUE(list);
  EXPECT_EQ(list->status, 200);
  auto heldReadOnly = holdSlot(server, "GET", [&] {
    auto response = client->send("GET", kConfigMaps);
    return response ? response->status : 0;
  });
  ASSERT_FALSE(heldReadOnly.empty());
  // The mutating slot is still taken.
  auto again = createConfigMap();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 429);

  // A watch is long-running: not counted, so served while both limits are reached.
  bool added = false;
  auto watched = client->stream("/api/v1/namespaces?watch=true&timeoutSeconds=1",
                                [&](std::string_view line) {
                                  added = line.find("\"ADDED\"") != std::string_view::npos;
                                  return !added;
                                });
  EXPECT_TRUE(watched) << watched.error().message();
  EXPECT_TRUE(added);

  // Health probes carry no token and are never refused.
  auto health = client->send("GET", "/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);

  // Once the held requests end, their slots are free again.
  heldMutating.clear();
  heldReadOnly.clear();
  EXPECT_TRUE(eventually(
      [&] {
        auto response = client->send("GET", kConfigMaps);
        return response && response->status == 200;
      },
      5s));
  EXPECT_TRUE(eventually(
      [&] {
        auto response = createConfigMap();
        return response && response->status == 201;
      },
      5s));
  std::cout << "time-to-429 " << tooManyMs << " ms\n";
}

TEST(HostileClients, ManyLargeBodiesWithoutATokenKeepMemoryBounded) {
  testing::TestApiServer server;
  const std::string body(kBodyLimit - 1, '[');
  const long rssBefore = processStatus("VmRSS");
  // Each connection sends all but the last byte of a 3 MiB body and stays open: a server that
  // buffered bodies before checking the token would hold 3 MiB for each.
  std::vector<std::unique_ptr<TlsConnection>> connections;
  for (int i = 0; i < 100; ++i) {
    connections.push_back(std::make_unique<TlsConnection>(server.port()));
    ASSERT_TRUE(connections.back()->ready());
    connections.back()->send(head("POST", kConfigMaps, kBodyLimit) + body);
  }
  const long rss = processStatus("VmRSS");
  EXPECT_LT(rss, kMaxRssKiB);
  // What the 100 held bodies cost: a server that buffered them would hold 300 MiB. (Under ASan
  // each connection's thread alone costs more than a body would, so only the total is bounded.)
  if (test_support::kOptimisedBuild) {
    EXPECT_LT(rss - rssBefore, 150 * 1024) << rssBefore / 1024 << " MiB before";
  }
  auto response = server.client()->send("GET", "/api/v1/namespaces");
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, 200);
  std::cout << "rss-before " << rssBefore / 1024 << " MiB\n"
            << "rss-after-100-unauthenticated-3MiB-bodies " << rss / 1024 << " MiB\n";
}

}  // namespace
}  // namespace nodewright::apiserver
