// SSM GetParameter and GetParameters over the default world's parameters, in the JSON 1.1
// shapes botocore reads.
#include "emulators/ec2/ssm.h"

#include <gtest/gtest.h>

#include "api/reflect/json.h"
#include "core/clock.h"
#include "emulators/ec2/resources.h"
#include "emulators/engine/resource_store.h"

namespace nodewright::emulators::ec2 {
namespace {

using api::Json;

constexpr const char* kAl2023 =
    "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id";
constexpr const char* kBottlerocket =
    "/aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_id";

class SsmTest : public ::testing::Test {
 protected:
  SsmTest() : store_(clock_, 1) {
    auto world = seedWorld(store_, defaultWorld());
    EXPECT_TRUE(world) << world.error().message();
    if (world) {
      world_ = std::move(*world);
    }
  }

  Json call(std::string_view operation, const Json& request, int expectedStatus = 200) {
    SsmReply reply = serveSsm(operation, api::dumpJson(request), world_);
    EXPECT_EQ(reply.status, expectedStatus) << reply.body;
    Json body = Json::parse(reply.body, nullptr, false);
    EXPECT_FALSE(body.is_discarded()) << reply.body;
    if (expectedStatus != 200) {
      EXPECT_EQ(reply.errorCode, body.value("__type", "")) << reply.body;
    } else {
      EXPECT_TRUE(reply.errorCode.empty());
    }
    return body;
  }

  core::FakeClock clock_;
  ResourceStore store_;
  World world_;
};

TEST_F(SsmTest, GetParameterResolvesAnAmiAlias) {
  Json body = call("GetParameter", {{"Name", kAl2023}});
  const Json& p = body["Parameter"];
  EXPECT_EQ(p["Name"], kAl2023);
  EXPECT_EQ(p["Type"], "String");
  EXPECT_EQ(p["Version"], 1);
  EXPECT_TRUE(p["LastModifiedDate"].is_number());
  EXPECT_EQ(p["ARN"], std::string("arn:aws:ssm:us-east-1::parameter") + kAl2023);
  // The value is a stored arm64 image.
  auto image = store_.get(kind::kImage, p["Value"].get<std::string>());
  ASSERT_TRUE(image) << p["Value"];
  ASSERT_NE(image->as<ImageAttributes>(), nullptr);
  EXPECT_EQ(image->as<ImageAttributes>()->architecture, Architecture::Arm64);
}

TEST_F(SsmTest, EveryFamilyAndArchitectureHasAParameter) {
  for (const char* name :
       {kAl2023, kBottlerocket,
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2/recommended/image_id",
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/recommended/image_id",
        "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/nvidia/recommended/image_id",
        "/aws/service/bottlerocket/aws-k8s-1.34-nvidia/arm64/latest/image_id"}) {
    Json body = call("GetParameter", {{"Name", name}, {"WithDecryption", false}});
    EXPECT_TRUE(body["Parameter"]["Value"].get<std::string>().starts_with("ami-")) << name;
  }
}

TEST_F(SsmTest, UnknownParametersAreNotFound) {
  Json body = call("GetParameter", {{"Name", "/aws/service/eks/optimized-ami/1.99/nothing"}}, 400);
  EXPECT_EQ(body["__type"], "ParameterNotFound");
  // Every parameter is at version 1.
  call("GetParameter", {{"Name", std::string(kAl2023) + ":1"}});
  body = call("GetParameter", {{"Name", std::string(kAl2023) + ":2"}}, 400);
  EXPECT_EQ(body["__type"], "ParameterNotFound");
}

TEST_F(SsmTest, GetParametersSplitsFoundFromInvalid) {
  Json body = call("GetParameters", {{"Names", {kAl2023, "/nope", kBottlerocket, kAl2023}}});
  ASSERT_EQ(body["Parameters"].size(), 2u);
  EXPECT_EQ(body["Parameters"][0]["Name"], kAl2023);
  EXPECT_EQ(body["Parameters"][1]["Name"], kBottlerocket);
  EXPECT_EQ(body["InvalidParameters"], Json::array({"/nope"}));
}

TEST_F(SsmTest, BadRequestsGetJsonErrors) {
  EXPECT_EQ(call("GetParameter", Json::object(), 400)["__type"], "ValidationException");
  EXPECT_EQ(call("GetParameters", {{"Names", Json::array()}}, 400)["__type"],
            "ValidationException");
  Json eleven = Json::array();
  for (int i = 0; i < 11; ++i) {
    eleven.push_back("/p" + std::to_string(i));
  }
  EXPECT_EQ(call("GetParameters", {{"Names", eleven}}, 400)["__type"], "ValidationException");
  EXPECT_EQ(call("PutParameter", {{"Name", "x"}}, 400)["__type"], "UnknownOperationException");

  SsmReply broken = serveSsm("GetParameter", "{not json", world_);
  EXPECT_EQ(broken.status, 400);
  EXPECT_EQ(broken.errorCode, "SerializationException");
}

}  // namespace
}  // namespace nodewright::emulators::ec2
