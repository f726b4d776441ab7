// verify() against botocore, the reference AWS client: what botocore signs must verify, and one
// flipped byte must not.
#include <gtest/gtest.h>

#include "aws/sigv4.h"
#include "support/aws/python.h"

namespace nodewright::aws::sigv4 {
namespace {

// Signs at a fixed time and prints the request as it would go on the wire: "method\t..",
// "url\t..", "header\tname\tvalue" lines and "body\t<hex>".
constexpr char kSignScript[] = R"PY(
import datetime
import sys
import botocore.auth
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from urllib.parse import urlsplit

mode, key, secret, token = sys.argv[1:5]
botocore.auth.get_current_datetime = lambda *a, **k: datetime.datetime(2024, 5, 1, 12, 0, 0)
credentials = Credentials(key, secret, token or None)
url = 'https://ec2.us-west-2.amazonaws.com/'
if mode == 'header':
    request = AWSRequest(
        method='POST', url=url, data=b'Action=DescribeRegions&Version=2016-11-15',
        headers={'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8'})
    SigV4Auth(credentials, 'ec2', 'us-west-2').add_auth(request)
else:
    request = AWSRequest(method='GET', url=url + '?Action=DescribeRegions&Version=2016-11-15'
                         '&Filter.1.Name=region-name&Filter.1.Value.1=us%2Fwest+2%7E')
    SigV4QueryAuth(credentials, 'ec2', 'us-west-2', expires=300).add_auth(request)
prepared = request.prepare()
print('method\t' + prepared.method)
print('url\t' + prepared.url)
headers = dict(prepared.headers)
if not any(name.lower() == 'host' for name in headers):
    headers['Host'] = urlsplit(prepared.url).netloc  # what the HTTP layer adds
for name, value in headers.items():
    print('header\t%s\t%s' % (name, value))
body = prepared.body or b''
print('body\t' + (body if isinstance(body, bytes) else body.encode()).hex())
)PY";

const Credentials kCredentials{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                               ""};

std::string unhex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

Request signedByBotocore(const std::string& mode, const Credentials& credentials) {
  auto out = testing::runPython(
      kSignScript,
      {mode, credentials.accessKeyId, credentials.secretAccessKey, credentials.sessionToken});
  EXPECT_TRUE(out) << out.error().message();
  Request request;
  std::string_view text = out ? std::string_view(*out) : "";
  while (!text.empty()) {
    std::string_view line = text.substr(0, text.find('\n'));
    text.remove_prefix(std::min(text.size(), line.size() + 1));
    std::size_t tab = line.find('\t');
    std::string_view kind = line.substr(0, tab), rest = line.substr(tab + 1);
    if (kind == "method") {
      request.method = std::string(rest);
    }
    if (kind == "body") {
      request.body = unhex(rest);
    }
    if (kind == "header") {
      std::size_t split = rest.find('\t');
      request.headers.emplace(std::string(rest.substr(0, split)),
                              std::string(rest.substr(split + 1)));
    }
    if (kind == "url") {
      std::string_view target = rest.substr(rest.find('/', std::string_view("https://").size()));
      std::size_t question = target.find('?');
      request.path = std::string(target.substr(0, question));
      if (question != std::string_view::npos) {
        request.query = std::string(target.substr(question + 1));
      }
    }
  }
  return request;
}

class SigV4BotocoreTest : public ::testing::Test {
 protected:
  ApiResult<Identity> check(const Request& request, std::chrono::seconds after = {}) const {
    auto lookup = [](std::string_view id) -> std::optional<std::string> {
      if (id == kCredentials.accessKeyId) {
        return kCredentials.secretAccessKey;
      }
      return std::nullopt;
    };
    return verify(request, lookup, *parseAmzDate("20240501T120000Z") + after, {"us-west-2", "ec2"});
  }
};

TEST_F(SigV4BotocoreTest, AcceptsABotocoreSignedEc2Post) {
  Request request = signedByBotocore("header", kCredentials);
  ASSERT_EQ(request.method, "POST");
  ASSERT_EQ(request.body, "Action=DescribeRegions&Version=2016-11-15");
  auto identity = check(request, std::chrono::seconds(30));
  ASSERT_TRUE(identity) << identity.error().code << ": " << identity.error().message;
  EXPECT_EQ(identity->accessKeyId, kCredentials.accessKeyId);
}

TEST_F(SigV4BotocoreTest, RejectsItAfterOneBodyByteFlips) {
  Request request = signedByBotocore("header", kCredentials);
  ASSERT_FALSE(request.body.empty());
  request.body[request.body.size() - 1] ^= 0x01;
  auto identity = check(request);
  ASSERT_FALSE(identity);
  EXPECT_EQ(identity.error().code, "SignatureDoesNotMatch");
}

TEST_F(SigV4BotocoreTest, CarriesBotocoresSessionToken) {
  Credentials temporary = kCredentials;
  temporary.sessionToken = "FwoGZXIvYXdzEXAMPLE/token+with=symbols";
  auto identity = check(signedByBotocore("header", temporary));
  ASSERT_TRUE(identity) << identity.error().message;
  EXPECT_EQ(identity->sessionToken, temporary.sessionToken);
}

TEST_F(SigV4BotocoreTest, AcceptsABotocorePresignedGet) {
  Request request = signedByBotocore("query", kCredentials);
  ASSERT_EQ(request.headers.count("authorization"), 0u);
  auto identity = check(request, std::chrono::seconds(299));
  ASSERT_TRUE(identity) << identity.error().code << ": " << identity.error().message;
  auto late = check(request, std::chrono::seconds(301));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, "RequestExpired");
}

TEST_F(SigV4BotocoreTest, SignsAsBotocoreDoes) {
  Request theirs = signedByBotocore("header", kCredentials);
  Request ours;
  ours.method = "POST";
  ours.body = theirs.body;
  for (const auto& [name, value] : theirs.headers) {
    // botocore signed before its HTTP layer added Content-Length.
    if (name != "Authorization" && name != "X-Amz-Date" && name != "Content-Length") {
      ours.headers.emplace(name, value);
    }
  }
  ASSERT_TRUE(sign(ours, kCredentials, "us-west-2", "ec2", *parseAmzDate("20240501T120000Z")));
  EXPECT_EQ(ours.headers.find("authorization")->second,
            theirs.headers.find("authorization")->second);
}

}  // namespace
}  // namespace nodewright::aws::sigv4
