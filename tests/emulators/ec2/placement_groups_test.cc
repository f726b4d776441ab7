// Placement groups in process: CreatePlacementGroup and DescribePlacementGroups (by name, id and
// filter), EC2's errors for a taken or unknown name, and launches whose Placement names a group
// (and a partition) or a tenancy, as DescribeInstances then reports them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "emulators/ec2/launch_fixture.h"

namespace nodewright::emulators::ec2 {
namespace {

using testing::LaunchWorld;
using testing::Xml;

class PlacementGroupsTest : public ::testing::Test {
 protected:
  std::string create(const std::string& name, const std::string& strategy,
                     const aws::ParamPairs& more = {}) {
    aws::ParamPairs p{{"GroupName", name}, {"Strategy", strategy}};
    p.insert(p.end(), more.begin(), more.end());
    Xml created = w_.ok("CreatePlacementGroup", p);
    return created.root().child("placementGroup").child_value("groupId");
  }

  // DescribeInstances of the one instance a RunInstances with `placement` launches.
  Xml launch(const aws::ParamPairs& placement) {
    aws::ParamPairs p = w_.runParams(1);
    p.insert(p.end(), placement.begin(), placement.end());
    Xml run = w_.ok("RunInstances", p);
    return w_.ok("DescribeInstances", {{"InstanceId.1", LaunchWorld::instanceIds(run).at(0)}});
  }
  static pugi::xml_node placementOf(const Xml& described) {
    return LaunchWorld::firstInstance(described).child("placement");
  }

  LaunchWorld w_;
};

TEST_F(PlacementGroupsTest, CreatedGroupsAreDescribedByNameIdAndFilter) {
  const std::string cluster = create("hpc", "cluster",
                                     {{"TagSpecification.1.ResourceType", "placement-group"},
                                      {"TagSpecification.1.Tag.1.Key", "team"},
                                      {"TagSpecification.1.Tag.1.Value", "ml"}});
  const std::string partition = create("kafka", "partition", {{"PartitionCount", "3"}});
  ASSERT_EQ(cluster.rfind("pg-", 0), 0u) << cluster;
  Xml byName = w_.ok("DescribePlacementGroups", {{"GroupName.1", "kafka"}});
  pugi::xml_node item = byName.root().child("placementGroupSet").child("item");
  EXPECT_STREQ(item.child_value("groupId"), partition.c_str());
  EXPECT_STREQ(item.child_value("strategy"), "partition");
  EXPECT_STREQ(item.child_value("partitionCount"), "3");
  EXPECT_STREQ(item.child_value("state"), "available");
  auto ids = [&](const aws::ParamPairs& request) {
    return Xml(*w_.call("DescribePlacementGroups", request)).texts("placementGroupSet", "groupId");
  };
  EXPECT_EQ(ids({{"GroupId.1", cluster}}), std::vector<std::string>{cluster});
  EXPECT_EQ(ids({{"Filter.1.Name", "strategy"}, {"Filter.1.Value.1", "cluster"}}),
            std::vector<std::string>{cluster});
  EXPECT_EQ(ids({{"Filter.1.Name", "tag:team"}, {"Filter.1.Value.1", "ml"}}),
            std::vector<std::string>{cluster});
  EXPECT_EQ(ids({{"Filter.1.Name", "state"}, {"Filter.1.Value.1", "available"}}).size(), 2u);
}

TEST_F(PlacementGroupsTest, ATakenOrUnknownNameIsEc2sError) {
  create("hpc", "cluster");
  EXPECT_EQ(w_.fails("CreatePlacementGroup", {{"GroupName", "hpc"}, {"Strategy", "spread"}}).code,
            "InvalidPlacementGroup.Duplicate");
  EXPECT_EQ(w_.fails("DescribePlacementGroups", {{"GroupName.1", "nope"}}).code,
            "InvalidPlacementGroup.Unknown");
  EXPECT_EQ(w_.fails("CreatePlacementGroup",
                     {{"GroupName", "p"}, {"Strategy", "cluster"}, {"PartitionCount", "2"}})
                .code,
            "InvalidParameterValue");
  w_.ok("DeletePlacementGroup", {{"GroupName", "hpc"}});
  EXPECT_EQ(w_.fails("DescribePlacementGroups", {{"GroupName.1", "hpc"}}).code,
            "InvalidPlacementGroup.Unknown");
}

TEST_F(PlacementGroupsTest, LaunchesRunInTheGroupAndPartitionThePlacementNames) {
  const std::string cluster = create("hpc", "cluster");
  const std::string partition = create("kafka", "partition", {{"PartitionCount", "2"}});
  const Xml inCluster = launch({{"Placement.GroupId", cluster}});
  EXPECT_STREQ(placementOf(inCluster).child_value("groupName"), "hpc");
  EXPECT_STREQ(placementOf(inCluster).child_value("groupId"), cluster.c_str());
  EXPECT_FALSE(placementOf(inCluster).child("partitionNumber"));

  const Xml second = launch({{"Placement.GroupName", "kafka"}, {"Placement.PartitionNumber", "2"}});
  EXPECT_STREQ(placementOf(second).child_value("groupId"), partition.c_str());
  EXPECT_STREQ(placementOf(second).child_value("partitionNumber"), "2");
  // Without a number EC2 picks the emptiest partition.
  const Xml chosen = launch({{"Placement.GroupId", partition}});
  EXPECT_STREQ(placementOf(chosen).child_value("partitionNumber"), "1");

  EXPECT_EQ(w_.fails("RunInstances",
                     [&] {
                       aws::ParamPairs p = w_.runParams(1);
                       p.emplace_back("Placement.GroupName", "nope");
                       return p;
                     }())
                .code,
            "InvalidPlacementGroup.Unknown");
  EXPECT_EQ(w_.fails("RunInstances",
                     [&] {
                       aws::ParamPairs p = w_.runParams(1);
                       p.emplace_back("Placement.GroupId", partition);
                       p.emplace_back("Placement.PartitionNumber", "3");
                       return p;
                     }())
                .code,
            "InvalidParameterValue");
}

TEST_F(PlacementGroupsTest, ADedicatedLaunchIsDescribedDedicated) {
  const Xml described = launch({{"Placement.Tenancy", "dedicated"}});
  EXPECT_STREQ(placementOf(described).child_value("tenancy"), "dedicated");
  Xml filtered =
      w_.ok("DescribeInstances", {{"Filter.1.Name", "tenancy"}, {"Filter.1.Value.1", "dedicated"}});
  EXPECT_STREQ(LaunchWorld::firstInstance(filtered).child("placement").child_value("tenancy"),
               "dedicated");
}

}  // namespace
}  // namespace nodewright::emulators::ec2
