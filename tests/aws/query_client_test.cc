// QueryClient against a scripted transport: what goes on the wire, how errors come back, what
// the logs hold.
#include "aws/query_client.h"

#include <gtest/gtest.h>

#include <deque>
#include <mutex>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "aws/error_class.h"
#include "aws/query.h"
#include "aws/xml.h"

namespace nodewright::aws {
namespace {

using namespace std::chrono_literals;

// Answers from a script, recording each request.
class ScriptedTransport final : public Transport {
 public:
  void push(ApiResult<HttpResponse> r) { script_.push_back(std::move(r)); }
  void pushXml(int status, std::string body) {
    push(HttpResponse{
        status, {{"x-amzn-requestid", "rid-" + std::to_string(script_.size())}}, std::move(body)});
  }

  ApiResult<HttpResponse> send(const HttpRequest& request, std::chrono::milliseconds) override {
    std::lock_guard lock(mu_);
    sent.push_back(request);
    if (script_.empty()) {
      return apiFail(kTransportError, "script exhausted", 0);
    }
    auto r = std::move(script_.front());
    script_.pop_front();
    return r;
  }

  std::vector<HttpRequest> sent;

 private:
  std::mutex mu_;
  std::deque<ApiResult<HttpResponse>> script_;
};

std::string ok(std::string_view action, std::string_view inner = "") {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><" + std::string(action) +
         "Response xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\"><requestId>r</requestId>" +
         std::string(inner) + "</" + std::string(action) + "Response>";
}

class QueryClientTest : public ::testing::Test {
 protected:
  QueryClient client(int maxAttempts = 3) {
    QueryClientOptions o;
    o.endpoint = "https://ec2.us-east-1.amazonaws.com";
    o.region = "us-east-1";
    o.credentials = [] {
      return ApiResult<sigv4::Credentials>(
          sigv4::Credentials{"AKIDEXAMPLE", "SECRETKEYEXAMPLE", "SESSIONTOKENEXAMPLE"});
    };
    o.retry.maxAttempts = maxAttempts;
    o.retry.seed = 7;
    o.sleep = [this](std::chrono::nanoseconds d) {
      sleeps_.push_back(d);
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(d));
    };
    return QueryClient(clock_, transport_, std::move(o));
  }

  core::FakeClock clock_;
  ScriptedTransport transport_;
  std::vector<std::chrono::nanoseconds> sleeps_;
};

TEST_F(QueryClientTest, PostsASignedFormWithActionAndVersion) {
  transport_.pushXml(200, ok("DescribeInstances"));
  auto c = client();
  auto body = c.call("DescribeInstances", {{"InstanceId.1", "i-1"}, {"Filter.1.Name", "a b"}});
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(*body, ok("DescribeInstances"));
  ASSERT_EQ(transport_.sent.size(), 1u);
  const HttpRequest& r = transport_.sent[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.url, "https://ec2.us-east-1.amazonaws.com");
  EXPECT_EQ(r.body,
            "Action=DescribeInstances&Version=2016-11-15&InstanceId.1=i-1&Filter.1.Name=a%20b");
  EXPECT_EQ(r.headers.find("host")->second, "ec2.us-east-1.amazonaws.com");
  EXPECT_EQ(r.headers.find("x-amz-security-token")->second, "SESSIONTOKENEXAMPLE");
  EXPECT_EQ(r.headers.find("x-amz-date")->second, sigv4::formatAmzDate(clock_.now()));
  const std::string auth = r.headers.find("authorization")->second;
  EXPECT_TRUE(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")) << auth;
  EXPECT_NE(auth.find("/us-east-1/ec2/aws4_request"), std::string::npos) << auth;
}

TEST_F(QueryClientTest, SignatureVerifiesAsTheServerSeesIt) {
  transport_.pushXml(200, ok("DescribeRegions"));
  auto c = client();
  ASSERT_TRUE(c.call("DescribeRegions", {}));
  const HttpRequest& r = transport_.sent.at(0);
  sigv4::Request seen{"POST", "/", "", r.headers, r.body, ""};
  auto identity = sigv4::verify(
      seen,
      [](std::string_view key) -> std::optional<std::string> {
        return key == "AKIDEXAMPLE" ? std::optional<std::string>("SECRETKEYEXAMPLE") : std::nullopt;
      },
      clock_.now(), {"us-east-1", "ec2"});
  ASSERT_TRUE(identity) << identity.error().code << ": " << identity.error().message;
  EXPECT_EQ(identity->sessionToken, "SESSIONTOKENEXAMPLE");
}

TEST_F(QueryClientTest, ReturnsTheParsedErrorWithoutRetryingWhatCannotSucceed) {
  transport_.pushXml(400, xml::ec2ErrorDocument({"InvalidParameterValue", "bad value", 400}, "r"));
  auto c = client();
  auto body = c.call("RunInstances", {});
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().code, "InvalidParameterValue");
  EXPECT_EQ(body.error().message, "bad value");
  EXPECT_EQ(body.error().httpStatus, 400);
  EXPECT_EQ(transport_.sent.size(), 1u);
  EXPECT_TRUE(sleeps_.empty());
}

TEST_F(QueryClientTest, RetriesServerErrorsThenSucceeds) {
  transport_.pushXml(503, "<html>busy</html>");
  transport_.push(apiFail(kTransportError, "connection reset", 0));
  transport_.pushXml(200, ok("DescribeInstances"));
  auto c = client();
  auto body = c.call("DescribeInstances", {});
  ASSERT_TRUE(body) << body.error().message;
  EXPECT_EQ(transport_.sent.size(), 3u);
  ASSERT_EQ(sleeps_.size(), 2u);
  EXPECT_LE(sleeps_[0], 100ms);
  EXPECT_LE(sleeps_[1], 200ms);
  // The last retry's tokens came back.
  EXPECT_EQ(c.retryPolicy().quotaAvailable(), 500 - 5);
}

TEST_F(QueryClientTest, AnErrorWithoutADocumentKeepsItsStatus) {
  for (int i = 0; i < 3; ++i) {
    transport_.pushXml(502, "<html>bad gateway</html>");
  }
  auto c = client();
  auto body = c.call("DescribeInstances", {});
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().code, "UnknownError");
  EXPECT_EQ(body.error().httpStatus, 502);
  EXPECT_EQ(classify(body.error()), ErrorClass::Server);
  EXPECT_EQ(transport_.sent.size(), 3u);
}

TEST_F(QueryClientTest, StopsRetryingAtTheCallDeadline) {
  for (int i = 0; i < 5; ++i) {
    transport_.pushXml(503, xml::ec2ErrorDocument({"RequestLimitExceeded", "slow", 503}, "r"));
  }
  QueryClientOptions o;
  o.endpoint = "http://127.0.0.1:1";
  o.region = "us-east-1";
  o.credentials = [] { return ApiResult<sigv4::Credentials>(sigv4::Credentials{"a", "b", ""}); };
  o.retry.maxAttempts = 5;
  o.retry.seed = 1;
  o.callTimeout = 1200ms;  // a throttle waits at least 500 ms, then at least 1 s
  o.sleep = [this](std::chrono::nanoseconds d) {
    clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(d));
  };
  QueryClient c(clock_, transport_, std::move(o));
  auto body = c.call("DescribeInstances", {});
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().code, "RequestLimitExceeded");
  EXPECT_EQ(transport_.sent.size(), 2u);
}

TEST_F(QueryClientTest, PaginatesUntilNoNextToken) {
  transport_.pushXml(200, ok("DescribeInstanceTypes", "<nextToken>t1</nextToken>"));
  transport_.pushXml(200, ok("DescribeInstanceTypes", "<nextToken>t2</nextToken>"));
  transport_.pushXml(200, ok("DescribeInstanceTypes"));
  auto c = client();
  int seen = 0;
  auto pages = c.paginate("DescribeInstanceTypes", {{"MaxResults", "5"}},
                          [&](const pugi::xml_document&) { return ++seen > 0; });
  ASSERT_TRUE(pages) << pages.error().message;
  EXPECT_EQ(*pages, 3);
  EXPECT_EQ(seen, 3);
  ASSERT_EQ(transport_.sent.size(), 3u);
  EXPECT_EQ(transport_.sent[0].body,
            "Action=DescribeInstanceTypes&Version=2016-11-15&MaxResults=5");
  EXPECT_TRUE(transport_.sent[1].body.ends_with("&MaxResults=5&NextToken=t1"));
  EXPECT_TRUE(transport_.sent[2].body.ends_with("&NextToken=t2"));
}

TEST_F(QueryClientTest, PaginationStopsWhenTheCallbackSaysSo) {
  transport_.pushXml(200, ok("DescribeImages", "<nextToken>t1</nextToken>"));
  auto c = client();
  auto pages = c.paginate("DescribeImages", {}, [](const pugi::xml_document&) { return false; });
  ASSERT_TRUE(pages);
  EXPECT_EQ(*pages, 1);
  EXPECT_EQ(transport_.sent.size(), 1u);
}

TEST_F(QueryClientTest, PaginationRefusesARepeatedToken) {
  transport_.pushXml(200, ok("DescribeImages", "<nextToken>same</nextToken>"));
  transport_.pushXml(200, ok("DescribeImages", "<nextToken>same</nextToken>"));
  auto c = client();
  auto pages = c.paginate("DescribeImages", {}, [](const pugi::xml_document&) { return true; });
  ASSERT_FALSE(pages);
  EXPECT_EQ(pages.error().code, "PaginationLoop");
}

TEST_F(QueryClientTest, CredentialErrorsComeBackUnsent) {
  QueryClientOptions o;
  o.endpoint = "http://127.0.0.1:1";
  o.region = "us-east-1";
  o.credentials = [] {
    return ApiResult<sigv4::Credentials>(apiFail("NoCredentialProviders", "none found", 0));
  };
  QueryClient c(clock_, transport_, std::move(o));
  auto body = c.call("DescribeInstances", {});
  ASSERT_FALSE(body);
  EXPECT_EQ(body.error().code, "NoCredentialProviders");
  EXPECT_TRUE(transport_.sent.empty());
}

TEST_F(QueryClientTest, LogsNeverHoldCredentialsSignaturesOrBodies) {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>("capture", sink);
  logger->set_level(spdlog::level::trace);
  spdlog::set_default_logger(logger);

  transport_.pushXml(500, xml::ec2ErrorDocument({"InternalError", "oops", 500}, "r"));
  transport_.pushXml(200, ok("RunInstances"));
  auto c = client();
  auto body = c.call("RunInstances", {{"UserData", "USERDATASECRET"}});
  spdlog::set_default_logger(previous);
  ASSERT_TRUE(body);

  const std::string log = captured.str();
  EXPECT_NE(log.find("action=RunInstances"), std::string::npos) << log;
  EXPECT_NE(log.find("attempt=2"), std::string::npos) << log;
  EXPECT_NE(log.find("request-id=rid-"), std::string::npos) << log;
  for (std::string_view secret : {"AKIDEXAMPLE", "SECRETKEYEXAMPLE", "SESSIONTOKENEXAMPLE",
                                  "USERDATASECRET", "Signature", "AWS4-HMAC"}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << secret << " in " << log;
  }
}

}  // namespace
}  // namespace nodewright::aws
