#include "aws/transport.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http/server.h"

namespace nodewright::aws {
namespace {

using namespace std::chrono_literals;

// A loopback peer that echoes what it received, or answers as the request's path says.
class TransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = http::startServer({}, [this](const http::Request& r, http::Exchange& ex) {
      if (r.path == "/hang") {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return released_; });
        ex.respond({});
        return;
      }
      http::Response response;
      response.status = r.path == "/fail" ? 503 : 200;
      response.contentType = "text/plain";
      response.body = r.method + " " + r.rawQuery + " " + r.header("x-amz-date") + " " +
                      r.header("content-type") + " " + r.body;
      response.headers.emplace_back("X-Amzn-RequestId", "req-1");
      response.headers.emplace_back("X-Twice", "a");
      response.headers.emplace_back("X-Twice", "b");
      ex.respond(std::move(response));
    });
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    base_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }

  void TearDown() override {
    {
      std::lock_guard lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
    server_->stop();
  }

  HttpRequest post(std::string path, std::string body) const {
    HttpRequest r;
    r.method = "POST";
    r.url = base_ + path;
    r.headers.emplace("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
    r.headers.emplace("X-Amz-Date", "20240101T000000Z");
    r.body = std::move(body);
    return r;
  }

  std::unique_ptr<http::Server> server_;
  std::string base_;
  TransportPtr transport_ = makeCurlTransport();
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
};

TEST_F(TransportTest, SendsMethodHeadersAndBodyAndReadsTheResponse) {
  auto response = transport_->send(post("/?x=1", "Action=DescribeRegions"), 5s);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body,
            "POST x=1 20240101T000000Z application/x-www-form-urlencoded; charset=utf-8 "
            "Action=DescribeRegions");
  EXPECT_EQ(response->headers["x-amzn-requestid"], "req-1");
  EXPECT_EQ(response->headers["x-twice"], "a, b");
  EXPECT_EQ(response->headers["content-type"], "text/plain");
}

TEST_F(TransportTest, SendsLargeBodiesWithoutWaitingForContinue) {
  const std::string big(200 * 1024, 'x');
  auto response = transport_->send(post("/", big), 5s);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_TRUE(response->body.ends_with(big));
}

TEST_F(TransportTest, GetSendsNoBody) {
  HttpRequest r;
  r.method = "GET";
  r.url = base_ + "/?a=b";
  auto response = transport_->send(r, 5s);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->body, "GET a=b   ");
}

TEST_F(TransportTest, AnErrorStatusIsAResponse) {
  auto response = transport_->send(post("/fail", "x"), 5s);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 503);
}

TEST_F(TransportTest, NoAnswerWithinTheTimeoutIsRequestTimeout) {
  auto response = transport_->send(post("/hang", ""), 200ms);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, kRequestTimeout);
  EXPECT_EQ(response.error().httpStatus, 0);
}

TEST_F(TransportTest, RefusedConnectionIsTransportError) {
  auto other =
      http::startServer({}, [](const http::Request&, http::Exchange& ex) { ex.respond({}); });
  ASSERT_TRUE(other);
  const std::string url = "http://127.0.0.1:" + std::to_string((*other)->port()) + "/";
  (*other)->stop();
  HttpRequest r = post("/", "x");
  r.url = url;
  auto response = transport_->send(r, 5s);
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, kTransportError);
  EXPECT_EQ(response.error().httpStatus, 0);
}

TEST_F(TransportTest, ServesManyThreadsWithPooledHandles) {
  constexpr int kThreads = 8, kEach = 25;
  std::vector<std::thread> threads;
  std::mutex mu;
  int ok = 0;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string body = std::to_string(t) + "-" + std::to_string(i);
        auto response = transport_->send(post("/", body), 5s);
        if (response && response->status == 200 && response->body.ends_with(" " + body)) {
          std::lock_guard lock(mu);
          ++ok;
        }
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  EXPECT_EQ(ok, kThreads * kEach);
}

}  // namespace
}  // namespace nodewright::aws
