#include "controllers/capz/arm_resource.h"

#include <gtest/gtest.h>

namespace nodewright::controllers::capz {
namespace {

using api::Json;

TEST(ArmResourceTest, BuildsResourceIds) {
  EXPECT_EQ(resourceGroupId("sub", "rg"), "/subscriptions/sub/resourceGroups/rg");
  EXPECT_EQ(
      resourceId("sub", "rg", "Microsoft.Network/virtualNetworks", "vnet"),
      "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet");
  EXPECT_EQ(resourceId("sub", "rg", "Microsoft.Network/virtualNetworks/vnet/subnets", "s"),
            "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/"
            "vnet/subnets/s");
}

TEST(ArmResourceTest, OwnershipLivesOnTheTopLevelResource) {
  const std::string vnet = resourceId("sub", "rg", "Microsoft.Network/virtualNetworks", "vnet");
  EXPECT_EQ(topLevelResourceId(vnet + "/subnets/node"), vnet);
  EXPECT_EQ(topLevelResourceId(vnet), vnet);
  EXPECT_EQ(topLevelResourceId(resourceGroupId("sub", "rg")), resourceGroupId("sub", "rg"));

  EXPECT_TRUE(ownedByCluster({{"tags", {{clusterOwnedTagKey("c1"), "owned"}}}}, "c1"));
  EXPECT_FALSE(ownedByCluster({{"tags", {{clusterOwnedTagKey("c1"), "owned"}}}}, "c2"));
  EXPECT_FALSE(ownedByCluster({{"tags", {{clusterOwnedTagKey("c1"), 1}}}}, "c1"));
  EXPECT_FALSE(ownedByCluster({{"tags", "owned"}}, "c1"));
  EXPECT_FALSE(ownedByCluster(api::Json::array(), "c1"));
}

TEST(ArmResourceTest, OwnedTagsKeepCapzKeysOverAdditionalTags) {
  EXPECT_EQ(clusterOwnedTagKey("c1"), "sigs.k8s.io_cluster-api-provider-azure_cluster_c1");
  api::capz::Tags additional = {{"team", "blue"}, {"Name", "theirs"}};
  api::capz::Tags tags = ownedTags("c1", "common", "vnet", additional);
  EXPECT_EQ(tags["team"], "blue");
  EXPECT_EQ(tags["Name"], "vnet");
  EXPECT_EQ(tags["sigs.k8s.io_cluster-api-provider-azure_cluster_c1"], "owned");
  EXPECT_EQ(tags["sigs.k8s.io_cluster-api-provider-azure_role"], "common");
  EXPECT_EQ(ownedTags("c1", "", "", {}).size(), 1u);
}

struct ContainsCase {
  const char* name;
  const char* actual;
  const char* desired;
  bool contains;
};

class ContainsJsonTest : public testing::TestWithParam<ContainsCase> {};

TEST_P(ContainsJsonTest, ComparesOnlyWhatDesiredSets) {
  const ContainsCase& c = GetParam();
  EXPECT_EQ(containsJson(Json::parse(c.actual), Json::parse(c.desired)), c.contains);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ContainsJsonTest,
    testing::Values(ContainsCase{"ExtraCloudFields", R"({"id":"x","location":"eastus","etag":"e"})",
                                 R"({"location":"eastus"})", true},
                    ContainsCase{"DifferentScalar", R"({"location":"westus"})",
                                 R"({"location":"eastus"})", false},
                    ContainsCase{"MissingField", R"({})", R"({"sku":{"name":"Standard"}})", false},
                    ContainsCase{"NestedExtra", R"({"p":{"a":1,"b":2}})", R"({"p":{"a":1}})", true},
                    ContainsCase{"ArrayElementsContain", R"({"r":[{"name":"a","id":"1"}]})",
                                 R"({"r":[{"name":"a"}]})", true},
                    ContainsCase{"ArrayLengthDiffers", R"({"r":[1,2]})", R"({"r":[1]})", false},
                    ContainsCase{"ArrayOrderMatters", R"({"r":[2,1]})", R"({"r":[1,2]})", false},
                    ContainsCase{"ObjectVersusScalar", R"({"p":"x"})", R"({"p":{"a":1}})", false},
                    ContainsCase{"EmptyDesired", R"({"a":1})", R"({})", true}),
    [](const testing::TestParamInfo<ContainsCase>& info) { return info.param.name; });

class DesiredResourceTest : public testing::Test {
 protected:
  DesiredResourceTest() : resource_(ref(), body()) {}

  static lro::ResourceRef ref() {
    lro::ResourceRef r;
    r.id = resourceId("sub", "rg", "Microsoft.Network/routeTables", "rt");
    r.resourceGroup = "rg";
    r.serviceName = "routetables";
    r.name = "rt";
    return r;
  }
  static Json body() { return {{"location", "eastus"}, {"tags", {{"a", "b"}}}}; }

  std::optional<Json> parameters(const Json& existing) {
    auto p = resource_.parameters(existing);
    EXPECT_TRUE(p.has_value());
    return p ? *p : std::optional<Json>();
  }

  DesiredResource resource_;
};

TEST_F(DesiredResourceTest, PutsTheBodyWhenMissing) {
  EXPECT_EQ(parameters(nullptr), body());
  EXPECT_EQ(resource_.resource().id, ref().id);
  EXPECT_EQ(resource_.body(), body());
}

TEST_F(DesiredResourceTest, SendsNothingWhenUpToDate) {
  Json existing = {{"id", ref().id},
                   {"location", "eastus"},
                   {"tags", {{"a", "b"}, {"added", "by someone"}}},
                   {"properties", {{"provisioningState", "Succeeded"}}}};
  EXPECT_FALSE(parameters(existing).has_value());
}

TEST_F(DesiredResourceTest, PutsAgainWhenDifferentOrFailed) {
  Json differs = {{"location", "eastus"}, {"tags", {{"a", "c"}}}};
  EXPECT_EQ(parameters(differs), body());
  Json failed = {{"location", "eastus"},
                 {"tags", {{"a", "b"}}},
                 {"properties", {{"provisioningState", "Failed"}}}};
  EXPECT_EQ(parameters(failed), body());
}

}  // namespace
}  // namespace nodewright::controllers::capz
