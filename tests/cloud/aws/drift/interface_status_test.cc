// status.networkInterfaces: what drift compares each interface with selectors of its own to.
#include <gtest/gtest.h>

#include "api/codec.h"
#include "cloud/aws/nodeclass/status.h"

namespace nodewright::cloud::aws {
namespace {

using api::karpenter::EC2NodeClassSpec;
using api::karpenter::NetworkInterface;

sdk::Subnet subnet(const std::string& id, const std::string& zone) {
  sdk::Subnet s;
  s.subnetId = id;
  s.availabilityZone = zone;
  s.availabilityZoneId = zone + "-id";
  return s;
}

sdk::SecurityGroup group(const std::string& id) {
  sdk::SecurityGroup g;
  g.groupId = id;
  g.groupName = id + "-name";
  return g;
}

TEST(InterfaceStatusTest, ListsOnlyInterfacesWithOwnSelectorsKeyedAsTheTemplateNumbersThem) {
  EC2NodeClassSpec spec;
  spec.networkInterfaces.resize(4);
  // 0: the node class's subnets and groups; 1: own subnets at device 1; 2: own groups on card 1
  // (device unset: 0); 3: both.
  spec.networkInterfaces[1].deviceIndex = 1;
  spec.networkInterfaces[2].networkCardIndex = 1;
  spec.networkInterfaces[3].deviceIndex = 7;
  ResolvedNodeClass resolved;
  resolved.interfaces.resize(4);
  resolved.interfaces[0].subnets = {subnet("subnet-class", "a")};
  resolved.interfaces[0].securityGroups = {group("sg-class")};
  resolved.interfaces[1].ownSubnets = true;
  resolved.interfaces[1].subnets = {subnet("subnet-1", "a"), subnet("subnet-2", "b")};
  resolved.interfaces[1].securityGroups = {group("sg-class")};
  resolved.interfaces[2].ownSecurityGroups = true;
  resolved.interfaces[2].subnets = {subnet("subnet-class", "a")};
  resolved.interfaces[2].securityGroups = {group("sg-2")};
  resolved.interfaces[3].ownSubnets = true;
  resolved.interfaces[3].ownSecurityGroups = true;
  resolved.interfaces[3].subnets = {subnet("subnet-3", "c")};

  const auto statuses = nodeclass::interfaceStatuses(resolved, spec);
  // Zero indices are left out of the JSON, as every empty field is.
  EXPECT_EQ(
      api::dumpJson(api::toJson(statuses)),
      R"([{"deviceIndex":1,"subnets":[{"id":"subnet-1","zone":"a","zoneID":"a-id"},{"id":"subnet-2","zone":"b","zoneID":"b-id"}]},)"
      R"({"networkCardIndex":1,"securityGroups":[{"id":"sg-2","name":"sg-2-name"}]},)"
      R"({"deviceIndex":7,"subnets":[{"id":"subnet-3","zone":"c","zoneID":"c-id"}]}])");
}

TEST(InterfaceStatusTest, WriteStatusRecordsThem) {
  api::karpenter::EC2NodeClass nc;
  NetworkInterface ni;
  api::karpenter::SubnetSelectorTerm term;
  term.id = "subnet-1";
  ni.subnetSelectorTerms = {term};
  nc.spec.networkInterfaces = {ni};
  ResolvedNodeClass resolved;
  resolved.interfaces.resize(1);
  resolved.interfaces[0].ownSubnets = true;
  resolved.interfaces[0].subnets = {subnet("subnet-1", "a")};
  nodeclass::writeStatus(resolved, nc, {}, core::TimePoint{});
  ASSERT_EQ(resolved.status.networkInterfaces.size(), 1u);
  EXPECT_EQ(resolved.status.networkInterfaces[0].deviceIndex, 0);
  ASSERT_EQ(resolved.status.networkInterfaces[0].subnets.size(), 1u);
  EXPECT_EQ(resolved.status.networkInterfaces[0].subnets[0].id, "subnet-1");
}

TEST(InterfaceStatusTest, TheStatusRoundTripsThroughJson) {
  api::karpenter::EC2NodeClassStatus status;
  api::karpenter::NetworkInterfaceStatus ni;
  ni.networkCardIndex = 1;
  ni.deviceIndex = 2;
  ni.subnets = {{"subnet-1", "us-east-1a", "use1-az1"}};
  ni.securityGroups = {{"sg-1", "nodes"}};
  status.networkInterfaces = {ni};
  api::karpenter::EC2NodeClassStatus decoded;
  EXPECT_TRUE(api::decodeJson(api::toJson(status), decoded).empty());
  EXPECT_EQ(api::toJson(decoded), api::toJson(status));
  EXPECT_EQ(decoded.networkInterfaces.at(0).deviceIndex, 2);
}

}  // namespace
}  // namespace nodewright::cloud::aws
