#include "cloud/azure/scale_set_instances.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "arm_fixture.h"

// listScaleSetInstances against the ARM emulator over HTTPS: the instances ARM keeps for a
// scale set's sku.capacity, and the errors callers branch on.
namespace nodewright::cloud::azure::armtest {
namespace {

const std::string kScaleSetId =
    kRgId + "/providers/Microsoft.Compute/virtualMachineScaleSets/pool0";
const std::string kSubnetId = kVnetId + "/subnets/nodes";

api::Json scaleSetBody(int capacity) {
  const api::Json ipConfig = {{"name", "ip"}, {"properties", {{"subnet", {{"id", kSubnetId}}}}}};
  const api::Json nic = {{"name", "nic"},
                         {"properties", {{"ipConfigurations", api::Json::array({ipConfig})}}}};
  return {
      {"location", "eastus"},
      {"sku", {{"name", "Standard_D2s_v3"}, {"tier", "Standard"}, {"capacity", capacity}}},
      {"properties",
       {{"virtualMachineProfile",
         {{"osProfile", {{"computerNamePrefix", "pool0"}, {"adminUsername", "capi"}}},
          {"networkProfile", {{"networkInterfaceConfigurations", api::Json::array({nic})}}}}}}}};
}

class ScaleSetInstancesTest : public ArmEmulatorFixture {
 protected:
  void createNetwork() {
    createResourceGroup();
    create(kVnetId, "virtualnetworks", vnetBody());
    create(kSubnetId, "subnets", {{"properties", {{"addressPrefix", "10.0.1.0/24"}}}});
  }
};

TEST_F(ScaleSetInstancesTest, ListsEveryInstanceOfTheScaleSet) {
  createNetwork();
  const lro::OpState created = create(kScaleSetId, "scalesets", scaleSetBody(3));
  ASSERT_TRUE(created.done());

  auto instances = listScaleSetInstances(*client_, kScaleSetId, kCall);
  ASSERT_TRUE(instances.has_value()) << instances.error().message();
  ASSERT_EQ(instances->size(), 3u);
  std::set<std::string> ids;
  for (const api::Json& instance : *instances) {
    ids.insert(instance.value("instanceId", ""));
    EXPECT_EQ(instance.value("id", "").rfind(kScaleSetId + "/virtualMachines/", 0), 0u)
        << instance.dump();
  }
  EXPECT_EQ(ids, (std::set<std::string>{"0", "1", "2"}));
}

TEST_F(ScaleSetInstancesTest, FollowsTheScaleSetsCapacity) {
  createNetwork();
  create(kScaleSetId, "scalesets", scaleSetBody(3));
  create(kScaleSetId, "scalesets", scaleSetBody(1));

  auto instances = listScaleSetInstances(*client_, kScaleSetId, kCall);
  ASSERT_TRUE(instances.has_value()) << instances.error().message();
  EXPECT_EQ(instances->size(), 1u);
}

TEST_F(ScaleSetInstancesTest, NotFoundWhenTheScaleSetDoesNotExist) {
  createNetwork();
  auto instances = listScaleSetInstances(*client_, kScaleSetId, kCall);
  ASSERT_FALSE(instances.has_value());
  EXPECT_TRUE(instances.error().is(core::Code::NotFound)) << instances.error().message();
}

TEST_F(ScaleSetInstancesTest, RefusesAnIdThatIsNotAScaleSet) {
  createNetwork();
  auto instances = listScaleSetInstances(*client_, kVnetId, kCall);
  ASSERT_FALSE(instances.has_value());
  EXPECT_TRUE(instances.error().is(core::Code::Invalid)) << instances.error().message();
}

TEST_F(ScaleSetInstancesTest, ListAnswersTheCollectionOfAnyKnownType) {
  createNetwork();
  auto subnets = client_->list(kVnetId + "/subnets", kCall);
  ASSERT_TRUE(subnets.has_value()) << subnets.error().message;
  ASSERT_EQ(subnets->size(), 1u);
  EXPECT_EQ((*subnets)[0].value("name", ""), "nodes");
}

}  // namespace
}  // namespace nodewright::cloud::azure::armtest
