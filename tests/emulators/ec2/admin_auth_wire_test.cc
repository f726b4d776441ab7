// The EC2 emulator's /admin takes the SigV4 signature its API takes, checked before the request
// runs: unsigned or wrongly signed requests are refused and change nothing.
#include <gtest/gtest.h>

#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::emulators::testing {
namespace {

// Every DescribeVpcs fails: a fault whose effect shows at once.
constexpr const char* kFailVpcs =
    R"({"errors": {"DescribeVpcs": [{"code": "InternalError", "probability": 1}]}})";

class Ec2AdminAuthWireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = startEc2(clock_, ec2::Ec2EmulatorOptions{});
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    client_ = std::make_unique<QueryClient>(server_->url(), clock_);
  }
  void TearDown() override { server_.reset(); }

  WireResponse send(const std::string& method, const std::string& target, Signing signing,
                    const std::string& body = "") {
    RawRequest request;
    request.method = method;
    request.target = target;
    request.body = body;
    request.contentType = body.empty() ? "" : "application/json";
    request.signing = signing;
    auto response = client_->send(request);
    EXPECT_TRUE(response) << response.error().message();
    return response ? *response : WireResponse{};
  }

  core::FakeClock clock_;
  std::unique_ptr<ec2::Ec2Server> server_;
  std::unique_ptr<QueryClient> client_;
};

TEST_F(Ec2AdminAuthWireTest, UnsignedAdminRequestsAreRefused) {
  for (const char* target : {"/admin/stats", "/admin/faults", "/admin", "/admin/nothing"}) {
    const WireResponse r = send("GET", target, Signing::None);
    EXPECT_EQ(r.status, 401) << target << ": " << r.body;
    ASSERT_TRUE(r.error()) << r.body;
    EXPECT_EQ(r.error()->code, "MissingAuthenticationToken") << target;
  }
}

TEST_F(Ec2AdminAuthWireTest, AnUnsignedOrForgedFaultChangeChangesNothing) {
  EXPECT_GE(send("PUT", "/admin/faults", Signing::None, kFailVpcs).status, 400);
  EXPECT_GE(send("PUT", "/admin/faults", Signing::WrongSignature, kFailVpcs).status, 400);
  auto vpcs = client_->call("DescribeVpcs");
  ASSERT_TRUE(vpcs) << vpcs.error().message();
  EXPECT_EQ(vpcs->status, 200) << vpcs->body;
}

TEST_F(Ec2AdminAuthWireTest, SignedAdminRequestsWork) {
  auto put = putFaults(*client_, kFailVpcs);
  ASSERT_TRUE(put) << put.error().message();
  auto vpcs = client_->call("DescribeVpcs");
  ASSERT_TRUE(vpcs) << vpcs.error().message();
  EXPECT_EQ(vpcs->status, 500) << vpcs->body;
  auto stats = adminStats(*client_);
  ASSERT_TRUE(stats) << stats.error().message();
  EXPECT_TRUE((*stats)["requests"].contains("DescribeVpcs")) << stats->dump();
}

TEST_F(Ec2AdminAuthWireTest, AnUnknownAccessKeyIsRefused) {
  client_->setCredentials({"someone-else", "secret", ""});
  EXPECT_EQ(send("GET", "/admin/stats", Signing::Valid).status, 401);
}

}  // namespace
}  // namespace nodewright::emulators::testing
