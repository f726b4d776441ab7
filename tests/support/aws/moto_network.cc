#include "support/aws/moto_network.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace nodewright::aws::testing {
namespace {

std::string firstText(emulators::testing::QueryClient& wire, std::string_view action,
                      const ParamPairs& params, const char* name) {
  auto r = wire.call(action, params);
  EXPECT_TRUE(r) << action << ": " << r.error().message();
  EXPECT_EQ(r ? r->status : 0, 200) << action << ": " << (r ? r->body : "");
  return r ? r->firstText(name) : "";
}

}  // namespace

MotoNetwork createMotoNetwork(emulators::testing::QueryClient& wire, const std::string& cluster,
                              int octet) {
  MotoNetwork n;
  n.vpc =
      firstText(wire, "CreateVpc", {{"CidrBlock", fmt::format("10.{}.0.0/16", octet)}}, "vpcId");
  for (const char* zone : {"us-east-1a", "us-east-1b"}) {
    n.subnets.push_back(
        firstText(wire, "CreateSubnet",
                  {{"VpcId", n.vpc},
                   {"AvailabilityZone", zone},
                   {"CidrBlock", fmt::format("10.{}.{}.0/24", octet, n.subnets.size())}},
                  "subnetId"));
  }
  n.group =
      firstText(wire, "CreateSecurityGroup",
                {{"GroupName", cluster + "-node"}, {"GroupDescription", "nodes"}, {"VpcId", n.vpc}},
                "groupId");
  ParamPairs tags = {{"Tag.1.Key", "karpenter.sh/discovery"}, {"Tag.1.Value", cluster}};
  int i = 1;
  for (const std::string& id : {n.subnets[0], n.subnets[1], n.group}) {
    tags.emplace_back(fmt::format("ResourceId.{}", i++), id);
  }
  firstText(wire, "CreateTags", tags, "return");
  auto images = wire.call(
      "DescribeImages",
      {{"Owner.1", "amazon"}, {"Filter.1.Name", "architecture"}, {"Filter.1.Value.1", "x86_64"}});
  EXPECT_TRUE(images && images->status == 200) << (images ? images->body : "");
  if (images) {
    n.imageId = images->firstText("imageId");
    n.imageName = images->firstText("name");
  }
  EXPECT_FALSE(n.imageId.empty()) << "moto owns no x86_64 image";
  return n;
}

}  // namespace nodewright::aws::testing
