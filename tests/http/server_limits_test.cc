// What a hostile client can make the HTTP server spend: connections beyond the cap, time in each
// phase of a request (slow headers, idle keep-alive, slow bodies) and body bytes, and whether a
// refusal comes before the body is read. Plain HTTP on a loopback port, spoken to byte by byte.

#include <atomic>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "http/server.h"
#include "support/http/raw_connection.h"

namespace nodewright::http {
namespace {

using namespace std::chrono_literals;
using testing::TcpConnection;

constexpr size_t kMaxBody = 1024;

class HttpServerLimits : public ::testing::Test {
 protected:
  // Answers 200 with the body's size; counts the requests that reached it.
  void start(ServerOptions options) {
    options.maxBodyBytes = kMaxBody;
    auto server = startServer(std::move(options), [this](const Request& r, Exchange& e) {
      handled_++;
      e.respond(Response{200, "text/plain", std::to_string(r.body.size()), {}});
    });
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
  }
  void TearDown() override {
    if (server_) {
      server_->stop();
    }
  }
  ServerOptions withLimits(const std::function<void(ConnectionLimits&)>& edit) {
    ServerOptions options;
    edit(options.limits);
    return options;
  }
  std::string get(TcpConnection& connection) {
    EXPECT_TRUE(connection.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n"));
    return connection.read(5s).data;
  }

  std::unique_ptr<Server> server_;
  std::atomic<int> handled_{0};
};

TEST_F(HttpServerLimits, SlowHeadersAreCutOffAtTheHeaderTimeout) {
  start(withLimits([](ConnectionLimits& l) { l.headerTimeout = 300ms; }));
  TcpConnection slow(server_->port());
  ASSERT_TRUE(slow.connected());
  const auto begin = testing::Steady::now();
  ASSERT_TRUE(slow.send("GET /x HTTP/1.1\r\nHost: t\r\nX-Slow: "));
  EXPECT_TRUE(slow.closedWithin(5s));
  const auto took = testing::Steady::now() - begin;
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 2s);
  EXPECT_EQ(handled_, 0);
}

TEST_F(HttpServerLimits, IdleConnectionsAreClosedAtTheIdleTimeout) {
  start(withLimits([](ConnectionLimits& l) { l.idleTimeout = 300ms; }));
  TcpConnection idle(server_->port());
  ASSERT_TRUE(idle.connected());
  EXPECT_EQ(testing::statusOf(get(idle)), 200);
  // Kept alive after the answer, then closed once idle for longer than the timeout.
  EXPECT_TRUE(idle.closedWithin(5s));
  TcpConnection silent(server_->port());
  EXPECT_TRUE(silent.closedWithin(5s));
}

TEST_F(HttpServerLimits, SlowBodiesAreCutOffAtTheBodyTimeout) {
  start(withLimits([](ConnectionLimits& l) { l.bodyTimeout = 300ms; }));
  TcpConnection slow(server_->port());
  ASSERT_TRUE(slow.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nabc"));
  EXPECT_TRUE(slow.closedWithin(5s));
  EXPECT_EQ(handled_, 0);
}

TEST_F(HttpServerLimits, IdleConnectionsBeyondTheCapMakeRoomForNewOnes) {
  constexpr size_t kCap = 16;
  start(withLimits([](ConnectionLimits& l) { l.maxConnections = kCap; }));
  const long threadsBefore = testing::processStatus("Threads");
  std::vector<std::unique_ptr<TcpConnection>> idle;
  for (int i = 0; i < 1000; ++i) {
    idle.push_back(std::make_unique<TcpConnection>(server_->port()));
    ASSERT_TRUE(idle.back()->connected());
  }
  // A client arriving after them is served, again and again.
  for (int i = 0; i < 20; ++i) {
    TcpConnection client(server_->port());
    EXPECT_EQ(testing::statusOf(get(client)), 200) << "request " << i;
  }
  EXPECT_LE(server_->openConnections(), kCap);
  // The idle ones beyond the cap were closed, not left to hold a thread each.
  std::vector<bool> closed(idle.size(), false);
  size_t count = 0;
  EXPECT_TRUE(testing::eventually(
      [&] {
        for (size_t i = 0; i < idle.size(); ++i) {
          if (!closed[i] && idle[i]->closedWithin(0ms)) {
            closed[i] = true;
            ++count;
          }
        }
        return count >= idle.size() - kCap;
      },
      5s))
      << count << " closed";
  EXPECT_TRUE(testing::eventually(
      [&] {
        return testing::processStatus("Threads") <= threadsBefore + static_cast<long>(kCap);
      },
      5s))
      << testing::processStatus("Threads") << " threads, " << threadsBefore << " before";
}

TEST_F(HttpServerLimits, ContentLengthOverTheLimitGets413BeforeTheBody) {
  start({});
  TcpConnection client(server_->port());
  const auto begin = testing::Steady::now();
  ASSERT_TRUE(client.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\n\r\n"));
  auto response = client.read(5s);
  EXPECT_EQ(testing::statusOf(response.data), 413) << response.data;
  EXPECT_LT(testing::Steady::now() - begin, 1s);
  EXPECT_EQ(testing::headerOf(response.data, "Connection"), "close");
  EXPECT_EQ(handled_, 0);
}

TEST_F(HttpServerLimits, ChunkedBodiesAreCountedAsTheyArrive) {
  start({});
  TcpConnection client(server_->port());
  ASSERT_TRUE(client.send("POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"));
  const std::string chunk = "320\r\n" + std::string(800, 'a') + "\r\n";
  ASSERT_TRUE(client.send(chunk));
  ASSERT_TRUE(client.send(chunk));  // 1600 bytes so far, the message not finished
  auto response = client.read(5s);
  EXPECT_EQ(testing::statusOf(response.data), 413) << response.data;
  EXPECT_EQ(handled_, 0);
}

TEST_F(HttpServerLimits, BodiesWithinTheLimitAreServedOnAKeptAliveConnection) {
  start({});
  TcpConnection client(server_->port());
  const std::string body(kMaxBody, 'b');
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(client.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body));
    auto response = client.read(5s);
    EXPECT_EQ(testing::statusOf(response.data), 200);
    EXPECT_EQ(testing::bodyOf(response.data), std::to_string(kMaxBody));
  }
}

TEST_F(HttpServerLimits, RefusalsComeBeforeTheBodyIsRead) {
  ServerOptions options;
  options.admit = [](const Request& head) {
    if (head.header("authorization") == "Bearer good") {
      return Admission{};
    }
    return Admission{Response{401, "text/plain", "no", {}}, nullptr};
  };
  start(std::move(options));
  // Nothing of the body is sent: the answer cannot have waited for it.
  TcpConnection withheld(server_->port());
  ASSERT_TRUE(withheld.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n"));
  EXPECT_EQ(testing::statusOf(withheld.read(5s).data), 401);
  // A client that sends its whole body before reading still gets the answer, not a reset.
  TcpConnection eager(server_->port());
  ASSERT_TRUE(eager.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n" +
                         std::string(1000, 'x')));
  EXPECT_EQ(testing::statusOf(eager.read(5s).data), 401);
  EXPECT_EQ(handled_, 0);
  TcpConnection admitted(server_->port());
  ASSERT_TRUE(admitted.send("GET /x HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer good\r\n\r\n"));
  EXPECT_EQ(testing::statusOf(admitted.read(5s).data), 200);
}

TEST_F(HttpServerLimits, AdmissionHoldIsReleasedOnceAnswered) {
  auto held = std::make_shared<std::atomic<int>>(0);
  ServerOptions options;
  options.admit = [held](const Request&) {
    held->fetch_add(1);
    return Admission{std::nullopt, std::shared_ptr<void>(held.get(), [held](void*) {
                       held->fetch_sub(1);
                     })};
  };
  start(std::move(options));
  TcpConnection client(server_->port());
  ASSERT_TRUE(client.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\n"));
  // Admitted and waiting for its body: the hold is kept.
  EXPECT_TRUE(testing::eventually([&] { return *held == 1; }, 5s));
  ASSERT_TRUE(client.send("abc"));
  EXPECT_EQ(testing::statusOf(client.read(5s).data), 200);
  EXPECT_TRUE(testing::eventually([&] { return *held == 0; }, 5s));
}

TEST_F(HttpServerLimits, ExpectContinueIsAnsweredOnceAdmitted) {
  start({});
  TcpConnection client(server_->port());
  ASSERT_TRUE(client.send(
      "POST /x HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"));
  auto interim = client.read(5s, [](const std::string& d) { return d.find("\r\n\r\n") != d.npos; });
  EXPECT_EQ(testing::statusOf(interim.data), 100);
  ASSERT_TRUE(client.send("abc"));
  auto response = client.read(5s);
  EXPECT_EQ(testing::statusOf(response.data), 200);
  EXPECT_EQ(testing::bodyOf(response.data), "3");
}

TEST_F(HttpServerLimits, MalformedRequestsGet400AndHugeHeaders431) {
  start({});
  TcpConnection garbage(server_->port());
  ASSERT_TRUE(garbage.send("NOT HTTP AT ALL\r\n\r\n"));
  EXPECT_EQ(testing::statusOf(garbage.read(5s).data), 400);
  TcpConnection huge(server_->port());
  ASSERT_TRUE(huge.send("GET /x HTTP/1.1\r\nX-Big: " + std::string(128 * 1024, 'h') + "\r\n\r\n"));
  EXPECT_EQ(testing::statusOf(huge.read(5s).data), 431);
  EXPECT_EQ(handled_, 0);
}

}  // namespace
}  // namespace nodewright::http
