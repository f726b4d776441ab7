// verify()'s error codes, each from one defect in an otherwise valid request.
#include <gtest/gtest.h>

#include <functional>

#include "aws/sigv4.h"

namespace nodewright::aws::sigv4 {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const Credentials kCredentials{"AKIAEMULATOR0000001", "emulator/secret+key", ""};
constexpr char kBody[] = "Action=DescribeRegions&Version=2016-11-15";

class SigV4VerifyTest : public ::testing::Test {
 protected:
  SigV4VerifyTest() : signedAt_(*parseAmzDate("20240501T120000Z")) {}

  Request request(std::string body = kBody) const {
    Request request;
    request.method = "POST";
    request.path = "/";
    request.headers.emplace("Host", "ec2.us-west-2.amazonaws.com");
    request.headers.emplace("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
    request.body = std::move(body);
    return request;
  }

  Request signedRequest(const Credentials& credentials = kCredentials,
                        std::string_view region = "us-west-2",
                        std::string_view service = "ec2") const {
    Request signed_ = request();
    EXPECT_TRUE(sign(signed_, credentials, region, service, signedAt_));
    return signed_;
  }

  ApiResult<Identity> check(const Request& request) const { return checkAt(request, signedAt_); }
  ApiResult<Identity> checkAt(const Request& request, core::TimePoint now) const {
    return verify(request, lookup_, now, {"us-west-2", "ec2"});
  }

  static void setAuthorization(Request& request, const std::string& value) {
    request.headers.erase("Authorization");
    request.headers.emplace("Authorization", value);
  }
  static std::string authorization(const Request& request) {
    return request.headers.find("authorization")->second;
  }

  core::TimePoint signedAt_;
  SecretLookup lookup_ = [](std::string_view id) -> std::optional<std::string> {
    if (id == kCredentials.accessKeyId) {
      return kCredentials.secretAccessKey;
    }
    return std::nullopt;
  };
};

void expectError(const ApiResult<Identity>& result, std::string_view code, int status) {
  ASSERT_FALSE(result) << "expected " << code;
  EXPECT_EQ(result.error().code, code) << result.error().message;
  EXPECT_EQ(result.error().httpStatus, status);
}

TEST_F(SigV4VerifyTest, AcceptsWhatSignProduces) {
  auto identity = check(signedRequest());
  ASSERT_TRUE(identity) << identity.error().message;
  EXPECT_EQ(identity->accessKeyId, kCredentials.accessKeyId);
  EXPECT_EQ(identity->sessionToken, "");
}

TEST_F(SigV4VerifyTest, ReportsTheSessionToken) {
  Credentials temporary = kCredentials;
  temporary.sessionToken = "token/with+symbols==";
  auto identity = check(signedRequest(temporary));
  ASSERT_TRUE(identity) << identity.error().message;
  EXPECT_EQ(identity->sessionToken, "token/with+symbols==");
}

TEST_F(SigV4VerifyTest, SigningAgainReplacesTheOldSignature) {
  Request request = signedRequest();
  ASSERT_TRUE(sign(request, kCredentials, "us-west-2", "ec2", signedAt_ + minutes(1)));
  EXPECT_EQ(request.headers.count("authorization"), 1u);
  EXPECT_EQ(request.headers.count("x-amz-date"), 1u);
  EXPECT_TRUE(checkAt(request, signedAt_ + minutes(1)));
}

TEST_F(SigV4VerifyTest, SignRequiresAHost) {
  Request request;
  request.method = "GET";
  auto status = sign(request, kCredentials, "us-west-2", "ec2", signedAt_);
  ASSERT_FALSE(status);
  EXPECT_TRUE(status.error().is(core::Code::Invalid));
}

TEST_F(SigV4VerifyTest, MissingAuthenticationTokenWithoutAnySignature) {
  expectError(check(request()), "MissingAuthenticationToken", 401);
}

TEST_F(SigV4VerifyTest, AuthFailureForAnUnknownAccessKey) {
  Credentials stranger = kCredentials;
  stranger.accessKeyId = "AKIAUNKNOWN";
  auto result = check(signedRequest(stranger));
  expectError(result, "AuthFailure", 401);
  EXPECT_EQ(result.error().message, "AWS was not able to validate the provided access credentials");
}

TEST_F(SigV4VerifyTest, SignatureDoesNotMatchForTheWrongSecret) {
  Credentials wrong = kCredentials;
  wrong.secretAccessKey = "not-the-secret";
  expectError(check(signedRequest(wrong)), "SignatureDoesNotMatch", 403);
}

TEST_F(SigV4VerifyTest, SignatureDoesNotMatchWhenTheBodyChanges) {
  Request request = signedRequest();
  request.body[7] = 'd';  // describeRegions
  expectError(check(request), "SignatureDoesNotMatch", 403);
}

TEST_F(SigV4VerifyTest, SignatureDoesNotMatchWhenASignedHeaderChanges) {
  Request request = signedRequest();
  request.headers.erase("Content-Type");
  request.headers.emplace("Content-Type", "text/plain");
  expectError(check(request), "SignatureDoesNotMatch", 403);
}

TEST_F(SigV4VerifyTest, UnsignedHeadersMayChange) {
  Request request = signedRequest();
  request.headers.emplace("User-Agent", "added-after-signing");
  EXPECT_TRUE(check(request));
}

TEST_F(SigV4VerifyTest, SignatureDoesNotMatchForAnotherRegion) {
  auto result = check(signedRequest(kCredentials, "eu-west-1"));
  expectError(result, "SignatureDoesNotMatch", 403);
  EXPECT_EQ(result.error().message,
            "Credential should be scoped to a valid region, not 'eu-west-1'.");
}

TEST_F(SigV4VerifyTest, SignatureDoesNotMatchForAnotherService) {
  auto result = check(signedRequest(kCredentials, "us-west-2", "sts"));
  expectError(result, "SignatureDoesNotMatch", 403);
  EXPECT_EQ(result.error().message, "Credential should be scoped to correct service: 'ec2'.");
}

TEST_F(SigV4VerifyTest, SignatureDoesNotMatchWhenTheScopeDateIsNotTheRequestDate) {
  Request request = signedRequest();
  std::string value = authorization(request);
  value.replace(value.find("/20240501/"), 10, "/20240430/");
  setAuthorization(request, value);
  expectError(check(request), "SignatureDoesNotMatch", 403);
}

TEST_F(SigV4VerifyTest, SignatureDoesNotMatchForAnotherTerminator) {
  Request request = signedRequest();
  std::string value = authorization(request);
  value.replace(value.find("aws4_request"), 12, "aws5_request");
  setAuthorization(request, value);
  expectError(check(request), "SignatureDoesNotMatch", 403);
}

TEST_F(SigV4VerifyTest, RequestExpiredBeyondTheSkewEitherWay) {
  Request request = signedRequest();
  EXPECT_TRUE(checkAt(request, signedAt_ + minutes(15)));
  EXPECT_TRUE(checkAt(request, signedAt_ - minutes(15)));
  expectError(checkAt(request, signedAt_ + minutes(15) + seconds(1)), "RequestExpired", 400);
  expectError(checkAt(request, signedAt_ - minutes(15) - seconds(1)), "RequestExpired", 400);
}

TEST_F(SigV4VerifyTest, HonoursAConfiguredSkew) {
  Request request = signedRequest();
  auto result = verify(request, lookup_, signedAt_ + minutes(2), {"us-west-2", "ec2", minutes(1)});
  expectError(result, "RequestExpired", 400);
}

struct MalformedCase {
  std::string name;
  std::function<void(Request&)> edit;
};

class SigV4MalformedTest : public SigV4VerifyTest,
                           public ::testing::WithParamInterface<MalformedCase> {};

TEST_P(SigV4MalformedTest, IsAnIncompleteSignature) {
  Request request = signedRequest();
  GetParam().edit(request);
  expectError(check(request), "IncompleteSignature", 400);
}

// Replaces `from` with `to` in the Authorization header.
std::function<void(Request&)> rewrite(std::string from, std::string to) {
  return [from, to](Request& request) {
    auto it = request.headers.find("authorization");
    std::string value = it->second;
    std::size_t at = value.find(from);
    ASSERT_NE(at, std::string::npos) << value;
    value.replace(at, from.size(), to);
    it->second = value;
  };
}

INSTANTIATE_TEST_SUITE_P(
    Defects, SigV4MalformedTest,
    ::testing::Values(
        MalformedCase{"OtherAlgorithm", rewrite("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA512")},
        MalformedCase{
            "SigV2", [](Request& r) { r.headers.find("authorization")->second = "AWS AKIA:c2ln"; }},
        MalformedCase{"NoCredential", rewrite("Credential=", "Credentials=")},
        MalformedCase{"NoSignedHeaders", rewrite("SignedHeaders=", "Signed=")},
        MalformedCase{"NoSignature", rewrite("Signature=", "Sig=")},
        MalformedCase{"ShortCredential", rewrite("/us-west-2/ec2/", "/us-west-2/")},
        MalformedCase{"HostNotSigned",
                      rewrite("SignedHeaders=content-type;host;", "SignedHeaders=content-type;")},
        MalformedCase{"NoDate", [](Request& r) { r.headers.erase("X-Amz-Date"); }},
        MalformedCase{
            "BadDate",
            [](Request& r) { r.headers.find("x-amz-date")->second = "2024-05-01T12:00:00Z"; }},
        MalformedCase{"Empty", [](Request& r) { r.headers.find("authorization")->second = ""; }}),
    [](const auto& info) { return info.param.name; });

TEST_F(SigV4VerifyTest, ToleratesSpacingInTheAuthorizationHeader) {
  Request request = signedRequest();
  std::string value = authorization(request);
  for (std::size_t at = value.find(", "); at != std::string::npos; at = value.find(", ", at + 3)) {
    value.replace(at, 2, " ,  ");
  }
  setAuthorization(request, value);
  EXPECT_TRUE(check(request));
}

TEST_F(SigV4VerifyTest, ContentSha256MustMatchTheBody) {
  Request request = signedRequest();
  request.headers.emplace("X-Amz-Content-Sha256", sha256Hex("another body"));
  expectError(check(request), "XAmzContentSHA256Mismatch", 400);
}

TEST_F(SigV4VerifyTest, S3SignsTheContentHash) {
  Request request = signedRequest(kCredentials, "us-west-2", "s3");
  ASSERT_EQ(request.headers.count("x-amz-content-sha256"), 1u);
  EXPECT_EQ(request.headers.find("x-amz-content-sha256")->second, sha256Hex(kBody));
  EXPECT_NE(authorization(request).find("x-amz-content-sha256"), std::string::npos);
  EXPECT_TRUE(verify(request, lookup_, signedAt_, {"us-west-2", "s3"}));
}

// Presigned (query string) requests.
class SigV4PresignTest : public SigV4VerifyTest {
 protected:
  Request presigned(seconds expires = seconds(300)) const {
    Request request;
    request.method = "GET";
    request.path = "/";
    request.query = "Action=DescribeRegions&Version=2016-11-15";
    request.headers.emplace("Host", "ec2.us-west-2.amazonaws.com");
    EXPECT_TRUE(presign(request, kCredentials, "us-west-2", "ec2", signedAt_, expires));
    return request;
  }
};

TEST_F(SigV4PresignTest, AcceptsWithinItsExpiry) {
  Request request = presigned();
  EXPECT_NE(request.query.find("X-Amz-Signature="), std::string::npos);
  EXPECT_EQ(request.headers.count("authorization"), 0u);
  auto identity = checkAt(request, signedAt_ + seconds(300));
  ASSERT_TRUE(identity) << identity.error().message;
  EXPECT_EQ(identity->accessKeyId, kCredentials.accessKeyId);
}

TEST_F(SigV4PresignTest, RequestExpiredAfterItsExpiry) {
  expectError(checkAt(presigned(), signedAt_ + seconds(301)), "RequestExpired", 400);
}

TEST_F(SigV4PresignTest, SignatureDoesNotMatchWhenAParameterChanges) {
  Request request = presigned();
  request.query.replace(request.query.find("DescribeRegions"), 15, "DescribeVolumes");
  expectError(check(request), "SignatureDoesNotMatch", 403);
}

TEST_F(SigV4PresignTest, IncompleteSignatureWithoutExpires) {
  Request request = presigned();
  std::size_t at = request.query.find("X-Amz-Expires=300&");
  request.query.erase(at, std::string("X-Amz-Expires=300&").size());
  expectError(check(request), "IncompleteSignature", 400);
}

TEST_F(SigV4PresignTest, RefusesExpiriesBeyondAWeek) {
  Request request;
  request.headers.emplace("Host", "h");
  EXPECT_FALSE(presign(request, kCredentials, "us-west-2", "ec2", signedAt_, seconds(604801)));
}

}  // namespace
}  // namespace nodewright::aws::sigv4
