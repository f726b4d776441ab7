#include "aws/imds.h"

#include <gtest/gtest.h>

#include <mutex>

#include "aws/endpoints.h"
#include "http/server.h"

namespace nodewright::aws {
namespace {

using namespace std::chrono_literals;

constexpr const char* kSecret = "imdsSecretKeyThatMustNeverBeLogged";

// A loopback IMDS that, like an instance with HttpTokens=required, answers only requests that
// carry a session token it issued: an IMDSv1 read gets 401 and is counted.
class FakeImds {
 public:
  explicit FakeImds(const core::Clock& clock) : clock_(clock) {
    auto server = http::startServer(
        {}, [this](const http::Request& req, http::Exchange& ex) { ex.respond(handle(req)); });
    if (server) {
      server_ = std::move(*server);
    }
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  std::mutex mu;
  int tokenRequests = 0;
  int tokenlessReads = 0;
  int credentialReads = 0;
  int failNextTokens = 0;  // answer this many token requests with 500
  std::string role = "node-role";
  std::string ttlSeen;

 private:
  http::Response handle(const http::Request& req) {
    std::lock_guard lock(mu);
    http::Response response;
    response.contentType = "text/plain";
    if (req.path == "/latest/api/token") {
      ++tokenRequests;
      ttlSeen = req.header("x-aws-ec2-metadata-token-ttl-seconds");
      if (req.method != "PUT" || ttlSeen.empty()) {
        response.status = 400;
        return response;
      }
      if (failNextTokens > 0) {
        --failNextTokens;
        response.status = 500;
        return response;
      }
      response.body = "token-" + std::to_string(tokenRequests);
      return response;
    }
    const std::string token = req.header("x-aws-ec2-metadata-token");
    if (token.rfind("token-", 0) != 0) {
      ++tokenlessReads;
      response.status = 401;
      return response;
    }
    if (req.path == "/latest/meta-data/placement/region") {
      response.body = "eu-central-1";
    } else if (req.path == "/latest/meta-data/iam/security-credentials/") {
      if (role.empty()) {
        response.status = 404;
      } else {
        response.body = role;
      }
    } else if (req.path == "/latest/meta-data/iam/security-credentials/" + role) {
      ++credentialReads;
      response.contentType = "application/json";
      response.body = R"({"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"ASIAIMDS)" +
                      std::to_string(credentialReads) + R"(","SecretAccessKey":")" + kSecret +
                      R"(","Token":"imds-session","Expiration":")" +
                      core::Time(clock_.now() + 6h).toString() + R"("})";
    } else {
      response.status = 404;
    }
    return response;
  }

  const core::Clock& clock_;
  std::unique_ptr<http::Server> server_;
};

class ImdsTest : public ::testing::Test {
 protected:
  ImdsOptions options() {
    ImdsOptions o;
    o.endpoint = imds_.url();
    return o;
  }
  core::FakeClock clock_;
  FakeImds imds_{clock_};
  TransportPtr transport_ = makeCurlTransport();
};

TEST_F(ImdsTest, FetchesRoleCredentialsWithAToken) {
  ImdsCredentials provider(options(), *transport_, clock_);
  auto got = provider.get();
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->accessKeyId, "ASIAIMDS1");
  EXPECT_EQ(got->secretAccessKey, kSecret);
  EXPECT_EQ(got->sessionToken, "imds-session");
  std::lock_guard lock(imds_.mu);
  EXPECT_EQ(imds_.tokenlessReads, 0);
  EXPECT_EQ(imds_.ttlSeen, "21600");
}

TEST_F(ImdsTest, RefreshesFiveMinutesBeforeExpiration) {
  ImdsCredentials provider(options(), *transport_, clock_);
  EXPECT_EQ(provider.get()->accessKeyId, "ASIAIMDS1");
  clock_.advance(5h + 54min);
  EXPECT_EQ(provider.get()->accessKeyId, "ASIAIMDS1");
  clock_.advance(2min);
  EXPECT_EQ(provider.get()->accessKeyId, "ASIAIMDS2");
}

TEST_F(ImdsTest, RetriesATokenFailureOnceAndNeverFallsBackToV1) {
  {
    std::lock_guard lock(imds_.mu);
    imds_.failNextTokens = 1;
  }
  ImdsCredentials provider(options(), *transport_, clock_);
  ASSERT_TRUE(provider.get());

  {
    std::lock_guard lock(imds_.mu);
    imds_.failNextTokens = 100;
  }
  ImdsCredentials failing(options(), *transport_, clock_);
  auto got = failing.get();
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "ImdsError");
  EXPECT_NE(got.error().message.find("IMDSv2 session token: HTTP 500"), std::string::npos)
      << got.error().message;
  std::lock_guard lock(imds_.mu);
  EXPECT_EQ(imds_.tokenlessReads, 0);
  EXPECT_EQ(imds_.failNextTokens, 100 - 2);  // two attempts
}

TEST_F(ImdsTest, NoRoleIsNotFound) {
  {
    std::lock_guard lock(imds_.mu);
    imds_.role = "";
  }
  ImdsCredentials provider(options(), *transport_, clock_);
  auto got = provider.get();
  ASSERT_FALSE(got);
  EXPECT_TRUE(isCredentialsNotFound(got.error())) << got.error().message;
}

TEST_F(ImdsTest, UnreachableAndDisabledAreNotFound) {
  // A port nothing listens on: stop a server of our own to get one.
  uint16_t port = 0;
  {
    auto server = http::startServer({}, [](const http::Request&, http::Exchange&) {});
    ASSERT_TRUE(server);
    port = (*server)->port();
    (*server)->stop();
  }
  ImdsOptions o;
  o.endpoint = "http://127.0.0.1:" + std::to_string(port);
  ImdsCredentials unreachable(o, *transport_, clock_);
  auto got = unreachable.get();
  ASSERT_FALSE(got);
  EXPECT_TRUE(isCredentialsNotFound(got.error())) << got.error().message;

  auto env = mapEnvironment(
      {{"AWS_EC2_METADATA_DISABLED", "true"}, {"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds_.url()}});
  ASSERT_FALSE(imdsOptionsFromEnvironment(env));
  ImdsCredentials disabled(imdsOptionsFromEnvironment(env), *transport_, clock_);
  auto off = disabled.get();
  ASSERT_FALSE(off);
  EXPECT_TRUE(isCredentialsNotFound(off.error()));
  std::lock_guard lock(imds_.mu);
  EXPECT_EQ(imds_.tokenRequests, 0);
}

TEST_F(ImdsTest, EndpointFromEnvironmentAndRegionLookup) {
  auto opts = imdsOptionsFromEnvironment(
      mapEnvironment({{"AWS_EC2_METADATA_SERVICE_ENDPOINT", imds_.url() + "/"}}));
  ASSERT_TRUE(opts);
  EXPECT_EQ(imdsOptionsFromEnvironment(mapEnvironment({}))->endpoint, "http://169.254.169.254");
  ImdsClient client(*opts, *transport_);
  EXPECT_EQ(imdsRegion(client), "eu-central-1");

  auto region =
      resolveRegion(std::nullopt, mapEnvironment({}), nullptr, [&] { return imdsRegion(client); });
  EXPECT_EQ(region, "eu-central-1");
}

TEST_F(ImdsTest, ErrorsNeverQuoteTheCredentialsDocument) {
  class BadDocument final : public Transport {
   public:
    ApiResult<HttpResponse> send(const HttpRequest& req, std::chrono::milliseconds) override {
      HttpResponse response{200, {}, ""};
      if (req.url.ends_with("/latest/api/token")) {
        response.body = "t";
      } else if (req.url.ends_with("/security-credentials/")) {
        response.body = "r\n";
      } else {
        response.body = std::string(R"({"Code":"Success","SecretAccessKey":")") + kSecret +
                        R"(","AccessKeyId":"A","Expiration":"not-a-time"})";
      }
      return response;
    }
  } bad;
  ImdsCredentials provider(ImdsOptions{}, bad, clock_);
  auto got = provider.get();
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().message, "role credentials of r have no valid Expiration");
}

}  // namespace
}  // namespace nodewright::aws
