// JsonClient against a scripted transport: what goes on the wire, how JSON 1.1 errors come
// back, retries on the shared SignedCaller, and what the logs hold.
#include "aws/json_client.h"

#include <gtest/gtest.h>

#include <deque>
#include <mutex>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "aws/error_class.h"

namespace nodewright::aws {
namespace {

using namespace std::chrono_literals;

class ScriptedTransport final : public Transport {
 public:
  void push(int status, std::string body, std::map<std::string, std::string> headers = {}) {
    headers.emplace("x-amzn-requestid", "rid-" + std::to_string(script_.size()));
    script_.push_back(HttpResponse{status, std::move(headers), std::move(body)});
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

std::string header(const HttpRequest& r, const std::string& name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

class JsonClientTest : public ::testing::Test {
 protected:
  JsonClient client(CredentialsFn credentials = nullptr) {
    JsonClientOptions o;
    o.endpoint = "https://ssm.us-east-1.amazonaws.com";
    o.region = "us-east-1";
    o.service = "ssm";
    o.targetPrefix = "AmazonSSM";
    o.credentials = credentials ? credentials : [] {
      return ApiResult<sigv4::Credentials>(
          sigv4::Credentials{"AKIDEXAMPLE", "SECRETKEYEXAMPLE", "SESSIONTOKENEXAMPLE"});
    };
    o.retry.seed = 11;
    o.sleep = [this](std::chrono::nanoseconds d) {
      sleeps_.push_back(d);
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(d));
    };
    return JsonClient(clock_, transport_, std::move(o));
  }

  core::FakeClock clock_;
  ScriptedTransport transport_;
  std::vector<std::chrono::nanoseconds> sleeps_;
};

TEST_F(JsonClientTest, PostsTheOperationAsATargetWithASignedJsonBody) {
  transport_.push(200, R"({"Parameter": {"Value": "v"}})");
  auto c = client();
  auto got = c.call("GetParameter", {{"Name", "/a/b"}});
  ASSERT_TRUE(got) << got.error().code << ": " << got.error().message;
  EXPECT_EQ((*got)["Parameter"]["Value"], "v");
  ASSERT_EQ(transport_.sent.size(), 1u);
  const HttpRequest& r = transport_.sent[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.url, "https://ssm.us-east-1.amazonaws.com");
  EXPECT_EQ(header(r, "X-Amz-Target"), "AmazonSSM.GetParameter");
  EXPECT_EQ(header(r, "Content-Type"), "application/x-amz-json-1.1");
  EXPECT_EQ(nlohmann::json::parse(r.body), (nlohmann::json{{"Name", "/a/b"}}));
  const std::string auth = header(r, "Authorization");
  EXPECT_NE(auth.find("/us-east-1/ssm/aws4_request"), std::string::npos) << auth;
  EXPECT_NE(auth.find("x-amz-target"), std::string::npos) << auth;  // the target is signed
  EXPECT_EQ(header(r, "X-Amz-Security-Token"), "SESSIONTOKENEXAMPLE");
}

struct ErrorCase {
  std::string name;
  int status;
  std::string body;
  std::map<std::string, std::string> headers;
  std::string code;
  std::string message;
};

class JsonErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(JsonErrorTest, ReadsTheCodeWithoutNamespaceAndTheMessage) {
  const ErrorCase& c = GetParam();
  ApiError e = parseJsonError(HttpResponse{c.status, c.headers, c.body}, "rid");
  EXPECT_EQ(e.code, c.code);
  EXPECT_EQ(e.message, c.message);
  EXPECT_EQ(e.httpStatus, c.status);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, JsonErrorTest,
    ::testing::Values(
        ErrorCase{"Plain", 400, R"({"__type": "ParameterNotFound"})", {}, "ParameterNotFound", ""},
        ErrorCase{"Namespaced",
                  400,
                  R"({"__type": "com.amazonaws.ssm#InvalidKeyId", "message": "bad key"})",
                  {},
                  "InvalidKeyId",
                  "bad key"},
        ErrorCase{"CapitalMessage",
                  400,
                  R"({"__type": "InvalidParameterException", "Message": "Filters bad"})",
                  {},
                  "InvalidParameterException",
                  "Filters bad"},
        ErrorCase{"HeaderOnly",
                  403,
                  "",
                  {{"x-amzn-errortype", "AccessDeniedException:http://x/"}},
                  "AccessDeniedException",
                  ""},
        ErrorCase{"NoCode",
                  502,
                  "<html>bad gateway</html>",
                  {},
                  "UnknownError",
                  "HTTP 502 without an error code (request id rid)"}),
    [](const auto& info) { return info.param.name; });

TEST_F(JsonClientTest, ThrottlesAreRetriedWithTheThrottleBackoff) {
  transport_.push(400, R"({"__type": "ThrottlingException", "message": "Rate exceeded"})");
  transport_.push(200, R"({"ok": true})");
  auto c = client();
  auto got = c.call("GetParameter", {{"Name", "x"}});
  ASSERT_TRUE(got) << got.error().code;
  EXPECT_EQ(transport_.sent.size(), 2u);
  ASSERT_EQ(sleeps_.size(), 1u);
  // Throttles draw from the upper half of the throttle base delay (retry.h).
  EXPECT_GE(sleeps_[0], 500ms);
}

TEST_F(JsonClientTest, ServerErrorsStopAtMaxAttemptsAndClientErrorsAtOnce) {
  for (int i = 0; i < 3; ++i) {
    transport_.push(500, R"({"__type": "InternalServerError"})");
  }
  auto c = client();
  auto got = c.call("GetParameter", {{"Name", "x"}});
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "InternalServerError");
  EXPECT_EQ(classify(got.error()), ErrorClass::Server);
  EXPECT_EQ(transport_.sent.size(), 3u);

  transport_.push(400, R"({"__type": "ParameterNotFound"})");
  auto missing = c.call("GetParameter", {{"Name", "x"}});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "ParameterNotFound");
  EXPECT_EQ(transport_.sent.size(), 4u);
}

TEST_F(JsonClientTest, ABodyThatIsNotAnObjectIsMalformed) {
  transport_.push(200, "[1, 2]");
  auto c = client();
  auto got = c.call("GetParameter", {});
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "MalformedResponse");
  EXPECT_EQ(nlohmann::json::parse(transport_.sent[0].body), nlohmann::json::object());
}

TEST_F(JsonClientTest, JsonOneZeroDiffersOnlyInTheContentTypeAndAnEmptyBodyIsAnEmptyObject) {
  transport_.push(200, "");
  JsonClientOptions o;
  o.endpoint = "https://sqs.us-east-1.amazonaws.com";
  o.region = "us-east-1";
  o.service = "sqs";
  o.targetPrefix = "AmazonSQS";
  o.jsonVersion = "1.0";
  o.credentials = [] {
    return ApiResult<sigv4::Credentials>(sigv4::Credentials{"AKIDEXAMPLE", "SECRET", ""});
  };
  JsonClient c(clock_, transport_, std::move(o));
  auto got = c.call("DeleteMessage", {{"QueueUrl", "u"}, {"ReceiptHandle", "h"}});
  ASSERT_TRUE(got) << got.error().code << ": " << got.error().message;
  EXPECT_EQ(*got, nlohmann::json::object());
  ASSERT_EQ(transport_.sent.size(), 1u);
  EXPECT_EQ(header(transport_.sent[0], "Content-Type"), "application/x-amz-json-1.0");
  EXPECT_EQ(header(transport_.sent[0], "X-Amz-Target"), "AmazonSQS.DeleteMessage");
}

TEST_F(JsonClientTest, CredentialErrorsComeBackUnsent) {
  auto c =
      client([] { return ApiResult<sigv4::Credentials>(apiFail("NoCredentials", "none", 0)); });
  auto got = c.call("GetParameter", {});
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code, "NoCredentials");
  EXPECT_TRUE(transport_.sent.empty());
}

TEST_F(JsonClientTest, LogsNeverHoldCredentialsSignaturesOrBodies) {
  std::ostringstream captured;
  auto previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(captured));
  logger->set_level(spdlog::level::trace);
  spdlog::set_default_logger(logger);
  transport_.push(500, R"({"__type": "InternalServerError", "message": "echo secret-value"})");
  transport_.push(200, R"({"Parameter": {"Value": "returned-secret"}})");
  auto c = client();
  auto got = c.call("PutParameter", {{"Name", "/x"}, {"Value", "secret-value"}});
  spdlog::set_default_logger(previous);
  ASSERT_TRUE(got);
  const std::string log = captured.str();
  EXPECT_NE(log.find("action=PutParameter"), std::string::npos) << log;
  EXPECT_NE(log.find("attempt=2"), std::string::npos) << log;
  for (const char* secret : {"SECRETKEYEXAMPLE", "SESSIONTOKENEXAMPLE", "secret-value",
                             "returned-secret", "Signature="}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << secret << " in " << log;
  }
}

}  // namespace
}  // namespace nodewright::aws
