// A scale set's instances: numbered by the scale set, kept through PUTs of an instance, and
// created or deleted by capacity changes with operations a client can follow.
#include <gtest/gtest.h>

#include "emulators/arm/arm_fixture.h"

namespace nodewright::emulators::arm {
namespace {

using namespace std::chrono_literals;
using testing::ArmFixture;
using testing::HttpsReply;

class ArmScaleSetTest : public ArmFixture {
 protected:
  static std::string instance(std::string_view id) {
    return compute("virtualMachineScaleSets/pool/virtualMachines/" + std::string(id));
  }
};

TEST_F(ArmScaleSetTest, InstancePutWithoutReadOnlyFieldsKeepsThemAndTheScaleSetWorking) {
  createNetwork();
  ASSERT_EQ(call("PUT", compute("virtualMachineScaleSets/pool"), vmssBody(2)).status, 201);
  advance(60s);
  api::Json before = call("GET", instance("1")).json();
  ASSERT_EQ(before["instanceId"], "1");
  // What an SDK sends: no instanceId, name, vmId or computerName (all read-only).
  HttpsReply put =
      call("PUT", instance("1"),
           {{"location", "eastus"}, {"properties", {{"osProfile", {{"adminUsername", "capi"}}}}}});
  ASSERT_EQ(put.status, 200) << put.body;
  advance(30s);
  api::Json after = call("GET", instance("1")).json();
  EXPECT_EQ(after["instanceId"], "1");
  EXPECT_EQ(after["name"], "pool_1");
  EXPECT_EQ(after["properties"]["vmId"], before["properties"]["vmId"]);
  EXPECT_EQ(after["properties"]["osProfile"]["computerName"], "pool000001");
  EXPECT_EQ(after["properties"]["provisioningState"], "Succeeded");

  HttpsReply grow = call("PUT", compute("virtualMachineScaleSets/pool"), vmssBody(3));
  ASSERT_EQ(grow.status, 200) << grow.body;
  // An instance added to an existing scale set is being created, not updated.
  EXPECT_EQ(state(instance("2")), "Creating");
  EXPECT_EQ(state(instance("1")), "Succeeded");
  advance(60s);
  EXPECT_EQ(operationStatus(grow), "Succeeded");
  EXPECT_EQ(state(instance("2")), "Succeeded");
  HttpsReply shrink = call("PATCH", compute("virtualMachineScaleSets/pool"),
                           {{"sku", {{"name", "Standard_D2s_v3"}, {"capacity", 1}}}});
  ASSERT_EQ(shrink.status, 200) << shrink.body;
  EXPECT_EQ(state(instance("1")), "Deleting");
  EXPECT_EQ(state(instance("0")), "Succeeded");
}

TEST_F(ArmScaleSetTest, ScaledInInstancesAreDeletedByTheirOwnOperation) {
  createNetwork();
  ASSERT_EQ(call("PUT", compute("virtualMachineScaleSets/pool"), vmssBody(3)).status, 201);
  advance(60s);
  ASSERT_EQ(call("PUT", compute("virtualMachineScaleSets/pool"), vmssBody(1)).status, 200);
  EXPECT_EQ(state(instance("2")), "Deleting");
  // A client deleting the instance follows a delete in progress, not the finished create.
  HttpsReply del = call("DELETE", instance("2"));
  ASSERT_EQ(del.status, 202) << del.body;
  ASSERT_TRUE(del.has("location"));
  ASSERT_TRUE(del.has("retry-after"));
  EXPECT_EQ(follow(del.header("location")).status, 202);
  EXPECT_EQ(operationStatus(del), "InProgress");
  advance(60s);
  EXPECT_EQ(follow(del.header("location")).status, 204);
  EXPECT_EQ(operationStatus(del), "Succeeded");
  EXPECT_EQ(call("GET", instance("2")).status, 404);
  EXPECT_EQ(call("GET", instance("1")).status, 404);
  EXPECT_EQ(state(instance("0")), "Succeeded");
}

TEST_F(ArmScaleSetTest, InstanceDeleteWaitsForTheScaleSetsOperation) {
  createNetwork();
  HttpsReply create = call("PUT", compute("virtualMachineScaleSets/pool"), vmssBody(2));
  ASSERT_EQ(create.status, 201);
  // The instance shares the scale set's operation: deleting it must not cancel that.
  HttpsReply del = call("DELETE", instance("0"));
  EXPECT_EQ(del.status, 409);
  EXPECT_EQ(del.code(), "AnotherOperationInProgress");
  advance(60s);
  EXPECT_EQ(operationStatus(create), "Succeeded");
  EXPECT_EQ(state(compute("virtualMachineScaleSets/pool")), "Succeeded");
  EXPECT_EQ(call("DELETE", instance("0")).status, 202);
}

}  // namespace
}  // namespace nodewright::emulators::arm
