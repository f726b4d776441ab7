// An unset deviceIndex is 0 (the schema's default) in every place that numbers interfaces: the
// launch template, the node class status and drift. On main the last three used the entry's list
// position, so a node class that validation called "primary first" launched as something else.
#include "cloud/aws/networkinterface/slot.h"

#include <gtest/gtest.h>

#include "api/karpenter/hashing.h"
#include "cloud/aws/drift/node_class_drift.h"
#include "cloud/aws/launch/network_interfaces.h"
#include "cloud/aws/nodeclass/status.h"

namespace nodewright::cloud::aws {
namespace {

using api::karpenter::EC2NodeClass;
using api::karpenter::NetworkInterface;

sdk::SecurityGroup group(const std::string& id) {
  sdk::SecurityGroup g;
  g.groupId = id;
  return g;
}

// A secondary listed first (device 1) and, second in the list, an entry with no deviceIndex:
// the primary by the schema's default, at position 1 by the list.
class UnsetDeviceIndexTest : public ::testing::Test {
 protected:
  UnsetDeviceIndexTest() {
    NetworkInterface secondary;
    secondary.deviceIndex = 1;
    secondary.description = "secondary";
    NetworkInterface primary;
    primary.description = "primary";
    api::karpenter::SubnetSelectorTerm own;
    own.id = "subnet-own";
    primary.subnetSelectorTerms = {own};
    nodeClass_.metadata.name = "default";
    nodeClass_.spec.networkInterfaces = {secondary, primary};
    resolved_.securityGroups = {group("sg-1")};
    sdk::Subnet subnet;
    subnet.subnetId = "subnet-own";
    subnet.availabilityZone = "us-east-1a";
    resolved_.interfaces = {ResolvedInterface{{}, {group("sg-1")}, false, false},
                            ResolvedInterface{{subnet}, {group("sg-1")}, true, false}};
  }

  EC2NodeClass nodeClass_;
  ResolvedNodeClass resolved_;
};

TEST_F(UnsetDeviceIndexTest, SlotOfReadsUnsetIndexesAsZero) {
  EXPECT_EQ(slotOf(NetworkInterface{}), (InterfaceSlot{0, 0}));
  NetworkInterface set;
  set.networkCardIndex = 2;
  set.deviceIndex = 1;
  EXPECT_EQ(slotOf(set), (InterfaceSlot{2, 1}));
}

TEST_F(UnsetDeviceIndexTest, TheLaunchTemplateMakesItThePrimary) {
  auto built = buildNetworkInterfaces(nodeClass_.spec, resolved_, {});
  ASSERT_TRUE(built) << built.error().message();
  ASSERT_EQ(built->size(), 2u);
  EXPECT_EQ((*built)[0].description, "primary");
  EXPECT_EQ((*built)[0].deviceIndex, 0);
  EXPECT_EQ((*built)[1].description, "secondary");
  EXPECT_EQ((*built)[1].deviceIndex, 1);
}

TEST_F(UnsetDeviceIndexTest, TheStatusKeysItAtDeviceZero) {
  const auto statuses = nodeclass::interfaceStatuses(resolved_, nodeClass_.spec);
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_EQ(statuses[0].networkCardIndex, 0);
  EXPECT_EQ(statuses[0].deviceIndex, 0);
}

TEST_F(UnsetDeviceIndexTest, DriftMatchesItAtDeviceZero) {
  const auto context =
      nodeClassDriftContext(nodeClass_, api::karpenter::defaultHashPolicy());
  ASSERT_EQ(context.interfaces.size(), 2u);
  EXPECT_EQ(context.interfaces[0].deviceIndex, 1);
  EXPECT_EQ(context.interfaces[1].deviceIndex, 0);
  EXPECT_EQ(context.interfaces[1].networkCardIndex, 0);
}

TEST_F(UnsetDeviceIndexTest, TwoUnsetEntriesOnOneCardAreTheSameSlot) {
  nodeClass_.spec.networkInterfaces[0].deviceIndex.reset();
  resolved_.interfaces[1].ownSubnets = false;
  auto built = buildNetworkInterfaces(nodeClass_.spec, resolved_, {});
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().message(),
            "spec.networkInterfaces[1].deviceIndex: device 0 on network card 0 is taken by "
            "spec.networkInterfaces[0]");
}

}  // namespace
}  // namespace nodewright::cloud::aws
