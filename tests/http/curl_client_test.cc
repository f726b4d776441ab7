// The one libcurl request loop under the kube, AWS and Azure transports, against the project's
// own HTTP server on a loopback port.
#include "http/curl_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "http/server.h"

namespace nodewright::http {
namespace {

using namespace std::chrono_literals;

CurlRequest get(const std::string& url, std::chrono::milliseconds timeout = 30s) {
  CurlRequest request;
  request.url = url;
  request.timeout = timeout;
  return request;
}

// A handler that holds its request until release() (or the fixture's end).
class Gate {
 public:
  void wait() {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, 10s, [this] { return open_; });
  }
  void release() {
    {
      std::lock_guard lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;  // GUARDED_BY(mu_)
};

class CurlClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server =
        startServer(ServerOptions{}, [this](const Request& r, Exchange& e) { handle(r, e); });
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
  }
  void TearDown() override {
    gate_.release();
    server_->stop();
  }

  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(server_->port()) + path;
  }

  void handle(const Request& r, Exchange& e) {
    if (r.path == "/echo") {
      Response response;
      response.contentType = "text/plain";
      response.body = r.method + " " + r.header("x-request") + " " + r.body;
      response.headers = {{"X-Twice", "a"}, {"X-Twice", "b"}, {"Retry-After", "3"}};
      e.respond(std::move(response));
    } else if (r.path == "/big") {
      e.respond(Response{200, "text/plain", std::string(1000, 'x'), {}});
    } else if (r.path == "/hang") {
      gate_.wait();
      e.respond(Response{200, "text/plain", "late", {}});
    } else if (r.path == "/stream") {
      Stream& stream = e.startStream(200, "application/json");
      stream.write("one\n\ntwo\n");
      gate_.wait();
    } else {
      e.respond(Response{404, "application/json", R"({"reason":"NotFound"})", {}});
    }
  }

  Gate gate_;
  std::unique_ptr<Server> server_;
  CurlClient client_;
};

TEST_F(CurlClientTest, SendsMethodHeadersAndBodyAndCollectsHeadersLowerCasedAndJoined) {
  CurlRequest request;
  request.method = "PATCH";
  request.url = url("/echo");
  request.headers = {{"X-Request", "r1"}};
  const std::string body = "payload";
  request.body = body;
  auto response = client_.perform(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "PATCH r1 payload");
  EXPECT_EQ(response->headers["x-twice"], "a, b");
  EXPECT_EQ(response->headers["retry-after"], "3");
  // The second request reuses the pooled connection.
  ASSERT_TRUE(client_.perform(request));
  EXPECT_EQ(client_.connectionsOpened(), 1u);
}

TEST_F(CurlClientTest, AnyStatusIsAResponse) {
  auto response = client_.perform(get(url("/missing")));
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 404);
  EXPECT_EQ(response->body, R"({"reason":"NotFound"})");
}

TEST_F(CurlClientTest, ABodyOverTheLimitIsAFailureNotATruncatedResponse) {
  CurlClient limited(CurlClientOptions{.maxResponseBytes = 100});
  auto response = limited.perform(get(url("/big")));
  ASSERT_FALSE(response);
  EXPECT_FALSE(response.error().timedOut);
  EXPECT_EQ(response.error().message, "the response body exceeds 100 bytes");
}

TEST_F(CurlClientTest, NoAnswerWithinTheTimeoutIsATimedOutFailure) {
  auto response = client_.perform(get(url("/hang"), 200ms));
  ASSERT_FALSE(response);
  EXPECT_TRUE(response.error().timedOut) << response.error().message;
}

TEST_F(CurlClientTest, ARefusedConnectionIsAFailureThatDidNotTimeOut) {
  // A port nobody listens on any more.
  auto gone = startServer(ServerOptions{}, [](const Request&, Exchange&) {});
  ASSERT_TRUE(gone) << gone.error().message();
  const uint16_t port = (*gone)->port();
  (*gone)->stop();
  auto response = client_.perform(get("http://127.0.0.1:" + std::to_string(port) + "/"));
  ASSERT_FALSE(response);
  EXPECT_FALSE(response.error().timedOut);
  EXPECT_FALSE(response.error().message.empty());
}

TEST_F(CurlClientTest, AStreamDeliversLinesAndAStopEndsABlockedReadAtOnce) {
  std::vector<std::string> lines;
  std::promise<void> secondLine;
  std::stop_source stop;
  auto ended = std::async(std::launch::async, [&] {
    return client_.stream(
        get(url("/stream"), 0ms),
        [&](std::string_view line) {
          lines.emplace_back(line);
          if (lines.size() == 2) {
            secondLine.set_value();
          }
          return true;
        },
        stop.get_token());
  });
  ASSERT_EQ(secondLine.get_future().wait_for(10s), std::future_status::ready);
  const auto stoppedAt = std::chrono::steady_clock::now();
  stop.request_stop();
  ASSERT_EQ(ended.wait_for(5s), std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - stoppedAt, 2s);
  auto end = ended.get();
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_TRUE(end->endedByCaller);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));  // the empty line is skipped
}

TEST_F(CurlClientTest, AStreamAnsweredWithAnErrorReturnsItsStatusAndBody) {
  auto end = client_.stream(get(url("/missing")), [](std::string_view) { return true; }, {});
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_FALSE(end->endedByCaller);
  EXPECT_EQ(end->status, 404);
  EXPECT_EQ(end->body, R"({"reason":"NotFound"})");
}

}  // namespace
}  // namespace nodewright::http
