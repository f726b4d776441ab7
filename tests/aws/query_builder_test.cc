#include "aws/query_builder.h"

#include <gtest/gtest.h>

namespace nodewright::aws {
namespace {

TEST(ParamBuilderTest, FlattensScalarsListsAndNestedStructures) {
  ParamBuilder b;
  b.set("MinCount", 1).set("DryRun", false).set("InstanceType", "m5.large");
  b.list("InstanceId", {"i-1", "i-2"});
  ParamBuilder data = b.nested("LaunchTemplateData");
  data.set("ImageId", "ami-1");
  ParamBuilder eni = data.member("NetworkInterface", 2);
  eni.set("DeviceIndex", 1).set("NetworkCardIndex", int64_t{1});
  eni.list("SecurityGroupId", {"sg-1"});
  b.setIfNotEmpty("UserData", "").setIfNotEmpty("KeyName", "k");

  const ParamPairs expected = {
      {"MinCount", "1"},
      {"DryRun", "false"},
      {"InstanceType", "m5.large"},
      {"InstanceId.1", "i-1"},
      {"InstanceId.2", "i-2"},
      {"LaunchTemplateData.ImageId", "ami-1"},
      {"LaunchTemplateData.NetworkInterface.2.DeviceIndex", "1"},
      {"LaunchTemplateData.NetworkInterface.2.NetworkCardIndex", "1"},
      {"LaunchTemplateData.NetworkInterface.2.SecurityGroupId.1", "sg-1"},
      {"KeyName", "k"},
  };
  EXPECT_EQ(b.pairs(), expected);
}

TEST(ParamBuilderTest, NumbersFiltersAndTagSpecificationsInOrder) {
  ParamBuilder b;
  b.filter("tag:a", {"x", "y"}).filter("vpc-id", {"vpc-1"});
  b.tagSpecification("instance", {{"k1", "v1"}, {"k2", "v2"}});
  b.tagSpecification("volume", {{"k", "v"}});
  const ParamPairs expected = {
      {"Filter.1.Name", "tag:a"},
      {"Filter.1.Value.1", "x"},
      {"Filter.1.Value.2", "y"},
      {"Filter.2.Name", "vpc-id"},
      {"Filter.2.Value.1", "vpc-1"},
      {"TagSpecification.1.ResourceType", "instance"},
      {"TagSpecification.1.Tag.1.Key", "k1"},
      {"TagSpecification.1.Tag.1.Value", "v1"},
      {"TagSpecification.1.Tag.2.Key", "k2"},
      {"TagSpecification.1.Tag.2.Value", "v2"},
      {"TagSpecification.2.ResourceType", "volume"},
      {"TagSpecification.2.Tag.1.Key", "k"},
      {"TagSpecification.2.Tag.1.Value", "v"},
  };
  EXPECT_EQ(b.take(), expected);
}

TEST(ParamBuilderTest, RoundTripsThroughTheServersParser) {
  ParamBuilder b;
  b.nested("LaunchTemplateData").member("NetworkInterface", 1).set("DeviceIndex", 0);
  auto params = Params::fromPairs(b.take());
  ASSERT_TRUE(params);
  auto enis = params->sub("LaunchTemplateData").list("NetworkInterface");
  ASSERT_TRUE(enis);
  ASSERT_EQ(enis->size(), 1u);
  EXPECT_EQ((*enis)[0].integer("DeviceIndex").value_or(-1), 0);
}

}  // namespace
}  // namespace nodewright::aws
