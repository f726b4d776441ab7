#include "cloud/azure/http_util.h"

#include <gtest/gtest.h>

#include "cloud/azure/api_versions.h"

namespace nodewright::cloud::azure {
namespace {

using std::chrono::milliseconds;

// 2015-10-21T07:28:00Z
const core::TimePoint kNow{std::chrono::seconds(1445412480)};

TEST(RetryAfterTest, ReadsDeltaSeconds) {
  EXPECT_EQ(parseRetryAfter("120", kNow), milliseconds(120000));
  EXPECT_EQ(parseRetryAfter(" 0 ", kNow), milliseconds(0));
}

TEST(RetryAfterTest, ReadsTheThreeHttpDateForms) {
  EXPECT_EQ(parseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", kNow), milliseconds(30000));
  EXPECT_EQ(parseRetryAfter("Wednesday, 21-Oct-15 07:29:00 GMT", kNow), milliseconds(60000));
  EXPECT_EQ(parseRetryAfter("Wed Oct 21 07:28:05 2015", kNow), milliseconds(5000));
}

TEST(RetryAfterTest, DateInThePastIsNoWait) {
  EXPECT_EQ(parseRetryAfter("Tue, 20 Oct 2015 07:28:00 GMT", kNow), milliseconds(0));
}

TEST(RetryAfterTest, RejectsGarbage) {
  EXPECT_EQ(parseRetryAfter("", kNow), std::nullopt);
  EXPECT_EQ(parseRetryAfter("-5", kNow), std::nullopt);
  EXPECT_EQ(parseRetryAfter("1.5", kNow), std::nullopt);
  EXPECT_EQ(parseRetryAfter("soon", kNow), std::nullopt);
  EXPECT_EQ(parseRetryAfter("Wed, 21 Oct 2015 07:28:30 PST", kNow), std::nullopt);
  EXPECT_EQ(parseRetryAfter("Wed, 32 Oct 2015 07:28:30 GMT", kNow), std::nullopt);
  EXPECT_EQ(parseRetryAfter("Wed, 21 Foo 2015 07:28:30 GMT", kNow), std::nullopt);
}

TEST(RetryAfterTest, CapsAbsurdDelays) {
  EXPECT_EQ(parseRetryAfter("99999999999", kNow), milliseconds(86400000));
}

TEST(RetryAfterTest, MillisecondHeadersWinOverRetryAfter) {
  std::map<std::string, std::string> headers = {{"retry-after", "10"},
                                                {"x-ms-retry-after-ms", "250"}};
  EXPECT_EQ(retryAfterFromHeaders(headers, kNow), milliseconds(250));
  headers["retry-after-ms"] = "40";
  EXPECT_EQ(retryAfterFromHeaders(headers, kNow), milliseconds(40));
  EXPECT_EQ(retryAfterFromHeaders({{"retry-after", "3"}}, kNow), milliseconds(3000));
  EXPECT_EQ(retryAfterFromHeaders({}, kNow), std::nullopt);
}

TEST(UrlOriginTest, NormalisesCaseAndDefaultPorts) {
  EXPECT_EQ(urlOrigin("https://Management.Azure.com/subscriptions/x?api-version=1"),
            "https://management.azure.com:443");
  EXPECT_EQ(urlOrigin("https://127.0.0.1:8443/a"), "https://127.0.0.1:8443");
  EXPECT_EQ(urlOrigin("http://169.254.169.254"), "http://169.254.169.254:80");
  EXPECT_EQ(urlOrigin("HTTPS://[::1]:9/x"), "https://[::1]:9");
  EXPECT_EQ(urlOrigin("https://[::1]/x"), "https://[::1]:443");
}

TEST(UrlOriginTest, RejectsRelativeOtherSchemesAndUserInfo) {
  EXPECT_EQ(urlOrigin("/subscriptions/x"), std::nullopt);
  EXPECT_EQ(urlOrigin("ftp://host/x"), std::nullopt);
  EXPECT_EQ(urlOrigin("https://user@evil.example/x"), std::nullopt);
  EXPECT_EQ(urlOrigin("https:///x"), std::nullopt);
}

TEST(PercentEncodeTest, KeepsOnlyUnreservedCharacters) {
  EXPECT_EQ(percentEncode("https://management.azure.com/.default"),
            "https%3A%2F%2Fmanagement.azure.com%2F.default");
  EXPECT_EQ(percentEncode("a b+c&d=e~_-."), "a%20b%2Bc%26d%3De~_-.");
}

TEST(WithApiVersionTest, AppendsToTheQuery) {
  EXPECT_EQ(withApiVersion("https://h/x", "2023-04-01"), "https://h/x?api-version=2023-04-01");
  EXPECT_EQ(withApiVersion("https://h/x?a=b", "1"), "https://h/x?a=b&api-version=1");
}

TEST(PlainUrlTest, IsAbsoluteVisibleAscii) {
  EXPECT_TRUE(plainUrl("https://127.0.0.1:8443/ops/1?api-version=2023-04-01"));
  EXPECT_TRUE(plainUrl("https://management.azure.com/a%20b"));
  EXPECT_FALSE(plainUrl("/ops/1"));
  EXPECT_FALSE(plainUrl("https://h/a b"));
  EXPECT_FALSE(plainUrl("https://h/a\r\nX-Injected: 1"));
  EXPECT_FALSE(plainUrl("https://h/caf\xC3\xA9"));
  EXPECT_FALSE(plainUrl("ftp://h/x"));
}

TEST(Utf8Test, AcceptsUtf8Only) {
  EXPECT_TRUE(validUtf8(""));
  EXPECT_TRUE(validUtf8("plain"));
  EXPECT_TRUE(validUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(validUtf8("caf\xC3"));                        // cut short
  EXPECT_FALSE(validUtf8("\xFF"));                           // never a lead byte
  EXPECT_FALSE(validUtf8("\xC0\xAF"));                       // overlong "/"
  EXPECT_FALSE(validUtf8("\xED\xA0\x80"));                   // a surrogate
  EXPECT_FALSE(validUtf8("\xF4\x90\x80\x80"));               // past U+10FFFF
  EXPECT_FALSE(validUtf8(std::string_view("\xC3\x28", 2)));  // bad continuation
}

}  // namespace
}  // namespace nodewright::cloud::azure
