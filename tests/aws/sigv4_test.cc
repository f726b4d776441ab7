// sign() and verify() against AWS's published SigV4 test suite (aws-sig-v4-test-suite, 2015-08-30
// edition): its raw requests, canonical requests and signatures.
#include "aws/sigv4.h"

#include <gtest/gtest.h>

#include <string>

namespace nodewright::aws::sigv4 {
namespace {

const Credentials kSuiteCredentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
constexpr char kRegion[] = "us-east-1";
constexpr char kService[] = "service";
constexpr char kScope[] = "AKIDEXAMPLE/20150830/us-east-1/service/aws4_request";
constexpr char kEmptyHash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr char kSessionToken[] =
    "AQoDYXdzEPT//////////"
    "wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeo"
    "IYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/"
    "kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5V"
    "SXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+"
    "scqKmlzm8FDrypNC9Yj"
    "c8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==";

core::TimePoint suiteTime() {
  return *parseAmzDate("20150830T123600Z");
}

// A request in the suite's .req format: "METHOD target HTTP/1.1", "Name:value" lines, a blank
// line and the body. The target may hold raw spaces and UTF-8 (get-space, get-utf8).
Request parseRaw(std::string_view raw) {
  Request request;
  std::size_t end = raw.find('\n');
  std::string_view line = raw.substr(0, end);
  request.method = std::string(line.substr(0, line.find(' ')));
  std::string_view target = line.substr(request.method.size() + 1);
  target = target.substr(0, target.rfind(" HTTP/1.1"));
  std::size_t question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos) {
    request.query = std::string(target.substr(question + 1));
  }
  while (end != std::string_view::npos) {
    raw = raw.substr(end + 1);
    end = raw.find('\n');
    line = raw.substr(0, end);
    if (line.empty()) {
      if (end != std::string_view::npos) {
        request.body = std::string(raw.substr(end + 1));
      }
      break;
    }
    std::size_t colon = line.find(':');
    request.headers.emplace(std::string(line.substr(0, colon)),
                            std::string(line.substr(colon + 1)));
  }
  return request;
}

struct SuiteCase {
  std::string name;
  std::string raw;  // the .req file, X-Amz-Date included
  std::string signedHeaders;
  std::string signature;
  std::string sessionToken = "";
};

class SigV4SuiteTest : public ::testing::TestWithParam<SuiteCase> {
 protected:
  Credentials credentials() const {
    Credentials credentials = kSuiteCredentials;
    credentials.sessionToken = GetParam().sessionToken;
    return credentials;
  }
  std::string authorization() const {
    return "AWS4-HMAC-SHA256 Credential=" + std::string(kScope) +
           ", SignedHeaders=" + GetParam().signedHeaders + ", Signature=" + GetParam().signature;
  }
};

TEST_P(SigV4SuiteTest, SignProducesTheSuiteAuthorization) {
  Request request = parseRaw(GetParam().raw);
  request.headers.erase("X-Amz-Date");  // sign() sets it from the time
  ASSERT_TRUE(sign(request, credentials(), kRegion, kService, suiteTime()));
  auto it = request.headers.find("authorization");
  ASSERT_NE(it, request.headers.end());
  EXPECT_EQ(it->second, authorization());
  EXPECT_EQ(request.headers.find("x-amz-date")->second, "20150830T123600Z");
  EXPECT_EQ(request.headers.count("x-amz-content-sha256"), 0u) << "only S3 sends it";
  EXPECT_EQ(request.headers.count("x-amz-security-token"),
            GetParam().sessionToken.empty() ? 0u : 1u);
}

TEST_P(SigV4SuiteTest, VerifyAcceptsTheSuiteRequest) {
  Request request = parseRaw(GetParam().raw);
  if (!GetParam().sessionToken.empty()) {
    request.headers.emplace("X-Amz-Security-Token", GetParam().sessionToken);
  }
  request.headers.emplace("Authorization", authorization());
  auto lookup = [](std::string_view id) -> std::optional<std::string> {
    if (id == "AKIDEXAMPLE") {
      return kSuiteCredentials.secretAccessKey;
    }
    return std::nullopt;
  };
  auto identity = verify(request, lookup, suiteTime(), {kRegion, kService});
  ASSERT_TRUE(identity) << identity.error().code << ": " << identity.error().message;
  EXPECT_EQ(identity->accessKeyId, "AKIDEXAMPLE");
  EXPECT_EQ(identity->sessionToken, GetParam().sessionToken);
  EXPECT_EQ(identity->signedAt, suiteTime());
}

TEST_P(SigV4SuiteTest, VerifyRejectsTheSuiteRequestWithAnotherSignature) {
  Request request = parseRaw(GetParam().raw);
  std::string wrong = GetParam().signature;
  wrong[10] = wrong[10] == '0' ? '1' : '0';
  request.headers.emplace("Authorization", "AWS4-HMAC-SHA256 Credential=" + std::string(kScope) +
                                               ", SignedHeaders=" + GetParam().signedHeaders +
                                               ", Signature=" + wrong);
  auto lookup = [](std::string_view) { return std::optional(kSuiteCredentials.secretAccessKey); };
  auto identity = verify(request, lookup, suiteTime(), {kRegion, kService});
  ASSERT_FALSE(identity);
  EXPECT_EQ(identity.error().code, "SignatureDoesNotMatch");
}

constexpr char kHost[] = "Host:example.amazonaws.com\n";
constexpr char kDate[] = "X-Amz-Date:20150830T123600Z";
const std::string kPlain = "host;x-amz-date";
const std::string kHeader1 = "host;my-header1;x-amz-date";

INSTANTIATE_TEST_SUITE_P(
    Suite, SigV4SuiteTest,
    ::testing::Values(
        SuiteCase{"get_vanilla", std::string("GET / HTTP/1.1\n") + kHost + kDate, kPlain,
                  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
        SuiteCase{"get_header_key_duplicate",
                  std::string("GET / HTTP/1.1\n") + kHost +
                      "My-Header1:value2\nMy-Header1:value2\nMy-Header1:value1\n" + kDate,
                  kHeader1, "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"},
        SuiteCase{"get_header_value_order",
                  std::string("GET / HTTP/1.1\n") + kHost +
                      "My-Header1:value4\nMy-Header1:value1\nMy-Header1:value3\n"
                      "My-Header1:value2\n" +
                      kDate,
                  kHeader1, "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"},
        SuiteCase{"get_header_value_trim",
                  std::string("GET / HTTP/1.1\n") + kHost +
                      "My-Header1: value1\nMy-Header2: \"a   b   c\"\n" + kDate,
                  "host;my-header1;my-header2;x-amz-date",
                  "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"},
        SuiteCase{
            "get_unreserved",
            std::string("GET /-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz "
                        "HTTP/1.1\n") +
                kHost + kDate,
            kPlain, "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"},
        SuiteCase{"get_utf8", std::string("GET /\xe1\x88\xb4 HTTP/1.1\n") + kHost + kDate, kPlain,
                  "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"},
        SuiteCase{"get_vanilla_empty_query_key",
                  std::string("GET /?Param1=value1 HTTP/1.1\n") + kHost + kDate, kPlain,
                  "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"},
        SuiteCase{"get_vanilla_query_order_key",
                  std::string("GET /?Param1=value2&Param1=Value1 HTTP/1.1\n") + kHost + kDate,
                  kPlain, "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1"},
        SuiteCase{"get_vanilla_query_order_key_case",
                  std::string("GET /?Param2=value2&Param1=value1 HTTP/1.1\n") + kHost + kDate,
                  kPlain, "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
        SuiteCase{"get_vanilla_query_order_value",
                  std::string("GET /?Param1=value2&Param1=value1 HTTP/1.1\n") + kHost + kDate,
                  kPlain, "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"},
        SuiteCase{
            "get_vanilla_query_unreserved",
            std::string("GET /?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz="
                        "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz "
                        "HTTP/1.1\n") +
                kHost + kDate,
            kPlain, "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"},
        SuiteCase{"get_vanilla_utf8_query",
                  std::string("GET /?\xe1\x88\xb4=bar HTTP/1.1\n") + kHost + kDate, kPlain,
                  "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"},
        SuiteCase{"post_header_key_case", std::string("POST / HTTP/1.1\n") + kHost + kDate, kPlain,
                  "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
        SuiteCase{"post_header_key_sort",
                  std::string("POST / HTTP/1.1\n") + kHost + "My-Header1:value1\n" + kDate,
                  kHeader1, "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"},
        SuiteCase{"post_header_value_case",
                  std::string("POST / HTTP/1.1\n") + kHost + "My-Header1:VALUE1\n" + kDate,
                  kHeader1, "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"},
        SuiteCase{"post_vanilla_query",
                  std::string("POST /?Param1=value1 HTTP/1.1\n") + kHost + kDate, kPlain,
                  "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"},
        SuiteCase{"post_x_www_form_urlencoded",
                  std::string("POST / HTTP/1.1\nContent-Type:application/x-www-form-urlencoded\n") +
                      kHost + kDate + "\n\nParam1=value1",
                  "content-type;host;x-amz-date",
                  "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"},
        SuiteCase{"post_x_www_form_urlencoded_parameters",
                  std::string("POST / HTTP/1.1\nContent-Type:application/x-www-form-urlencoded; "
                              "charset=utf8\n") +
                      kHost + kDate + "\n\nParam1=value1",
                  "content-type;host;x-amz-date",
                  "1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"},
        SuiteCase{"post_sts_header_before", std::string("POST / HTTP/1.1\n") + kHost + kDate,
                  "host;x-amz-date;x-amz-security-token",
                  "85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead",
                  kSessionToken},
        // normalize-path: non-S3 services sign the normalized path.
        SuiteCase{"get_relative", std::string("GET /example/.. HTTP/1.1\n") + kHost + kDate, kPlain,
                  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
        SuiteCase{"get_relative_relative",
                  std::string("GET /example1/example2/../.. HTTP/1.1\n") + kHost + kDate, kPlain,
                  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
        SuiteCase{"get_slash", std::string("GET // HTTP/1.1\n") + kHost + kDate, kPlain,
                  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
        SuiteCase{"get_slash_dot_slash", std::string("GET /./ HTTP/1.1\n") + kHost + kDate, kPlain,
                  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
        SuiteCase{"get_slash_pointless_dot",
                  std::string("GET /./example HTTP/1.1\n") + kHost + kDate, kPlain,
                  "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5"},
        SuiteCase{"get_slashes", std::string("GET //example// HTTP/1.1\n") + kHost + kDate, kPlain,
                  "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"},
        SuiteCase{"get_space", std::string("GET /example space/ HTTP/1.1\n") + kHost + kDate,
                  kPlain, "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"}),
    [](const auto& info) { return info.param.name; });

// The suite's canonical requests, where the interesting rules live.
TEST(SigV4CanonicalTest, SortsQueryByKeyThenValue) {
  Request request =
      parseRaw(std::string("GET /?Param2=value2&Param1=value1 HTTP/1.1\n") + kHost + kDate);
  EXPECT_EQ(canonicalRequest(request, {"host", "x-amz-date"}, kEmptyHash, kService),
            std::string("GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\n"
                        "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n") +
                kEmptyHash);
}

TEST(SigV4CanonicalTest, TrimsAndCollapsesHeaderValues) {
  Request request = parseRaw(std::string("GET / HTTP/1.1\n") + kHost +
                             "My-Header1: value1\nMy-Header2: \"a   b   c\"\n" + kDate);
  EXPECT_EQ(canonicalRequest(request, {"host", "my-header1", "my-header2", "x-amz-date"},
                             kEmptyHash, kService),
            std::string("GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\n"
                        "my-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\n"
                        "host;my-header1;my-header2;x-amz-date\n") +
                kEmptyHash);
}

TEST(SigV4CanonicalTest, StringToSignMatchesTheSuite) {
  Request request = parseRaw(std::string("GET / HTTP/1.1\n") + kHost + kDate);
  std::string creq = canonicalRequest(request, {"host", "x-amz-date"}, kEmptyHash, kService);
  EXPECT_EQ(stringToSign("20150830T123600Z", "20150830/us-east-1/service/aws4_request", creq),
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
            "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
}

TEST(SigV4CanonicalTest, EncodesAnAlreadyEncodedPathAgainExceptForS3) {
  Request request;
  request.method = "GET";
  request.path = "/a%20b/c";
  EXPECT_EQ(canonicalRequest(request, {}, kEmptyHash, "ec2").substr(0, 16), "GET\n/a%2520b/c\n\n");
  EXPECT_EQ(canonicalRequest(request, {}, kEmptyHash, "s3").substr(0, 14), "GET\n/a%20b/c\n\n");
}

TEST(SigV4CanonicalTest, ReencodesQueryEscapesCanonically) {
  Request request;
  request.method = "GET";
  request.query = "b=%7e&a=x%2fy&c=+&d&%zz=1";
  std::string creq = canonicalRequest(request, {}, kEmptyHash, "ec2");
  // '~' is unreserved, '/' is not, '+' is literal, a broken escape is taken as it stands.
  EXPECT_EQ(creq.substr(0, creq.find("\n\n")), "GET\n/\n%25zz=1&a=x%2Fy&b=~&c=%2B&d=");
}

TEST(SigV4DateTest, FormatsAndParsesBasicIso8601) {
  EXPECT_EQ(formatAmzDate(suiteTime()), "20150830T123600Z");
  EXPECT_FALSE(parseAmzDate("20150830T123600"));
  EXPECT_FALSE(parseAmzDate("20150230T123600Z"));
  EXPECT_FALSE(parseAmzDate("20150830T246000Z"));
  EXPECT_FALSE(parseAmzDate("2015-08-30T12:36:00Z"));
}

}  // namespace
}  // namespace nodewright::aws::sigv4
