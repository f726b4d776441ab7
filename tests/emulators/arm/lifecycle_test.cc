// ARM's long-running-operation protocol, stepped through on the injected clock.
#include <gtest/gtest.h>

#include "emulators/arm/arm_fixture.h"

namespace nodewright::emulators::arm {
namespace {

using namespace std::chrono_literals;
using testing::ArmFixture;
using testing::HttpsReply;
using testing::kSub;

class ArmLifecycleTest : public ArmFixture {};

TEST_F(ArmLifecycleTest, ResourceGroupPutIsSynchronous) {
  HttpsReply created = call("PUT", group(), {{"location", "East US"}, {"tags", {{"a", "b"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_FALSE(created.has("azure-asyncoperation"));
  EXPECT_EQ(created.json(),
            api::Json::parse(
                R"({"id":"/subscriptions/11111111-2222-3333-4444-555555555555/resourceGroups/rg",
      "name":"rg","type":"Microsoft.Resources/resourceGroups","location":"eastus","tags":{"a":"b"},
      "properties":{"provisioningState":"Succeeded"}})"));
  EXPECT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 200);
  EXPECT_EQ(call("HEAD", group()).status, 204);
  EXPECT_EQ(call("HEAD", group("other")).status, 404);
  HttpsReply moved = call("PUT", group(), {{"location", "westus2"}});
  EXPECT_EQ(moved.code(), "InvalidResourceLocation");
  EXPECT_EQ(call("PUT", group("nowhere"), api::Json::object()).code(), "LocationRequired");
}

TEST_F(ArmLifecycleTest, PutAnswers201CreatingThenSucceedsOnTheClock) {
  createNetwork();
  HttpsReply put = call("PUT", compute("virtualMachines/vm"), vmBody());
  ASSERT_EQ(put.status, 201) << put.body;
  api::Json body = put.json();
  EXPECT_EQ(body["properties"]["provisioningState"], "Creating");
  EXPECT_EQ(body["id"], compute("virtualMachines/vm"));
  EXPECT_EQ(body["type"], "Microsoft.Compute/virtualMachines");
  EXPECT_FALSE(body["properties"]["osProfile"].contains("adminPassword"));
  EXPECT_EQ(put.header("retry-after"), "10");
  const std::string status = put.header("azure-asyncoperation");
  ASSERT_TRUE(status.starts_with(server_->url() + "/subscriptions/" + std::string(kSub) +
                                 "/providers/Microsoft.Compute/locations/eastus/operations/"))
      << status;
  EXPECT_TRUE(status.ends_with("?api-version=2023-09-01")) << status;

  HttpsReply running = follow(status);
  EXPECT_EQ(running.status, 200);
  EXPECT_EQ(running.json()["status"], "InProgress");
  EXPECT_FALSE(running.json().contains("endTime"));
  EXPECT_EQ(running.header("retry-after"), "10");
  advance(44s);
  EXPECT_EQ(state(compute("virtualMachines/vm")), "Creating");
  EXPECT_EQ(follow(status).header("retry-after"), "1");
  advance(1s);
  HttpsReply done = follow(status);
  EXPECT_EQ(done.json()["status"], "Succeeded");
  EXPECT_FALSE(done.has("retry-after"));
  EXPECT_TRUE(done.json().contains("endTime"));
  EXPECT_EQ(state(compute("virtualMachines/vm")), "Succeeded");

  HttpsReply update = call("PUT", compute("virtualMachines/vm"), vmBody());
  EXPECT_EQ(update.status, 200);
  EXPECT_EQ(update.json()["properties"]["provisioningState"], "Updating");
  EXPECT_EQ(update.json()["properties"]["vmId"], body["properties"]["vmId"]);
}

TEST_F(ArmLifecycleTest, SystemAssignedIdentityGetsAPrincipalThatUpdatesKeep) {
  createNetwork();
  api::Json body = vmBody();
  body["identity"] = {{"type", "SystemAssigned"}};
  HttpsReply put = call("PUT", compute("virtualMachines/vm"), body);
  ASSERT_EQ(put.status, 201) << put.body;
  const std::string principal = put.json()["identity"].value("principalId", "");
  EXPECT_EQ(principal.size(), 36u) << put.body;
  advance(45s);
  HttpsReply update = call("PUT", compute("virtualMachines/vm"), body);
  EXPECT_EQ(update.json()["identity"].value("principalId", ""), principal) << update.body;

  HttpsReply plain = call("PUT", compute("virtualMachines/other"), vmBody());
  ASSERT_EQ(plain.status, 201) << plain.body;
  EXPECT_FALSE(plain.json().contains("identity")) << plain.body;
}

TEST_F(ArmLifecycleTest, DeleteAnswers202ThenLocationGives204AndGet404) {
  createNetwork();
  HttpsReply del = call("DELETE", network("networkInterfaces/nic"));
  ASSERT_EQ(del.status, 202) << del.body;
  EXPECT_TRUE(del.body.empty());
  const std::string location = del.header("location");
  EXPECT_NE(location.find("/providers/Microsoft.Network/locations/eastus/operationResults/"),
            std::string::npos)
      << location;
  EXPECT_TRUE(del.has("azure-asyncoperation"));
  EXPECT_EQ(del.header("retry-after"), "3");
  EXPECT_EQ(state(network("networkInterfaces/nic")), "Deleting");
  HttpsReply again = call("DELETE", network("networkInterfaces/nic"));
  EXPECT_EQ(again.status, 202);
  EXPECT_EQ(again.header("location"), location);

  HttpsReply polling = follow(location);
  EXPECT_EQ(polling.status, 202);
  EXPECT_EQ(polling.header("location"), location);
  EXPECT_EQ(polling.header("retry-after"), "3");
  advance(3s);
  EXPECT_EQ(follow(location).status, 204);
  EXPECT_EQ(follow(del.header("azure-asyncoperation")).json()["status"], "Succeeded");
  HttpsReply gone = call("GET", network("networkInterfaces/nic"));
  EXPECT_EQ(gone.status, 404);
  EXPECT_EQ(gone.code(), "ResourceNotFound");
  EXPECT_EQ(call("DELETE", network("networkInterfaces/nic")).status, 204);
  EXPECT_EQ(call("DELETE", group("missing")).code(), "ResourceGroupNotFound");
}

TEST_F(ArmLifecycleTest, SecondWriteWhileAnOperationRunsGets409) {
  createNetwork();
  HttpsReply first = call("PUT", compute("virtualMachines/vm"), vmBody());
  ASSERT_EQ(first.status, 201);
  HttpsReply second = call("PUT", compute("virtualMachines/vm"), vmBody());
  EXPECT_EQ(second.status, 409);
  EXPECT_EQ(second.code(), "AnotherOperationInProgress");
  EXPECT_NE(second.json()["error"]["message"].get<std::string>().find(
                first.header("azure-asyncoperation")),
            std::string::npos);
  EXPECT_EQ(call("PATCH", compute("virtualMachines/vm"), {{"tags", {{"x", "y"}}}}).status, 409);
  // A child's write waits for its parent's operation too.
  ASSERT_EQ(call("PUT", network("virtualNetworks/vnet"),
                 {{"location", "eastus"},
                  {"properties", {{"addressSpace", {{"addressPrefixes", {"10.0.0.0/16"}}}}}}})
                .status,
            200);
  EXPECT_EQ(call("PUT", network("virtualNetworks/vnet/subnets/other"),
                 {{"properties", {{"addressPrefix", "10.0.2.0/24"}}}})
                .code(),
            "AnotherOperationInProgress");
  advance(45s);
  EXPECT_EQ(call("PUT", compute("virtualMachines/vm"), vmBody()).status, 200);
}

TEST_F(ArmLifecycleTest, PatchReplacesTagsAndListsShowChildren) {
  createNetwork();
  HttpsReply patched =
      call("PATCH", network("networkInterfaces/nic"), {{"tags", {{"owner", "capz"}}}});
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.json()["tags"], api::Json({{"owner", "capz"}}));
  EXPECT_EQ(patched.json()["properties"]["provisioningState"], "Succeeded");
  EXPECT_EQ(patched.json()["properties"]["ipConfigurations"][0]["properties"]["privateIPAddress"],
            "10.0.1.4");

  api::Json vnet = call("GET", network("virtualNetworks/vnet")).json();
  ASSERT_EQ(vnet["properties"]["subnets"].size(), 1u);
  EXPECT_EQ(vnet["properties"]["subnets"][0]["name"], "default");
  HttpsReply subnets = call("GET", network("virtualNetworks/vnet/subnets"));
  EXPECT_EQ(subnets.json()["value"].size(), 1u);
  EXPECT_EQ(call("GET", network("networkInterfaces")).json()["value"][0]["name"], "nic");
  EXPECT_EQ(call("GET", "/subscriptions/" + std::string(kSub) + "/resourceGroups")
                .json()["value"][0]["name"],
            "rg");
}

TEST_F(ArmLifecycleTest, VnetPutCreatesItsInlineSubnets) {
  ASSERT_EQ(call("PUT", group(), {{"location", "eastus"}}).status, 201);
  HttpsReply put = call(
      "PUT", network("virtualNetworks/vnet"),
      {{"location", "eastus"},
       {"properties",
        {{"addressSpace", {{"addressPrefixes", {"10.0.0.0/16"}}}},
         {"subnets", {{{"name", "a"}, {"properties", {{"addressPrefix", "10.0.1.0/24"}}}}}}}}});
  ASSERT_EQ(put.status, 201) << put.body;
  EXPECT_EQ(put.json()["properties"]["subnets"][0]["properties"]["provisioningState"], "Creating");
  advance(4s);
  EXPECT_EQ(state(network("virtualNetworks/vnet/subnets/a")), "Succeeded");
}

TEST_F(ArmLifecycleTest, SkusListTheVmSizesAndVmPutsCheckThem) {
  api::Json skus =
      call("GET", "/subscriptions/" + std::string(kSub) +
                      "/providers/Microsoft.Compute/skus?%24filter=location%20eq%20%27eastus%27")
          .json();
  ASSERT_EQ(skus["value"].size(), 10u);
  EXPECT_EQ(skus["value"][1]["name"], "Standard_D2s_v3");
  EXPECT_EQ(skus["value"][1]["locations"], api::Json({"eastus"}));
  createNetwork();
  HttpsReply bad = call("PUT", compute("virtualMachines/vm"), vmBody("nic", "Standard_Nope"));
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.code(), "InvalidParameter");

  auto full =
      SkuCatalog::load(std::string(NW_SHARED_DIR) + "/data/azure-vm-sizes.json", {"eastus"});
  ASSERT_TRUE(full) << full.error().message();
  EXPECT_EQ(full->size(), 1791u);
  EXPECT_TRUE(full->has("standard_d2s_v5"));
}

TEST_F(ArmLifecycleTest, ScaleSetRunsSkuCapacityInstances) {
  createNetwork();
  api::Json vmss = {
      {"location", "eastus"},
      {"sku", {{"name", "Standard_D2s_v3"}, {"tier", "Standard"}, {"capacity", 3}}},
      {"properties",
       {{"virtualMachineProfile",
         {{"osProfile", {{"computerNamePrefix", "pool"}, {"adminUsername", "capi"}}},
          {"networkProfile",
           {{"networkInterfaceConfigurations",
             {{{"name", "nic"},
               {"properties",
                {{"ipConfigurations",
                  {{{"name", "ip"},
                    {"properties",
                     {{"subnet",
                       {{"id", network("virtualNetworks/vnet/subnets/default")}}}}}}}}}}}}}}}}}}}};
  ASSERT_EQ(call("PUT", compute("virtualMachineScaleSets/pool"), vmss).status, 201);
  api::Json instances = call("GET", compute("virtualMachineScaleSets/pool/virtualMachines")).json();
  ASSERT_EQ(instances["value"].size(), 3u);
  EXPECT_EQ(instances["value"][0]["properties"]["provisioningState"], "Creating");
  EXPECT_EQ(instances["value"][2]["name"], "pool_2");
  EXPECT_EQ(instances["value"][2]["properties"]["osProfile"]["computerName"], "pool000002");
  advance(60s);
  EXPECT_EQ(state(compute("virtualMachineScaleSets/pool/virtualMachines/1")), "Succeeded");

  HttpsReply del = call("DELETE", compute("virtualMachineScaleSets/pool/virtualMachines/1"));
  EXPECT_EQ(del.status, 202);
  EXPECT_EQ(call("GET", compute("virtualMachineScaleSets/pool")).json()["sku"]["capacity"], 2);
  advance(30s);
  EXPECT_EQ(
      call("GET", compute("virtualMachineScaleSets/pool/virtualMachines")).json()["value"].size(),
      2u);
  vmss["sku"]["capacity"] = 4;
  ASSERT_EQ(call("PUT", compute("virtualMachineScaleSets/pool"), vmss).status, 200);
  api::Json grown = call("GET", compute("virtualMachineScaleSets/pool/virtualMachines")).json();
  ASSERT_EQ(grown["value"].size(), 4u);
  EXPECT_EQ(grown["value"][3]["instanceId"], "4");
  // Instances come from the scale set: a PUT may update one, never create one.
  advance(60s);
  EXPECT_EQ(
      call("PUT", compute("virtualMachineScaleSets/pool/virtualMachines/9"), api::Json::object())
          .status,
      404);
}

}  // namespace
}  // namespace nodewright::emulators::arm
