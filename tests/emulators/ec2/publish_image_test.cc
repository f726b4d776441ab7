// Publishing a new image behind an AMI alias, as AWS does with each EKS release: CopyImage makes
// the new build, SSM PutParameter points the alias's parameter at it.
#include <gtest/gtest.h>

#include <string>

#include "api/reflect/json.h"
#include "emulators/ec2/describe_fixture.h"
#include "emulators/ec2/ssm.h"

namespace nodewright::emulators::ec2 {
namespace {

using api::Json;
using testing::DescribeActionsTest;
using testing::expectError;
using testing::Xml;

constexpr const char* kAlias =
    "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id";

class PublishImageTest : public DescribeActionsTest {
 protected:
  PublishImageTest() : world_(w_.world()) {}

  std::string aliased() const { return world_.ssmParameters.at(kAlias); }

  aws::ApiResult<std::string> copy(const std::string& source, const std::string& name) {
    return w_.call("CopyImage", "SourceImageId=" + source + "&SourceRegion=us-east-1&Name=" + name +
                                    "&TagSpecification.1.ResourceType=image"
                                    "&TagSpecification.1.Tag.1.Key=release"
                                    "&TagSpecification.1.Tag.1.Value=next");
  }

  Json put(const Json& request, int status = 200) {
    SsmReply reply = putParameter(api::dumpJson(request), world_);
    EXPECT_EQ(reply.status, status) << reply.body;
    return Json::parse(reply.body, nullptr, false);
  }

  Json get(const std::string& name) {
    SsmReply reply = serveSsm("GetParameter", api::dumpJson(Json{{"Name", name}}), world_);
    EXPECT_EQ(reply.status, 200) << reply.body;
    return Json::parse(reply.body, nullptr, false)["Parameter"];
  }

  World world_;  // a copy the tests may write, as the emulator's SSM front end does
};

TEST_F(PublishImageTest, CopyImageMakesANewBuildOwnedByTheAccount) {
  // Past the seeded images' release day (2024-11-15).
  w_.clock().advance(std::chrono::seconds(1767225600 - 1700000000));
  const std::string source = aliased();
  auto body = copy(source, "al2023-arm64-next");
  ASSERT_TRUE(body) << body.error().message;
  const std::string id = Xml(*body).root().child_value("imageId");
  ASSERT_TRUE(id.starts_with("ami-")) << *body;
  EXPECT_EQ(id.size(), 4u + 17u);

  auto described = w_.call("DescribeImages", "ImageId.1=" + id);
  ASSERT_TRUE(described);
  const Xml doc(*described);  // the items point into it
  auto items = doc.items("imagesSet");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_STREQ(items[0].child_value("name"), "al2023-arm64-next");
  EXPECT_STREQ(items[0].child_value("architecture"), "arm64");
  EXPECT_STREQ(items[0].child_value("imageOwnerId"), "123456789012");
  EXPECT_STREQ(items[0].child_value("imageState"), "available");
  EXPECT_STREQ(items[0].child_value("bootMode"), "uefi-preferred");
  EXPECT_STREQ(items[0].child_value("isPublic"), "false");
  // Made now, at EC2's millisecond precision: newer than every seeded image.
  EXPECT_STREQ(items[0].child_value("creationDate"), "2026-01-01T00:00:00.000Z");
  auto tagged = w_.call("DescribeImages", "Filter.1.Name=tag:release&Filter.1.Value.1=next");
  ASSERT_TRUE(tagged);
  EXPECT_EQ(Xml(*tagged).items("imagesSet").size(), 1u);
}

TEST_F(PublishImageTest, CopyImageRefusesWhatEc2Refuses) {
  expectError(copy("ami-0123456789abcdef0", "missing-source"), "InvalidAMIID.NotFound",
              "ami-0123456789abcdef0");
  expectError(copy("image-1", "malformed"), "InvalidAMIID.Malformed");
  expectError(copy(aliased(), "ab"), "InvalidAMIName.Malformed");
  expectError(w_.call("CopyImage", "SourceImageId=" + aliased() + "&SourceRegion=us-east-1"),
              "MissingParameter");
  expectError(
      w_.call("CopyImage", "SourceImageId=" + aliased() + "&SourceRegion=eu-west-1&Name=elsewhere"),
      "InvalidParameterValue", "eu-west-1");
  ASSERT_TRUE(copy(aliased(), "once"));
  expectError(copy(aliased(), "once"), "InvalidAMIName.Duplicate", "once");
}

TEST_F(PublishImageTest, PutParameterRepointsAnAliasAndCountsVersions) {
  EXPECT_EQ(get(kAlias)["Version"], Json(1));
  Json refused = put(Json{{"Name", kAlias}, {"Value", "ami-0new"}, {"Type", "String"}}, 400);
  EXPECT_EQ(refused["__type"], Json("ParameterAlreadyExists"));
  EXPECT_NE(aliased(), "ami-0new");

  Json answer =
      put(Json{{"Name", kAlias}, {"Value", "ami-0new"}, {"Type", "String"}, {"Overwrite", true}});
  EXPECT_EQ(answer, (Json{{"Version", 2}, {"Tier", "Standard"}}));
  Json parameter = get(kAlias);
  EXPECT_EQ(parameter["Value"], Json("ami-0new"));
  EXPECT_EQ(parameter["Version"], Json(2));
  // Only the current version is kept.
  EXPECT_EQ(get(std::string(kAlias) + ":2")["Value"], Json("ami-0new"));
  SsmReply old =
      serveSsm("GetParameter", api::dumpJson(Json{{"Name", std::string(kAlias) + ":1"}}), world_);
  EXPECT_EQ(old.errorCode, "ParameterNotFound");
}

TEST_F(PublishImageTest, PutParameterCreatesAndValidates) {
  EXPECT_EQ(put(Json{{"Name", "/team/ami"}, {"Value", "ami-1"}})["Version"], Json(1));
  EXPECT_EQ(get("/team/ami")["Value"], Json("ami-1"));
  EXPECT_EQ(put(Json{{"Value", "ami-1"}}, 400)["__type"], Json("ValidationException"));
  EXPECT_EQ(put(Json{{"Name", "/x"}}, 400)["__type"], Json("ValidationException"));
  EXPECT_EQ(put(Json{{"Name", "/x"}, {"Value", "s"}, {"Type", "SecureString"}}, 400)["__type"],
            Json("ValidationException"));
  // serveSsm never writes: PutParameter goes through putParameter under the writers' lock.
  SsmReply unknown = serveSsm("PutParameter", R"({"Name":"/y","Value":"z"})", world_);
  EXPECT_EQ(unknown.errorCode, "UnknownOperationException");
}

}  // namespace
}  // namespace nodewright::emulators::ec2
