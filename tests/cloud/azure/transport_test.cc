#include "cloud/azure/transport.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "cloud/azure/managed_identity.h"
#include "http/server.h"

// The curl transport against a plain-HTTP server on loopback: what it refuses to send there,
// and how it stops reading an endless answer.
namespace nodewright::cloud::azure {
namespace {

using namespace std::chrono_literals;

class TransportTest : public testing::Test {
 protected:
  void SetUp() override {
    auto server = http::startServer({}, [this](const http::Request& request, http::Exchange& ex) {
      ++requests_;
      http::Response response;
      if (request.path == "/metadata/identity/oauth2/token") {
        response.body = R"({"access_token":"imds-token","expires_in":"3599"})";
      } else {
        std::lock_guard<std::mutex> lock(mu_);
        response.body = body_;
      }
      ex.respond(std::move(response));
    });
    ASSERT_TRUE(server.has_value()) << server.error().message();
    server_ = std::move(*server);
    url_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }
  void TearDown() override { server_->stop(); }

  void setBody(std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    body_ = std::move(body);
  }

  std::atomic<int> requests_{0};
  std::mutex mu_;
  std::string body_ = R"({"ok":true})";  // GUARDED_BY(mu_)
  std::unique_ptr<http::Server> server_;
  std::string url_;
};

TEST_F(TransportTest, PlainHttpIsRefusedBeforeConnecting) {
  auto transport = makeCurlTransport();
  HttpRequest request;
  request.url = url_ + "/subscriptions/s";
  request.headers = {{"Authorization", "Bearer secret-token"}};
  auto response = transport->send(request, 5s);
  ASSERT_FALSE(response.has_value());
  EXPECT_FALSE(response.error().timedOut);
  EXPECT_EQ(requests_, 0) << "the bearer token went out over plain HTTP";

  request.allowPlainHttp = true;
  request.headers.clear();
  auto allowed = transport->send(request, 5s);
  ASSERT_TRUE(allowed.has_value()) << allowed.error().message;
  EXPECT_EQ(allowed->status, 200);
  EXPECT_EQ(requests_, 1);
}

TEST_F(TransportTest, ManagedIdentityEndpointMayBePlainHttp) {
  auto transport = makeCurlTransport();
  core::FakeClock clock;
  ManagedIdentityOptions options;
  options.endpoint = url_;
  ManagedIdentityCredential identity(options, *transport, clock);
  auto token = identity.getToken(kArmScope, 5s);
  ASSERT_TRUE(token.has_value()) << token.error().message;
  EXPECT_EQ(token->token, "imds-token");
  EXPECT_EQ(token->expiresOn, clock.now() + 3599s);
}

TEST_F(TransportTest, BodyOverTheLimitIsAbandoned) {
  CurlTransportOptions options;
  options.maxResponseBytes = 1024;
  auto transport = makeCurlTransport(options);
  HttpRequest request;
  request.url = url_ + "/big";
  request.allowPlainHttp = true;
  setBody(std::string(1024, 'x'));
  auto fits = transport->send(request, 5s);
  ASSERT_TRUE(fits.has_value()) << fits.error().message;
  EXPECT_EQ(fits->body.size(), 1024u);

  setBody(std::string(1025, 'x'));
  auto tooLarge = transport->send(request, 5s);
  ASSERT_FALSE(tooLarge.has_value());
  EXPECT_FALSE(tooLarge.error().timedOut);
  EXPECT_EQ(tooLarge.error().message, "the response body exceeds 1024 bytes");
}

}  // namespace
}  // namespace nodewright::cloud::azure
