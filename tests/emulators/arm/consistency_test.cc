// What keeps the emulated cloud consistent across resources: inline children and their parent's
// operation, a vnet PUT that lists its subnets, group deletes and references from other groups,
// and the private addresses NICs get from their subnet.
#include <gtest/gtest.h>

#include "emulators/arm/arm_fixture.h"

namespace nodewright::emulators::arm {
namespace {

using namespace std::chrono_literals;
using testing::ArmFixture;
using testing::HttpsReply;

class ArmConsistencyTest : public ArmFixture {
 protected:
  static api::Json vnetBody(std::optional<api::Json> subnets = std::nullopt) {
    api::Json body = {{"location", "eastus"},
                      {"properties", {{"addressSpace", {{"addressPrefixes", {"10.0.0.0/16"}}}}}}};
    if (subnets) {
      body["properties"]["subnets"] = *subnets;
    }
    return body;
  }
  static api::Json subnet(std::string_view name, std::string_view prefix) {
    return {{"name", std::string(name)}, {"properties", {{"addressPrefix", std::string(prefix)}}}};
  }
  std::string address(std::string_view nic) {
    return call("GET", network("networkInterfaces/" + std::string(nic)))
        .json()["properties"]["ipConfigurations"][0]["properties"]
        .value("privateIPAddress", "");
  }
};

TEST_F(ArmConsistencyTest, InlineSubnetDeleteWaitsForTheVnetsOperation) {
  ASSERT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 201);
  HttpsReply put = call("PUT", network("virtualNetworks/vnet"),
                        vnetBody(api::Json::array({subnet("a", "10.0.1.0/24")})));
  ASSERT_EQ(put.status, 201) << put.body;
  HttpsReply del = call("DELETE", network("virtualNetworks/vnet/subnets/a"));
  EXPECT_EQ(del.status, 409);
  EXPECT_EQ(del.code(), "AnotherOperationInProgress");
  advance(4s);
  EXPECT_EQ(operationStatus(put), "Succeeded");
  EXPECT_EQ(state(network("virtualNetworks/vnet")), "Succeeded");
  EXPECT_EQ(state(network("virtualNetworks/vnet/subnets/a")), "Succeeded");
}

TEST_F(ArmConsistencyTest, VnetPutThatListsSubnetsDeletesTheOnesItLeavesOut) {
  createNetwork();  // subnet "default", used by a NIC
  ASSERT_EQ(call("PUT", network("virtualNetworks/vnet/subnets/spare"),
                 {{"properties", {{"addressPrefix", "10.0.2.0/24"}}}})
                .status,
            201);
  advance(3s);
  // Without the property the subnets stay (the SDKs' vnet-then-subnets flow, CAPZ).
  ASSERT_EQ(call("PUT", network("virtualNetworks/vnet"), vnetBody()).status, 200);
  advance(4s);
  EXPECT_EQ(state(network("virtualNetworks/vnet/subnets/spare")), "Succeeded");
  EXPECT_EQ(state(network("virtualNetworks/vnet/subnets/default")), "Succeeded");

  // Leaving out a subnet in use fails and changes nothing.
  HttpsReply inUse = call("PUT", network("virtualNetworks/vnet"), vnetBody(api::Json::array()));
  EXPECT_EQ(inUse.status, 400);
  EXPECT_EQ(inUse.code(), "InUseSubnetCannotBeDeleted");
  EXPECT_EQ(state(network("virtualNetworks/vnet")), "Succeeded");
  EXPECT_EQ(state(network("virtualNetworks/vnet/subnets/spare")), "Succeeded");

  HttpsReply listed = call("PUT", network("virtualNetworks/vnet"),
                           vnetBody(api::Json::array({subnet("default", "10.0.1.0/24")})));
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(state(network("virtualNetworks/vnet/subnets/spare")), "Deleting");
  advance(4s);
  EXPECT_EQ(call("GET", network("virtualNetworks/vnet/subnets/spare")).status, 404);
  EXPECT_EQ(state(network("virtualNetworks/vnet/subnets/default")), "Succeeded");
  api::Json vnet = call("GET", network("virtualNetworks/vnet")).json();
  ASSERT_EQ(vnet["properties"]["subnets"].size(), 1u);
  EXPECT_EQ(vnet["properties"]["subnets"][0]["name"], "default");
}

TEST_F(ArmConsistencyTest, GroupWhoseSubnetAnotherGroupUsesCannotBeDeleted) {
  createNetwork();
  ASSERT_EQ(call("PUT", group("rg2"), {{"location", "eastus"}}).status, 201);
  api::Json elsewhere = nicBody();
  elsewhere["location"] = "eastus";
  ASSERT_EQ(call("PUT", network("networkInterfaces/nic2", "rg2"), elsewhere).status, 201);
  advance(2s);
  HttpsReply refused = call("DELETE", group());
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.code(), "InUseSubnetCannotBeDeleted");
  EXPECT_EQ(state(group()), "Succeeded");
  EXPECT_EQ(state(network("virtualNetworks/vnet/subnets/default")), "Succeeded");

  ASSERT_EQ(call("DELETE", network("networkInterfaces/nic2", "rg2")).status, 202);
  // Users in the group itself go with it.
  EXPECT_EQ(call("DELETE", group()).status, 202);
}

TEST_F(ArmConsistencyTest, ChildDeleteAlreadyRunningEndsWithItsGroup) {
  createNetwork();
  ASSERT_EQ(call("PUT", compute("virtualMachines/vm"), vmBody()).status, 201);
  advance(45s);
  HttpsReply vm = call("DELETE", compute("virtualMachines/vm"));  // 30 s on its own
  ASSERT_EQ(vm.status, 202);
  HttpsReply rg = call("DELETE", group());  // 15 s
  ASSERT_EQ(rg.status, 202);
  EXPECT_EQ(call("DELETE", compute("virtualMachines/vm")).header("location"),
            rg.header("location"));
  advance(15s);
  EXPECT_EQ(follow(rg.header("location")).status, 204);
  EXPECT_EQ(call("GET", compute("virtualMachines/vm")).status, 404);
  EXPECT_EQ(follow(vm.header("location")).status, 204);
  EXPECT_EQ(operationStatus(vm), "Succeeded");
}

TEST_F(ArmConsistencyTest, NicAddressesComeFromTheSubnetRangeAndAreReused) {
  createNetwork();
  ASSERT_EQ(call("PUT", network("virtualNetworks/vnet/subnets/small"),
                 {{"properties", {{"addressPrefix", "10.0.2.0/29"}}}})
                .status,
            201);
  advance(3s);
  // A /29 has three addresses: Azure keeps .0 to .3 and the last one.
  for (const char* nic : {"a", "b", "c"}) {
    ASSERT_EQ(
        call("PUT", network(std::string("networkInterfaces/") + nic), nicBody("small")).status,
        201);
  }
  advance(2s);
  EXPECT_EQ(address("a"), "10.0.2.4");
  EXPECT_EQ(address("b"), "10.0.2.5");
  EXPECT_EQ(address("c"), "10.0.2.6");
  HttpsReply full = call("PUT", network("networkInterfaces/d"), nicBody("small"));
  EXPECT_EQ(full.status, 400);
  EXPECT_EQ(full.code(), "SubnetIsFull");

  // An update without privateIPAddress keeps the address.
  ASSERT_EQ(call("PUT", network("networkInterfaces/a"), nicBody("small")).status, 200);
  EXPECT_EQ(address("a"), "10.0.2.4");
  ASSERT_EQ(call("DELETE", network("networkInterfaces/b")).status, 202);
  EXPECT_EQ(call("PUT", network("networkInterfaces/d"), nicBody("small")).code(), "SubnetIsFull");
  advance(3s);
  ASSERT_EQ(call("PUT", network("networkInterfaces/d"), nicBody("small")).status, 201);
  EXPECT_EQ(address("d"), "10.0.2.5");
  EXPECT_EQ(address("nic"), "10.0.1.4");
}

}  // namespace
}  // namespace nodewright::emulators::arm
