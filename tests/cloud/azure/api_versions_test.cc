#include "cloud/azure/api_versions.h"

#include <gtest/gtest.h>

namespace nodewright::cloud::azure {
namespace {

const std::string kRg = "/subscriptions/sub-1/resourceGroups/rg";

struct TypeCase {
  std::string name;
  std::string id;
  std::optional<std::string> type;
  std::optional<std::string> version;
};

class ApiVersionsTest : public testing::TestWithParam<TypeCase> {};

TEST_P(ApiVersionsTest, DerivesTypeAndVersionFromTheId) {
  const TypeCase& c = GetParam();
  EXPECT_EQ(resourceTypeOf(c.id), c.type);
  EXPECT_EQ(apiVersionFor(c.id), c.version);
}

INSTANTIATE_TEST_SUITE_P(
    Ids, ApiVersionsTest,
    testing::Values(
        TypeCase{"ResourceGroup", kRg, "Microsoft.Resources/resourceGroups", "2021-04-01"},
        TypeCase{"ResourceGroupTrailingSlash", kRg + "/", "Microsoft.Resources/resourceGroups",
                 "2021-04-01"},
        TypeCase{"VirtualNetwork", kRg + "/providers/Microsoft.Network/virtualNetworks/vnet",
                 "Microsoft.Network/virtualNetworks", "2023-04-01"},
        TypeCase{"Subnet", kRg + "/providers/Microsoft.Network/virtualNetworks/vnet/subnets/s1",
                 "Microsoft.Network/virtualNetworks/subnets", "2023-04-01"},
        TypeCase{"InboundNatRule",
                 kRg + "/providers/Microsoft.Network/loadBalancers/lb/inboundNatRules/r",
                 "Microsoft.Network/loadBalancers/inboundNatRules", "2023-04-01"},
        TypeCase{"NatGatewayLowerCase", kRg + "/providers/microsoft.network/natgateways/n",
                 "microsoft.network/natgateways", "2023-04-01"},
        TypeCase{"PrivateDnsZone", kRg + "/providers/Microsoft.Network/privateDnsZones/z.io",
                 "Microsoft.Network/privateDnsZones", "2024-06-01"},
        TypeCase{"PrivateDnsLink",
                 kRg + "/providers/Microsoft.Network/privateDnsZones/z.io/virtualNetworkLinks/l",
                 "Microsoft.Network/privateDnsZones/virtualNetworkLinks", "2024-06-01"},
        TypeCase{"VirtualMachine", kRg + "/providers/Microsoft.Compute/virtualMachines/vm",
                 "Microsoft.Compute/virtualMachines", "2023-09-01"},
        TypeCase{"VmExtension",
                 kRg + "/providers/Microsoft.Compute/virtualMachines/vm/extensions/boot",
                 "Microsoft.Compute/virtualMachines/extensions", "2023-09-01"},
        TypeCase{"ScaleSetVm",
                 kRg + "/providers/Microsoft.Compute/virtualMachineScaleSets/ss/virtualMachines/0",
                 "Microsoft.Compute/virtualMachineScaleSets/virtualMachines", "2023-09-01"},
        TypeCase{"Disk", kRg + "/providers/Microsoft.Compute/disks/os", "Microsoft.Compute/disks",
                 "2023-04-02"},
        TypeCase{"Skus", "/subscriptions/sub-1/providers/Microsoft.Compute/skus/x",
                 "Microsoft.Compute/skus", "2021-07-01"},
        TypeCase{"RoleAssignmentOnVm",
                 kRg + "/providers/Microsoft.Compute/virtualMachines/vm/providers/"
                       "Microsoft.Authorization/roleAssignments/0b1e",
                 "Microsoft.Authorization/roleAssignments", "2022-04-01"},
        TypeCase{"GroupNamedProviders", "/subscriptions/sub-1/resourceGroups/providers",
                 "Microsoft.Resources/resourceGroups", "2021-04-01"},
        TypeCase{"VnetInAGroupNamedProviders",
                 "/subscriptions/sub-1/resourceGroups/providers/providers/Microsoft.Network/"
                 "virtualNetworks/vnet",
                 "Microsoft.Network/virtualNetworks", "2023-04-01"},
        TypeCase{"VnetNamedProviders",
                 kRg + "/providers/Microsoft.Network/virtualNetworks/providers/subnets/s",
                 "Microsoft.Network/virtualNetworks/subnets", "2023-04-01"},
        TypeCase{"SubnetNamedProviders",
                 kRg + "/providers/Microsoft.Network/virtualNetworks/v/subnets/providers",
                 "Microsoft.Network/virtualNetworks/subnets", "2023-04-01"},
        TypeCase{"RoleAssignmentOnAVmNamedProviders",
                 kRg + "/providers/Microsoft.Compute/virtualMachines/providers/providers/"
                       "Microsoft.Authorization/roleAssignments/0b1e",
                 "Microsoft.Authorization/roleAssignments", "2022-04-01"},
        TypeCase{"ProvidersWithoutATypeAfterIt",
                 kRg + "/providers/Microsoft.Network/virtualNetworks/v/providers/Microsoft.X",
                 std::nullopt, std::nullopt},
        TypeCase{"GroupWithoutAName", "/subscriptions/s/resourceGroups", std::nullopt,
                 std::nullopt},
        TypeCase{"UnknownNamespace", kRg + "/providers/Contoso.Widgets/widgets/w",
                 "Contoso.Widgets/widgets", std::nullopt},
        TypeCase{"NotFromSubscriptions", "/providers/Microsoft.Network/virtualNetworks/v",
                 std::nullopt, std::nullopt},
        TypeCase{"MissingName", kRg + "/providers/Microsoft.Network/virtualNetworks", std::nullopt,
                 std::nullopt},
        TypeCase{"EmptySegment", kRg + "/providers/Microsoft.Network//vnet", std::nullopt,
                 std::nullopt},
        TypeCase{"Relative", "subscriptions/s/resourceGroups/rg", std::nullopt, std::nullopt},
        TypeCase{"NotAResourceGroup", "/subscriptions/s/widgets/rg", std::nullopt, std::nullopt}),
    [](const testing::TestParamInfo<TypeCase>& info) { return info.param.name; });

TEST(ApiVersionShapeTest, IsADateWithAnOptionalSuffix) {
  EXPECT_TRUE(validApiVersion("2023-04-01"));
  EXPECT_TRUE(validApiVersion("2024-05-01-preview"));
  EXPECT_TRUE(validApiVersion("2015-05-01-alpha.1"));
  EXPECT_FALSE(validApiVersion(""));
  EXPECT_FALSE(validApiVersion("1"));
  EXPECT_FALSE(validApiVersion("2023-4-01"));
  EXPECT_FALSE(validApiVersion("2023-04-01-"));
  EXPECT_FALSE(validApiVersion("2023-04-01&x=1"));
  EXPECT_FALSE(validApiVersion("2023-04-01 "));
}

TEST(ResourceIdShapeTest, RefusesWhatWouldChangeOrBreakTheUrl) {
  const std::string vnet = kRg + "/providers/Microsoft.Network/virtualNetworks/";
  EXPECT_TRUE(validResourceId(vnet + "v"));
  EXPECT_TRUE(validResourceId(vnet + "r\xC3\xA9seau")) << "names may be Unicode";
  EXPECT_FALSE(validResourceId(vnet + "a b"));
  EXPECT_FALSE(validResourceId(vnet + "a?b"));
  EXPECT_FALSE(validResourceId(vnet + "a#b"));
  EXPECT_FALSE(validResourceId(vnet + "a%20b"));
  EXPECT_FALSE(validResourceId(vnet + "a\tb"));
  EXPECT_FALSE(validResourceId(vnet + "a\xC3"));
  EXPECT_FALSE(validResourceId(vnet));
}

TEST(ApiVersionOverridesTest, OverrideWinsForTheTypeAndItsChildren) {
  const ApiVersionOverrides overrides = {{"microsoft.network/virtualnetworks", "2024-01-01"}};
  EXPECT_EQ(apiVersionFor(kRg + "/providers/Microsoft.Network/virtualNetworks/v", overrides),
            "2024-01-01");
  EXPECT_EQ(
      apiVersionFor(kRg + "/providers/Microsoft.Network/virtualNetworks/v/subnets/s", overrides),
      "2024-01-01");
  EXPECT_EQ(apiVersionFor(kRg + "/providers/Microsoft.Network/natGateways/n", overrides),
            "2023-04-01");
}

}  // namespace
}  // namespace nodewright::cloud::azure
