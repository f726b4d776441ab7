// The ARM emulator's state file over the wire: resources, operations in flight and the indexes
// behind cascading deletes and in-use checks are there after a restart.
#include <gtest/gtest.h>

#include "emulators/arm/arm_fixture.h"
#include "support/emulators/state_dir.h"

namespace nodewright::emulators::arm {
namespace {

using namespace std::chrono_literals;
using testing::ArmFixture;
using testing::HttpsReply;

class ArmStateTest : public ArmFixture {
 protected:
  // Before dir_ goes: the last save writes into it.
  void TearDown() override {
    if (server_) {
      server_->stop();
    }
  }
  ArmEmulatorOptions options() override {
    ArmEmulatorOptions o = ArmFixture::options();
    o.stateFile = stateFile();
    return o;
  }
  std::string stateFile() const { return dir_.file("arm-state.json"); }

  // A new server (new port, new CA, new token) on the same state file and clock.
  void restart() {
    server_->stop();
    server_.reset();
    start(options());
  }
  // An async-operation URL of the previous server, on the current one.
  std::string rebased(const std::string& url) const {
    const size_t path = url.find("/subscriptions/");
    return path == std::string::npos ? url : server_->url() + url.substr(path);
  }
  api::Json publicIp() {
    return {{"location", "eastus"},
            {"sku", {{"name", "Standard"}}},
            {"properties", {{"publicIPAllocationMethod", "Static"}}}};
  }

  emulators::testing::StateDir dir_;
};

TEST_F(ArmStateTest, RestartMidOperationKeepsResourcesOperationsAndIndexes) {
  createNetwork();
  HttpsReply ip = call("PUT", network("publicIPAddresses/ip1"), publicIp());
  ASSERT_EQ(ip.status, 201) << ip.body;
  advance(10s);
  HttpsReply vm = call("PUT", compute("virtualMachines/vm"), vmBody());  // 45 s
  ASSERT_EQ(vm.status, 201) << vm.body;
  advance(20s);
  const api::Json nic = call("GET", network("networkInterfaces/nic")).json();
  const api::Json vmBefore = call("GET", compute("virtualMachines/vm")).json();

  restart();
  const std::string status = rebased(vm.header("azure-asyncoperation"));
  HttpsReply running = follow(status);
  EXPECT_EQ(running.status, 200) << running.body;
  EXPECT_EQ(running.json()["status"], "InProgress");
  EXPECT_EQ(call("GET", network("networkInterfaces/nic")).json(), nic);
  EXPECT_EQ(call("GET", compute("virtualMachines/vm")).json(), vmBefore);
  EXPECT_EQ(state(compute("virtualMachines/vm")), "Creating");
  advance(25s);
  EXPECT_EQ(follow(status).json()["status"], "Succeeded");
  EXPECT_EQ(state(compute("virtualMachines/vm")), "Succeeded");

  // New public addresses continue where the old server stopped.
  HttpsReply ip2 = call("PUT", network("publicIPAddresses/ip2"), publicIp());
  ASSERT_EQ(ip2.status, 201) << ip2.body;
  EXPECT_NE(ip2.json()["properties"].value("ipAddress", ""),
            ip.json()["properties"].value("ipAddress", ""));

  // The reference index: the NIC still holds its subnet.
  HttpsReply inUse = call("DELETE", network("virtualNetworks/vnet/subnets/default"));
  EXPECT_EQ(inUse.status, 400);
  EXPECT_EQ(inUse.code(), "InUseSubnetCannotBeDeleted");

  // The containment index: the group's delete takes everything in it.
  HttpsReply deleted = call("DELETE", group());
  ASSERT_EQ(deleted.status, 202) << deleted.body;
  restart();
  advance(15s);
  EXPECT_EQ(follow(rebased(deleted.header("location"))).status, 204);
  for (const std::string& path :
       {compute("virtualMachines/vm"), network("networkInterfaces/nic"),
        network("virtualNetworks/vnet"), network("publicIPAddresses/ip1"), group()}) {
    EXPECT_EQ(call("GET", path).status, 404) << path;
  }
}

TEST_F(ArmStateTest, DeleteStartedAfterARestartCascades) {
  createNetwork();
  ASSERT_EQ(call("PUT", compute("virtualMachines/vm"), vmBody()).status, 201);
  advance(45s);
  restart();
  HttpsReply deleted = call("DELETE", group());
  ASSERT_EQ(deleted.status, 202) << deleted.body;
  EXPECT_EQ(state(compute("virtualMachines/vm")), "Deleting");
  advance(15s);
  EXPECT_EQ(follow(deleted.header("location")).status, 204);
  EXPECT_EQ(call("GET", compute("virtualMachines/vm")).status, 404);
  EXPECT_EQ(call("GET", network("virtualNetworks/vnet/subnets/default")).status, 404);
}

TEST_F(ArmStateTest, CorruptStateFileFailsTheStartNamingTheFile) {
  createNetwork();
  server_->stop();
  server_.reset();
  emulators::testing::writeWhole(stateFile(), "{\"format\": \"nodewright-arm-emulator-state\"");
  auto failed = ArmServer::start(clock_, options());
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message().find(stateFile()), std::string::npos)
      << failed.error().message();
  EXPECT_EQ(emulators::testing::readWhole(stateFile()),
            "{\"format\": \"nodewright-arm-emulator-state\"");
}

}  // namespace
}  // namespace nodewright::emulators::arm
