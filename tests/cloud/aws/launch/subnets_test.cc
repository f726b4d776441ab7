// Which subnet a launch uses in each zone.
#include "cloud/aws/launch/subnets.h"

#include <gtest/gtest.h>

#include "cloud/aws/launch/fleet.h"

namespace nodewright::cloud::aws {
namespace {

sdk::Subnet subnet(const std::string& id, const std::string& zone, int64_t free) {
  sdk::Subnet s;
  s.subnetId = id;
  s.availabilityZone = zone;
  s.availableIpAddressCount = free;
  return s;
}

TEST(RoomiestSubnetTest, MostFreeAddressesInTheZoneLowerIdOnTies) {
  std::vector<sdk::Subnet> subnets = {subnet("subnet-2", "a", 10), subnet("subnet-1", "a", 10),
                                      subnet("subnet-3", "b", 99)};
  EXPECT_EQ(roomiestSubnet(subnets, "a")->subnetId, "subnet-1");
  EXPECT_EQ(roomiestSubnet(subnets, "b")->subnetId, "subnet-3");
  EXPECT_EQ(roomiestSubnet(subnets, "c"), nullptr);
}

TEST(SubnetByZoneTest, TheRoomiestSubnetOfEachZoneTheClaimAllows) {
  std::vector<sdk::Subnet> subnets = {
      subnet("subnet-a1", "us-east-1a", 5), subnet("subnet-a2", "us-east-1a", 50),
      subnet("subnet-b1", "us-east-1b", 7), subnet("subnet-c1", "us-east-1c", 9)};
  api::karpenter::NodeClaim any;
  EXPECT_EQ(
      subnetByZone(subnets, any),
      (std::map<std::string, std::string>{
          {"us-east-1a", "subnet-a2"}, {"us-east-1b", "subnet-b1"}, {"us-east-1c", "subnet-c1"}}));

  api::karpenter::NodeClaim zonal;
  zonal.spec.requirements.push_back({kLabelZone, "NotIn", {"us-east-1a", "us-east-1c"}, {}});
  EXPECT_EQ(subnetByZone(subnets, zonal),
            (std::map<std::string, std::string>{{"us-east-1b", "subnet-b1"}}));
}

}  // namespace
}  // namespace nodewright::cloud::aws
