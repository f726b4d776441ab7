// Bad requests over the wire: each gets an EC2-shaped error (Code, Message, RequestID in EC2's
// XML, the status EC2 uses), and the emulator keeps serving good requests afterwards.
#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <set>
#include <string>

#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::emulators::testing {
namespace {

constexpr size_t kMaxBody = 64 * 1024;

using Send = std::function<core::Result<WireResponse>(QueryClient&)>;

struct BadInputCase {
  std::string name;
  Send send;
  int status;
  // Any of these codes; EC2 is documented to use the first, the others where it varies.
  std::set<std::string> codes;
  std::string messagePart;  // empty: any message
};

void PrintTo(const BadInputCase& c, std::ostream* os) {
  *os << c.name;
}

RawRequest form(std::string body, Signing signing = Signing::Valid) {
  RawRequest r;
  r.body = std::move(body);
  r.signing = signing;
  return r;
}

class Ec2BadInputTest : public ::testing::TestWithParam<BadInputCase> {
 protected:
  void SetUp() override {
    ec2::Ec2EmulatorOptions options;
    options.maxBodyBytes = kMaxBody;
    auto server = startEc2(clock_, std::move(options));
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    client_ = std::make_unique<QueryClient>(server_->url(), clock_);
  }

  core::FakeClock clock_;
  std::unique_ptr<ec2::Ec2Server> server_;
  std::unique_ptr<QueryClient> client_;
};

TEST_P(Ec2BadInputTest, RejectsWithAnEc2ErrorAndKeepsServing) {
  const BadInputCase& c = GetParam();
  auto response = c.send(*client_);
  ASSERT_TRUE(response) << response.error().message();
  EXPECT_EQ(response->status, c.status) << response->body;
  auto error = response->error();
  ASSERT_TRUE(error) << "not an EC2 error document: " << response->body;
  EXPECT_TRUE(c.codes.contains(error->code)) << error->code << ": " << error->message;
  EXPECT_FALSE(error->message.empty());
  if (!c.messagePart.empty()) {
    EXPECT_NE(error->message.find(c.messagePart), std::string::npos) << error->message;
  }
  EXPECT_FALSE(response->firstText("RequestID").empty()) << response->body;

  client_->setCredentials({"nodewright", "nodewright", ""});
  client_->setSigningSkew(std::chrono::seconds(0));
  auto good = client_->call("DescribeAvailabilityZones");
  ASSERT_TRUE(good) << good.error().message();
  EXPECT_EQ(good->status, 200) << good->body;
  EXPECT_EQ(good->firstText("zoneName"), "us-east-1a") << good->body;
}

INSTANTIATE_TEST_SUITE_P(
    Requests, Ec2BadInputTest,
    ::testing::Values(
        BadInputCase{"BrokenEscapeInBody",
                     [](QueryClient& c) {
                       return c.send(
                           form("Action=DescribeAvailabilityZones&Version=2016-11-15"
                                "&Filter.1.Name=zone-name&Filter.1.Value.1=us%ZZeast"));
                     },
                     400,
                     {"MalformedQueryString"},
                     ""},
        BadInputCase{"TruncatedEscapeInBody",
                     [](QueryClient& c) {
                       return c.send(form("Action=DescribeAvailabilityZones&Version=2016-11-15%"));
                     },
                     400,
                     {"MalformedQueryString"},
                     ""},
        BadInputCase{"BrokenEscapeInQueryString",
                     [](QueryClient& c) {
                       RawRequest r;
                       r.method = "GET";
                       r.target = "/?Action=DescribeAvailabilityZones&Version=2016-11-15&Foo=%G1";
                       r.contentType.clear();
                       return c.send(r);
                     },
                     400,
                     // A signer cannot canonicalise a broken escape, so EC2 may fail either step.
                     {"MalformedQueryString", "SignatureDoesNotMatch"},
                     ""},
        BadInputCase{"UnknownAction",
                     [](QueryClient& c) { return c.call("LaunchRockets"); },
                     400,
                     {"InvalidAction"},
                     "LaunchRockets"},
        BadInputCase{"MissingAction",
                     [](QueryClient& c) { return c.send(form("Version=2016-11-15")); },
                     400,
                     {"MissingAction"},
                     ""},
        BadInputCase{
            "MissingVersion",
            [](QueryClient& c) { return c.send(form("Action=DescribeAvailabilityZones")); },
            400,
            {"MissingParameter"},
            "Version"},
        BadInputCase{"WrongVersion",
                     [](QueryClient& c) {
                       return c.send(form("Action=DescribeAvailabilityZones&Version=2014-02-01"));
                     },
                     400,
                     {"NoSuchVersion", "InvalidParameterValue"},
                     "2014-02-01"},
        BadInputCase{"Unsigned",
                     [](QueryClient& c) {
                       return c.send(form("Action=DescribeAvailabilityZones&Version=2016-11-15",
                                          Signing::None));
                     },
                     401,
                     {"MissingAuthenticationToken", "AuthFailure"},
                     ""},
        BadInputCase{"WrongSignature",
                     [](QueryClient& c) {
                       return c.send(form("Action=DescribeAvailabilityZones&Version=2016-11-15",
                                          Signing::WrongSignature));
                     },
                     403,
                     {"SignatureDoesNotMatch"},
                     ""},
        BadInputCase{"BodyChangedAfterSigning",
                     [](QueryClient& c) {
                       // Signed for one body, sent with another: what a proxy rewriting it does.
                       RawRequest r = form("Action=DescribeAvailabilityZones&Version=2016-11-15");
                       r.bodyAfterSigning = "Action=DescribeRegions&Version=2016-11-15";
                       return c.send(r);
                     },
                     403,
                     {"SignatureDoesNotMatch"},
                     ""},
        BadInputCase{"UnknownAccessKey",
                     [](QueryClient& c) {
                       c.setCredentials({"AKIAUNKNOWNKEY000000", "secret", ""});
                       return c.call("DescribeAvailabilityZones");
                     },
                     401,
                     {"AuthFailure"},
                     ""},
        BadInputCase{"WrongSecret",
                     [](QueryClient& c) {
                       c.setCredentials({"nodewright", "not-the-secret", ""});
                       return c.call("DescribeAvailabilityZones");
                     },
                     403,
                     {"SignatureDoesNotMatch"},
                     ""},
        BadInputCase{"ExpiredSignature",
                     [](QueryClient& c) {
                       c.setSigningSkew(-std::chrono::hours(1));
                       return c.call("DescribeAvailabilityZones");
                     },
                     400,
                     {"RequestExpired"},
                     ""},
        BadInputCase{"HugeBody",
                     [](QueryClient& c) {
                       std::string body = "Action=DescribeAvailabilityZones&Version=2016-11-15";
                       body += "&Padding=" + std::string(2 * kMaxBody, 'x');
                       return c.send(form(std::move(body)));
                     },
                     413,
                     {"RequestEntityTooLarge"},
                     ""},
        BadInputCase{"NonIntegerMinCount",
                     [](QueryClient& c) {
                       return c.call("RunInstances", {{"ImageId", "ami-00000000000000001"},
                                                      {"InstanceType", "m5.large"},
                                                      {"MinCount", "one"},
                                                      {"MaxCount", "1"}});
                     },
                     400,
                     {"InvalidParameterValue"},
                     "MinCount"},
        BadInputCase{"NonIntegerMaxResults",
                     [](QueryClient& c) {
                       return c.call("DescribeInstanceTypes", {{"MaxResults", "lots"}});
                     },
                     400,
                     {"InvalidParameterValue"},
                     "MaxResults"},
        BadInputCase{"DuplicateParameter",
                     [](QueryClient& c) {
                       return c.send(
                           form("Action=DescribeAvailabilityZones&Version=2016-11-15"
                                "&ZoneName.1=a&ZoneName.1=b"));
                     },
                     400,
                     {"InvalidParameter"},
                     ""},
        BadInputCase{"ZeroListIndex",
                     [](QueryClient& c) {
                       return c.call("DescribeSubnets",
                                     {{"Filter.0.Name", "vpc-id"}, {"Filter.0.Value.1", "x"}});
                     },
                     400,
                     {"InvalidParameterValue"},
                     "Filter.0"},
        BadInputCase{"UnknownFilter",
                     [](QueryClient& c) {
                       return c.call("DescribeSubnets",
                                     {{"Filter.1.Name", "flavour"}, {"Filter.1.Value.1", "x"}});
                     },
                     400,
                     {"InvalidParameterValue"},
                     "flavour"},
        BadInputCase{"MalformedInstanceId",
                     [](QueryClient& c) {
                       return c.call("DescribeInstances", {{"InstanceId.1", "not-an-id"}});
                     },
                     400,
                     {"InvalidInstanceID.Malformed"},
                     "not-an-id"},
        BadInputCase{"UnsupportedMethod",
                     [](QueryClient& c) {
                       RawRequest r = form("Action=DescribeAvailabilityZones&Version=2016-11-15");
                       r.method = "DELETE";
                       return c.send(r);
                     },
                     400,
                     {"UnsupportedProtocol", "InvalidAction"},
                     ""},
        BadInputCase{"NotAFormBody",
                     [](QueryClient& c) {
                       RawRequest r = form("{\"Action\": \"DescribeAvailabilityZones\"}");
                       r.contentType = "application/json";
                       return c.send(r);
                     },
                     400,
                     {"MissingAction", "MalformedQueryString"},
                     ""}),
    [](const ::testing::TestParamInfo<BadInputCase>& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::emulators::testing
