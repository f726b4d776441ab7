// What makes the emulator behave like ARM rather than a key-value store: references, resources
// in use, cascading group deletes, throttling, injected failures, and many operations at once.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "core/text.h"
#include "emulators/arm/arm_fixture.h"

namespace nodewright::emulators::arm {
namespace {

using namespace std::chrono_literals;
using testing::ArmFixture;
using testing::HttpsClient;
using testing::HttpsReply;
using testing::kSub;

class ArmRealismTest : public ArmFixture {
 protected:
  void putFaults(const std::string& json) {
    HttpsReply r = client_->send("PUT", server_->url() + "/admin/faults", json);
    ASSERT_EQ(r.status, 200) << r.body;
  }
};

TEST_F(ArmRealismTest, ReferencesMustExist) {
  ASSERT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 201);
  HttpsReply orphan = call("PUT", network("virtualNetworks/none/subnets/s"),
                           {{"properties", {{"addressPrefix", "10.0.1.0/24"}}}});
  EXPECT_EQ(orphan.status, 404);
  EXPECT_EQ(orphan.code(), "ParentResourceNotFound");
  HttpsReply nic = call("PUT", network("networkInterfaces/nic"), nicBody("missing"));
  EXPECT_EQ(nic.status, 400);
  EXPECT_EQ(nic.code(), "InvalidResourceReference");
  HttpsReply vm = call("PUT", compute("virtualMachines/vm"), vmBody("missing"));
  EXPECT_EQ(vm.code(), "InvalidResourceReference");
  api::Json noNics = vmBody();
  noNics["properties"].erase("networkProfile");
  EXPECT_EQ(call("PUT", compute("virtualMachines/vm"), noNics).code(), "InvalidParameter");
  api::Json badId = nicBody();
  badId["properties"]["ipConfigurations"][0]["properties"]["subnet"]["id"] = "subnet-1";
  EXPECT_EQ(call("PUT", network("networkInterfaces/nic"), badId).code(), "LinkedInvalidPropertyId");
  EXPECT_EQ(call("PUT", network("virtualNetworks/v", "nogroup"), {{"location", "eastus"}}).code(),
            "ResourceGroupNotFound");
  EXPECT_EQ(call("GET", network("virtualNetworks/none")).code(), "ResourceNotFound");
  EXPECT_EQ(call("GET", network("widgets/w")).code(), "InvalidResourceType");
}

TEST_F(ArmRealismTest, SubnetInUseCannotBeDeleted) {
  createNetwork();
  HttpsReply subnet = call("DELETE", network("virtualNetworks/vnet/subnets/default"));
  EXPECT_EQ(subnet.status, 400);
  EXPECT_EQ(subnet.code(), "InUseSubnetCannotBeDeleted");
  EXPECT_NE(
      subnet.json()["error"]["message"].get<std::string>().find(network("networkInterfaces/nic")),
      std::string::npos);
  EXPECT_EQ(call("DELETE", network("virtualNetworks/vnet")).code(), "InUseSubnetCannotBeDeleted");
  ASSERT_EQ(call("PUT", compute("virtualMachines/vm"), vmBody()).status, 201);
  EXPECT_EQ(call("DELETE", network("networkInterfaces/nic")).code(), "NicInUse");

  ASSERT_EQ(call("DELETE", compute("virtualMachines/vm")).status, 202);
  // A VM being deleted no longer holds its NIC.
  ASSERT_EQ(call("DELETE", network("networkInterfaces/nic")).status, 202);
  advance(30s);
  ASSERT_EQ(call("DELETE", network("virtualNetworks/vnet")).status, 202);
  EXPECT_EQ(state(network("virtualNetworks/vnet/subnets/default")), "Deleting");
  advance(6s);
  EXPECT_EQ(call("GET", network("virtualNetworks/vnet/subnets/default")).status, 404);
}

TEST_F(ArmRealismTest, DeletingAGroupDeletesEverythingInIt) {
  createNetwork();
  ASSERT_EQ(call("PUT", compute("virtualMachines/vm"), vmBody()).status, 201);
  const std::string assignment = group() +
                                 "/providers/Microsoft.Authorization/roleAssignments/"
                                 "6f1b2a3c-0000-4000-8000-000000000001";
  HttpsReply role = call("PUT", assignment,
                         {{"properties",
                           {{"roleDefinitionId", "/subscriptions/" + std::string(kSub) +
                                                     "/providers/Microsoft.Authorization/"
                                                     "roleDefinitions/contributor"},
                            {"principalId", "p-1"}}}});
  ASSERT_EQ(role.status, 201) << role.body;
  EXPECT_EQ(role.json()["properties"]["scope"], group());
  EXPECT_EQ(call("PUT",
                 group() + "/providers/Microsoft.Authorization/roleAssignments/"
                           "6f1b2a3c-0000-4000-8000-000000000002",
                 role.json())
                .code(),
            "RoleAssignmentExists");
  HttpsReply del = call("DELETE", group());
  ASSERT_EQ(del.status, 202) << del.body;
  EXPECT_NE(del.header("location").find("/providers/Microsoft.Resources/locations/eastus/"),
            std::string::npos);
  EXPECT_EQ(state(group()), "Deleting");
  EXPECT_EQ(state(network("networkInterfaces/nic")), "Deleting");
  EXPECT_EQ(call("PUT", network("publicIPAddresses/late"), {{"location", "eastus"}}).code(),
            "ResourceGroupBeingDeleted");
  advance(15s);
  EXPECT_EQ(follow(del.header("location")).status, 204);
  for (const std::string& path :
       {group(), network("virtualNetworks/vnet"), network("virtualNetworks/vnet/subnets/default"),
        network("networkInterfaces/nic"), compute("virtualMachines/vm"), assignment}) {
    EXPECT_EQ(call("GET", path).status, 404) << path;
  }
  EXPECT_EQ(call("GET", network("virtualNetworks/vnet")).code(), "ResourceGroupNotFound");
  EXPECT_TRUE(
      server_->emulator().engine().store().list("microsoft.network/virtualnetworks").empty());
}

TEST_F(ArmRealismTest, DeleteDuringCreateCancelsTheCreate) {
  createNetwork();
  HttpsReply put = call("PUT", compute("virtualMachines/vm"), vmBody());
  ASSERT_EQ(call("DELETE", compute("virtualMachines/vm")).status, 202);
  api::Json status = follow(put.header("azure-asyncoperation")).json();
  EXPECT_EQ(status["status"], "Canceled");
  EXPECT_EQ(status["error"]["code"], "Canceled");
}

TEST_F(ArmRealismTest, ReadsAreThrottledByArmsBucketWithRetryAfter) {
  ASSERT_EQ(call("PUT", group(), {{"location", "eastus"}})
                .header("x-ms-ratelimit-remaining-subscription-writes"),
            "199");
  HttpsReply last;
  for (int i = 0; i < 250; ++i) {
    last = call("GET", group());
    ASSERT_EQ(last.status, 200) << i;
  }
  EXPECT_EQ(last.header("x-ms-ratelimit-remaining-subscription-reads"), "0");
  HttpsReply throttled = call("GET", group());
  EXPECT_EQ(throttled.status, 429);
  EXPECT_EQ(throttled.code(), "SubscriptionRequestsThrottled");
  EXPECT_EQ(throttled.header("retry-after"), "1");
  // Writes have their own bucket.
  EXPECT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 200);
  advance(1s);
  HttpsReply refilled = call("GET", group());
  EXPECT_EQ(refilled.status, 200);
  EXPECT_EQ(refilled.header("x-ms-ratelimit-remaining-subscription-reads"), "24");

  putFaults(R"({"throttling": false})");
  for (int i = 0; i < 30; ++i) {
    ASSERT_EQ(call("GET", group()).status, 200) << i;
  }
}

TEST_F(ArmRealismTest, InjectedProvisioningFailureEndsFailedWithTheCode) {
  createNetwork();
  putFaults(R"({"errors": {"VirtualMachines_CreateOrUpdate": [
      {"code": "AllocationFailed", "probability": 1}]}})");
  HttpsReply put = call("PUT", compute("virtualMachines/vm"), vmBody());
  ASSERT_EQ(put.status, 201) << put.body;
  EXPECT_EQ(put.json()["properties"]["provisioningState"], "Creating");
  advance(45s);
  api::Json status = follow(put.header("azure-asyncoperation")).json();
  EXPECT_EQ(status["status"], "Failed");
  EXPECT_EQ(status["error"]["code"], "AllocationFailed");
  EXPECT_EQ(state(compute("virtualMachines/vm")), "Failed");

  putFaults(R"({"errors": {"NetworkInterfaces_Get": [
      {"code": "InternalServerError", "probability": 1}],
      "VirtualMachines_CreateOrUpdate": [{"code": "TooManyRequests", "probability": 1, "status": 429}]}})");
  EXPECT_EQ(call("GET", network("networkInterfaces/nic")).status, 500);
  HttpsReply refused = call("PUT", compute("virtualMachines/vm"), vmBody());
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(refused.code(), "TooManyRequests");
  putFaults("{}");
  // A failed resource is fixed by another PUT.
  EXPECT_EQ(call("PUT", compute("virtualMachines/vm"), vmBody()).status, 200);
  advance(45s);
  EXPECT_EQ(state(compute("virtualMachines/vm")), "Succeeded");
}

TEST_F(ArmRealismTest, AdminStatsCountPutsPerResource) {
  createNetwork();
  const std::string vm = compute("virtualMachines/vm");
  ASSERT_EQ(call("PUT", vm, vmBody()).status, 201);
  std::string shouted = vm;
  std::transform(shouted.begin(), shouted.end(), shouted.begin(), ::toupper);
  shouted.replace(0, 14, "/subscriptions");  // keep the path's first segment readable
  EXPECT_EQ(call("PUT", shouted, vmBody()).status, 409);
  HttpsReply stats = client_->send("GET", server_->url() + "/admin/stats");
  ASSERT_EQ(stats.status, 200);
  api::Json puts = stats.json()["puts"];
  EXPECT_EQ(puts[core::lowerAscii(vm)], 2);
  EXPECT_EQ(puts[core::lowerAscii(network("networkInterfaces/nic"))], 1);
  EXPECT_EQ(stats.json()["requests"]["VirtualMachines_CreateOrUpdate"]["errors"]
                        ["AnotherOperationInProgress"],
            1);
  EXPECT_EQ(server_->emulator().puts(shouted), 2u);
}

class ArmConcurrencyTest : public ArmFixture {
 protected:
  ArmEmulatorOptions options() override {
    ArmEmulatorOptions o = ArmFixture::options();
    o.engine.faults.throttling = false;
    return o;
  }
};

TEST_F(ArmConcurrencyTest, ManyOperationsRunAtOnceWithoutThreads) {
  ASSERT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 201);
  // 2,000 operations in flight, as the issue asks the emulator to sustain.
  constexpr int kThreads = 8;
  constexpr int kEach = 250;
  std::vector<std::thread> threads;
  std::atomic<int> created{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      HttpsClient client(server_->caPem());
      for (int i = 0; i < kEach; ++i) {
        HttpsReply r = client.send(
            "PUT",
            url(network("publicIPAddresses/ip-" + std::to_string(t) + "-" + std::to_string(i))),
            R"({"location":"eastus","sku":{"name":"Standard"}})",
            {"Authorization: Bearer " + token_, "Content-Type: application/json"});
        created += r.status == 201 ? 1 : 0;
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_EQ(created.load(), kThreads * kEach);
  EXPECT_EQ(server_->emulator().model().operationsInFlight(), size_t{kThreads * kEach});
  advance(3s);
  EXPECT_EQ(server_->emulator().model().operationsInFlight(), 0u);
  api::Json ips = call("GET", network("publicIPAddresses")).json();
  ASSERT_EQ(ips["value"].size(), size_t{kThreads * kEach});
  std::set<std::string> addresses;
  for (const api::Json& ip : ips["value"]) {
    EXPECT_EQ(ip["properties"]["provisioningState"], "Succeeded");
    addresses.insert(ip["properties"]["ipAddress"].get<std::string>());
  }
  EXPECT_EQ(addresses.size(), size_t{kThreads * kEach});
}

}  // namespace
}  // namespace nodewright::emulators::arm
