// Placement groups as Karpenter v1.14 uses them: spec.placementGroupSelector resolves to an
// available group (PlacementGroupReady False, PlacementGroupNotFound, when none), launches put
// the group (and the partition the claim asks for) in the launch template's Placement, and the
// machine carries placement-group-id and -partition as EC2 reports them.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cloud/aws/instance/instance_fixture.h"
#include "cloud/aws/launch/plan.h"
#include "cloud/aws/nodeclass/lookup.h"
#include "cloud/aws/nodeclass/status.h"

namespace nodewright::cloud::aws {
namespace {

class PlacementGroupTest : public testing::InstanceProviderFixture {
 protected:
  void createGroup(const std::string& name, const std::string& strategy, int partitions = 0) {
    sdk::ParamPairs params{{"GroupName", name}, {"Strategy", strategy}};
    if (partitions > 0) {
      params.emplace_back("PartitionCount", std::to_string(partitions));
    }
    auto created = peer_.wire().call("CreatePlacementGroup", params);
    ASSERT_TRUE(created) << created.error().message();
    ASSERT_EQ(created->status, 200) << created->body;
  }

  std::optional<sdk::PlacementGroup> find(const std::string& name) {
    api::karpenter::PlacementGroupSelector selector;
    selector.name = name;
    auto found = nodeclass::findPlacementGroup(peer_.ec2(), selector);
    EXPECT_TRUE(found) << found.error().message();
    return found ? *found : std::nullopt;
  }

  // The Placement.* parameters of the last CreateLaunchTemplate.
  std::map<std::string, std::string> lastPlacement() {
    std::map<std::string, std::string> out;
    const auto requests = peer_.sentRequests("CreateLaunchTemplate");
    if (requests.empty()) {
      return out;
    }
    for (const auto& [k, v] : requests.back()) {
      if (k.starts_with("LaunchTemplateData.Placement.")) {
        out[k.substr(std::string("LaunchTemplateData.Placement.").size())] = v;
      }
    }
    return out;
  }
};

TEST_F(PlacementGroupTest, TheSelectorFindsAnAvailableGroupOrReportsItNotFound) {
  createGroup("hpc", "cluster");
  auto group = find("hpc");
  ASSERT_TRUE(group);
  EXPECT_TRUE(group->groupId.starts_with("pg-")) << group->groupId;
  EXPECT_EQ(group->strategy, "cluster");
  EXPECT_FALSE(find("nope"));

  auto readiness = [](const ResolvedNodeClass& r) {
    for (const auto& v : nodeclass::verdicts(r, "")) {
      if (v.type == nodeclass::kPlacementGroupReady) {
        return v.status + " " + v.reason + " " + v.message;
      }
    }
    return std::string("missing");
  };
  ResolvedNodeClass resolved = resolved_;
  EXPECT_EQ(readiness(resolved), "True PlacementGroupReady ");
  resolved.placementGroupSelector = "nope";
  EXPECT_EQ(readiness(resolved), "False PlacementGroupNotFound Placement group \"nope\" not found");
  resolved.placementGroupSelector = "hpc";
  resolved.placementGroup = group;
  EXPECT_EQ(readiness(resolved).substr(0, 4), "True");
}

TEST_F(PlacementGroupTest, LaunchesIntoTheGroupAndThePartitionTheClaimAsks) {
  createGroup("kafka", "partition", 3);
  resolved_.placementGroupSelector = "kafka";
  resolved_.placementGroup = find("kafka");
  ASSERT_TRUE(resolved_.placementGroup);
  const std::string id = resolved_.placementGroup->groupId;

  auto c = claim("kafka-a");
  c.spec.requirements.push_back(
      {"karpenter.k8s.aws/placement-group-partition", "In", {"3", "2"}, {}});
  EXPECT_EQ(launchPartition(c), 2);
  auto launched = launch(c);
  ASSERT_TRUE(launched) << launched.error().message();
  EXPECT_EQ(lastPlacement(),
            (std::map<std::string, std::string>{
                {"GroupId", id}, {"PartitionNumber", "2"}, {"Tenancy", "default"}}));
  auto described = instances_->get(launched->instanceId);
  ASSERT_TRUE(described) << described.error().message();
  EXPECT_EQ(described->placementGroupId, id);
  EXPECT_EQ(described->partitionNumber, 2);
  const Machine m = toMachine(*described);
  EXPECT_EQ(m.labels.at("karpenter.k8s.aws/placement-group-id"), id);
  EXPECT_EQ(m.labels.at("karpenter.k8s.aws/placement-group-partition"), "2");

  // Without a partition requirement EC2 chooses; DescribeInstances tells which.
  auto any = launch(claim("kafka-b"));
  ASSERT_TRUE(any) << any.error().message();
  EXPECT_EQ(lastPlacement().count("PartitionNumber"), 0u);
  described = instances_->get(any->instanceId);
  ASSERT_TRUE(described) << described.error().message();
  ASSERT_TRUE(described->partitionNumber.has_value());
  EXPECT_NE(*described->partitionNumber, 2);
}

}  // namespace
}  // namespace nodewright::cloud::aws
