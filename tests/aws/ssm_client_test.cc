// SsmClient against both real peers: the EC2 emulator's SSM (the world's EKS AMI parameters)
// and moto's (PutParameter, then GetParameter).
#include "aws/ssm_client.h"

#include <gtest/gtest.h>

#include "aws/ec2_client_fixture.h"
#include "aws/error_class.h"
#include "aws/json_peer_fixture.h"
#include "support/aws/moto_server.h"

namespace nodewright::aws {
namespace {

constexpr const char* kAl2023 =
    "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id";

class SsmClientTest : public testing::Ec2ClientTest {
 protected:
  void SetUp() override {
    Ec2ClientTest::SetUp();
    json_ = testing::jsonClientFor(clock_, counting_, server_->url(), "ssm", "AmazonSSM", &clock_);
    ssm_ = std::make_unique<SsmClient>(*json_);
  }
  std::unique_ptr<JsonClient> json_;
  std::unique_ptr<SsmClient> ssm_;
};

TEST_F(SsmClientTest, ReadsTheWorldsAmiParameter) {
  auto id = ssm_->getParameter(kAl2023);
  ASSERT_TRUE(id) << id.error().code << ": " << id.error().message;
  EXPECT_EQ(*id, image());
  EXPECT_TRUE(id->starts_with("ami-")) << *id;
}

TEST_F(SsmClientTest, AMissingParameterIsParameterNotFound) {
  auto id = ssm_->getParameter("/aws/service/eks/optimized-ami/9.99/none");
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error().code, "ParameterNotFound");
  EXPECT_EQ(id.error().httpStatus, 400);
  EXPECT_EQ(classify(id.error()), ErrorClass::NotFound);
  EXPECT_EQ(counting_.sent, 1);  // not retried
}

TEST_F(SsmClientTest, InjectedServerErrorsAreRetriedWithinTheBudget) {
  putFaults(R"({"errors": {"ssm:GetParameter": [{"code": "InternalError", "probability": 1}]}})");
  auto id = ssm_->getParameter(kAl2023);
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error().code, "InternalError");
  EXPECT_EQ(id.error().httpStatus, 500);
  EXPECT_EQ(counting_.sent, 3);
}

TEST(SsmClientMotoTest, GetsWhatWasPutAndParameterNotFoundOtherwise) {
  if (auto missing = emulators::testing::missingPythonClients(true, false)) {
    FAIL() << *missing;
  }
  testing::MotoServer moto;
  ASSERT_EQ(moto.error(), "");
  auto transport = makeCurlTransport();
  auto json =
      testing::jsonClientFor(core::systemClock(), *transport, moto.url(), "ssm", "AmazonSSM");
  auto put = json->call(
      "PutParameter",
      {{"Name", "/nodewright/ami"}, {"Value", "ami-0123456789abcdef0"}, {"Type", "String"}});
  ASSERT_TRUE(put) << put.error().code << ": " << put.error().message;
  EXPECT_EQ((*put)["Version"], 1);

  SsmClient ssm(*json);
  auto got = ssm.getParameter("/nodewright/ami");
  ASSERT_TRUE(got) << got.error().code << ": " << got.error().message;
  EXPECT_EQ(*got, "ami-0123456789abcdef0");

  auto missing = ssm.getParameter("/nodewright/none");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "ParameterNotFound");
  EXPECT_EQ(classify(missing.error()), ErrorClass::NotFound);
}

}  // namespace
}  // namespace nodewright::aws
