#include "aws/web_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "aws/query.h"
#include "aws/shared_config.h"
#include "http/server.h"
#include "support/aws/moto_server.h"
#include "support/emulators/ec2_fixture.h"
#include "support/emulators/process.h"

namespace nodewright::aws {
namespace {

using namespace std::chrono_literals;

constexpr const char* kRoleArn = "arn:aws:iam::123456789012:role/nodewright-controller";

class TokenFile {
 public:
  TokenFile() {
    std::string pattern = (std::filesystem::temp_directory_path() / "nw-wi-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
  }
  ~TokenFile() { std::filesystem::remove_all(dir_); }
  void write(const std::string& token) { std::ofstream(path()) << token << "\n"; }
  std::string path() const { return dir_ + "/token"; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

using testing::MotoServer;

TEST(WebIdentityMotoTest, AssumesRoleUsesKeysAndRefreshesAfterExpiry) {
  if (auto missing = emulators::testing::missingPythonClients(true, false)) {
    FAIL() << *missing;
  }
  MotoServer moto;
  ASSERT_EQ(moto.error(), "");
  TokenFile token;
  token.write("eyJhbGciOiJSUzI1NiJ9.any-token-moto-accepts.sig");
  // moto stamps Expiration from the wall clock: the fake one starts there and moves by hand.
  core::FakeClock clock(core::systemClock().now());
  auto transport = makeCurlTransport();
  auto provider = WebIdentityCredentials::fromEnvironment(
      mapEnvironment({{"AWS_ROLE_ARN", kRoleArn},
                      {"AWS_WEB_IDENTITY_TOKEN_FILE", token.path()},
                      {"AWS_ROLE_SESSION_NAME", "wi-test"},
                      {"AWS_ENDPOINT_URL_STS", moto.url()}}),
      *transport, clock, "us-east-1");
  ASSERT_TRUE(provider) << provider.error().message;

  auto first = (*provider)->get();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->accessKeyId.rfind("ASIA", 0), 0u) << first->accessKeyId;
  EXPECT_FALSE(first->secretAccessKey.empty());
  EXPECT_FALSE(first->sessionToken.empty());

  // The keys work: GetCallerIdentity signed with them names the assumed role and session.
  sigv4::Request signedRequest;
  signedRequest.method = "POST";
  signedRequest.body = "Action=GetCallerIdentity&Version=2011-06-15";
  signedRequest.headers.emplace("Host", "127.0.0.1");
  signedRequest.headers.emplace("Content-Type", "application/x-www-form-urlencoded");
  ASSERT_TRUE(sigv4::sign(signedRequest, *first, "us-east-1", "sts", clock.now()));
  HttpRequest call;
  call.url = moto.url() + "/";
  call.body = signedRequest.body;
  for (const auto& [name, value] : signedRequest.headers) {
    if (name != "Host") {
      call.headers.emplace(name, value);
    }
  }
  auto identity = transport->send(call, 10s);
  ASSERT_TRUE(identity) << identity.error().message;
  EXPECT_EQ(identity->status, 200) << identity->body;
  EXPECT_NE(identity->body.find("assumed-role/nodewright-controller/wi-test"), std::string::npos)
      << identity->body;

  // Cached while well before expiry (moto's default is one hour).
  clock.advance(50min);
  EXPECT_EQ((*provider)->get()->accessKeyId, first->accessKeyId);
  // Five minutes before expiry it assumes the role again and gets new keys.
  clock.advance(6min);
  auto second = (*provider)->get();
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_NE(second->accessKeyId, first->accessKeyId);
}

// A loopback STS that records what it was sent and answers as AWS does.
class FakeSts {
 public:
  explicit FakeSts(const core::Clock& clock) : clock_(clock) {
    auto server = http::startServer({}, [this](const http::Request& req, http::Exchange& ex) {
      auto params = Params::parse(req.body);
      std::lock_guard lock(mu_);
      requests.push_back(req);
      tokens.push_back(std::string(params ? params->find("WebIdentityToken").value_or("") : ""));
      http::Response response;
      response.contentType = "text/xml";
      if (!failWith.empty()) {
        response.status = 400;
        response.body = "<ErrorResponse><Error><Type>Sender</Type><Code>" + failWith +
                        "</Code><Message>token " + tokens.back() +
                        " is not valid</Message></Error></ErrorResponse>";
      } else {
        const int n = static_cast<int>(tokens.size());
        response.body =
            "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>"
            "<AccessKeyId>ASIAFAKE" +
            std::to_string(n) +
            "</AccessKeyId>"
            "<SecretAccessKey>secret" +
            std::to_string(n) +
            "</SecretAccessKey>"
            "<SessionToken>session" +
            std::to_string(n) +
            "</SessionToken>"
            "<Expiration>" +
            core::Time(clock_.now() + 1h).toString() +
            "</Expiration>"
            "</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>";
      }
      ex.respond(std::move(response));
    });
    if (server) {
      server_ = std::move(*server);
    }
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_->port()); }

  std::mutex mu_;
  std::vector<http::Request> requests;
  std::vector<std::string> tokens;
  std::string failWith;

 private:
  const core::Clock& clock_;
  std::unique_ptr<http::Server> server_;
};

TEST(WebIdentityCredentialsTest, SendsUnsignedQueryAndRereadsTokenOnRefresh) {
  core::FakeClock clock;
  FakeSts sts(clock);
  auto transport = makeCurlTransport();
  TokenFile token;
  token.write("token-one");
  WebIdentityCredentials provider({kRoleArn, token.path(), "", sts.url()}, *transport, clock);

  auto first = provider.get();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->accessKeyId, "ASIAFAKE1");
  EXPECT_EQ(first->sessionToken, "session1");

  token.write("token-two");  // kubelet rotated it
  clock.advance(56min);
  auto second = provider.get();
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(second->accessKeyId, "ASIAFAKE2");

  std::lock_guard lock(sts.mu_);
  ASSERT_EQ(sts.tokens, (std::vector<std::string>{"token-one", "token-two"}));
  const http::Request& req = sts.requests.front();
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.header("authorization"), "");  // AssumeRoleWithWebIdentity is unsigned
  auto params = Params::parse(req.body);
  ASSERT_TRUE(params);
  EXPECT_EQ(params->find("Action"), "AssumeRoleWithWebIdentity");
  EXPECT_EQ(params->find("Version"), "2011-06-15");
  EXPECT_EQ(params->find("RoleArn"), kRoleArn);
  EXPECT_EQ(params->find("RoleSessionName"), "nodewright-1700000000");
}

TEST(WebIdentityCredentialsTest, StsErrorPassesThroughWithoutTheToken) {
  core::FakeClock clock;
  FakeSts sts(clock);
  sts.failWith = "InvalidIdentityToken";
  auto transport = makeCurlTransport();
  TokenFile token;
  token.write("very-secret-oidc-token");
  WebIdentityCredentials provider({kRoleArn, token.path(), "s", sts.url()}, *transport, clock);
  auto got = provider.get();
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "InvalidIdentityToken");
  EXPECT_EQ(got.error().httpStatus, 400);
  EXPECT_NE(got.error().message.find(kRoleArn), std::string::npos) << got.error().message;
  EXPECT_EQ(got.error().message.find("very-secret-oidc-token"), std::string::npos)
      << got.error().message;
}

TEST(WebIdentityCredentialsTest, ProfileWithRoleAndTokenFileUsesWebIdentity) {
  core::FakeClock clock;
  FakeSts sts(clock);
  auto transport = makeCurlTransport();
  TokenFile token;
  token.write("profile-token");
  std::ofstream(token.dir() + "/config")
      << "[profile irsa]\nrole_arn = " << kRoleArn << "\nweb_identity_token_file = " << token.path()
      << "\nrole_session_name = from-profile\n";
  SharedFileCredentials provider(
      mapEnvironment({{"AWS_CONFIG_FILE", token.dir() + "/config"},
                      {"AWS_SHARED_CREDENTIALS_FILE", token.dir() + "/credentials"},
                      {"AWS_PROFILE", "irsa"},
                      {"AWS_ENDPOINT_URL", sts.url()}}),
      *transport, clock, "us-east-1");
  auto got = provider.get();
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->accessKeyId, "ASIAFAKE1");
  std::lock_guard lock(sts.mu_);
  ASSERT_EQ(sts.tokens, std::vector<std::string>{"profile-token"});
  EXPECT_EQ(Params::parse(sts.requests[0].body)->find("RoleSessionName"), "from-profile");
}

TEST(WebIdentityCredentialsTest, EndpointIsRegionalOrGlobalOrOverridden) {
  auto env = mapEnvironment({});
  EXPECT_EQ(stsEndpoint(env, "eu-west-1"), "https://sts.eu-west-1.amazonaws.com");
  EXPECT_EQ(stsEndpoint(env, ""), "https://sts.amazonaws.com");
  EXPECT_EQ(stsEndpoint(mapEnvironment({{"AWS_ENDPOINT_URL_STS", "http://127.0.0.1:5000/"}}),
                        "eu-west-1"),
            "http://127.0.0.1:5000");
}

TEST(WebIdentityCredentialsTest, ParsesStsDocuments) {
  auto ok = parseStsCredentials(
      "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
      "<AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>ASIA1</AccessKeyId>"
      "<SecretAccessKey>s</SecretAccessKey><SessionToken>t</SessionToken>"
      "<Expiration>2026-11-21T20:03:41.036372Z</Expiration></Credentials>"
      "</AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>",
      200);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->credentials.accessKeyId, "ASIA1");
  ASSERT_TRUE(ok->expiration);
  EXPECT_EQ(core::Time(*ok->expiration).toString(), "2026-11-21T20:03:41.036372Z");

  EXPECT_EQ(parseStsCredentials("not xml", 502).error().code, "InvalidStsResponse");
  auto noExpiry = parseStsCredentials(
      "<R><X><Credentials><AccessKeyId>a</AccessKeyId><SecretAccessKey>b</SecretAccessKey>"
      "</Credentials></X></R>",
      200);
  ASSERT_FALSE(noExpiry);
  EXPECT_EQ(noExpiry.error().code, "InvalidStsResponse");
}

}  // namespace
}  // namespace nodewright::aws
