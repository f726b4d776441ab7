// Seed 001's scenario: a node class's network interfaces decide which instance types may
// launch, and the types that cannot carry them never reach CreateFleet.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "support/cloud/aws/provider_fixture.h"

namespace nodewright::cloud::aws::testing {
namespace {

std::set<std::string> asSet(const std::vector<std::string>& values) {
  return {values.begin(), values.end()};
}

const Exclusion* exclusionOf(const InstanceTypes& types, const std::string& name) {
  for (const Exclusion& e : types.excluded) {
    if (e.instanceType == name) {
      return &e;
    }
  }
  return nullptr;
}

// Every template sent carries exactly `expected`.
void expectEveryTemplate(const std::vector<std::vector<std::string>>& templates,
                         const std::vector<std::string>& expected) {
  ASSERT_FALSE(templates.empty());
  for (const auto& values : templates) {
    EXPECT_EQ(values, expected);
  }
}

bool isCompatible(const InstanceTypes& types, const std::string& name) {
  return std::any_of(types.compatible.begin(), types.compatible.end(),
                     [&](const InstanceType& t) { return t.name == name; });
}

class Seed001ScenarioTest : public ProviderTest {
 protected:
  void SetUp() override { start(sharedCatalog()); }

  // Launches one claim allowing `types` with node class `nodeClass`; the types offered.
  std::set<std::string> launchAndOffered(const std::string& claimName, const std::string& nodeClass,
                                         const std::vector<std::string>& types) {
    auto machine = provider().create(nodeClaim(claimName, nodeClass, types));
    EXPECT_TRUE(machine) << machine.error().message();
    if (machine) {
      EXPECT_TRUE(std::find(types.begin(), types.end(), machine->instanceType) != types.end())
          << machine->instanceType;
    }
    return asSet(fleetOverrideTypes());
  }
};

TEST_F(Seed001ScenarioTest, FourInterfacesLaunchOnlyTheTypeThatCarriesThem) {
  auto nc = discoveryNodeClass("four-enis");
  for (int i = 0; i < 4; ++i) {
    nc.spec.networkInterfaces.push_back(networkInterface(i));
  }
  nodeClasses_[nc.metadata.name] = nc;

  auto types = provider().instanceTypes(nodePool("default", "four-enis"));
  ASSERT_TRUE(types) << types.error().message();
  EXPECT_TRUE(isCompatible(*types, "m5.xlarge"));
  EXPECT_FALSE(isCompatible(*types, "m5.large"));
  const Exclusion* large = exclusionOf(*types, "m5.large");
  ASSERT_NE(large, nullptr);
  EXPECT_NE(large->reason.find("m5.large allows 3"), std::string::npos) << large->reason;

  // m5.large is the cheaper type, and still only m5.xlarge is offered.
  EXPECT_EQ(launchAndOffered("four-enis-a", "four-enis", {"m5.large", "m5.xlarge"}),
            (std::set<std::string>{"m5.xlarge"}));
  // The template carries the four interfaces, sorted by device index.
  expectEveryTemplate(templateInterfaceValues("DeviceIndex"), {"0", "1", "2", "3"});
  expectEveryTemplate(templateInterfaceValues("DeleteOnTermination"),
                      {"true", "true", "true", "true"});
}

TEST_F(Seed001ScenarioTest, AnEfaInterfaceLaunchesOnlyEfaCapableTypes) {
  auto nc = discoveryNodeClass("efa");
  nc.spec.networkInterfaces = {networkInterface(0, 0, "efa")};
  nodeClasses_[nc.metadata.name] = nc;
  const std::vector<std::string> allowed = {"m5.xlarge", "m5.24xlarge", "c5n.18xlarge",
                                            "p4d.24xlarge"};
  std::set<std::string> efaCapable;
  for (const std::string& name : allowed) {
    const auto* info = sharedCatalog().find(name);
    ASSERT_NE(info, nullptr) << name;
    if (info->efaSupported) {
      efaCapable.insert(name);
    }
  }
  ASSERT_FALSE(efaCapable.empty());
  ASSERT_LT(efaCapable.size(), allowed.size());

  auto types = provider().instanceTypes(nodePool("default", "efa"));
  ASSERT_TRUE(types) << types.error().message();
  const Exclusion* m5 = exclusionOf(*types, "m5.xlarge");
  ASSERT_NE(m5, nullptr);
  EXPECT_NE(m5->reason.find("EFA"), std::string::npos) << m5->reason;

  EXPECT_EQ(launchAndOffered("efa-a", "efa", allowed), efaCapable);
  expectEveryTemplate(templateInterfaceValues("InterfaceType"), {"efa"});
}

TEST_F(Seed001ScenarioTest, TwoNetworkCardsLaunchOnlyMultiCardTypes) {
  auto nc = discoveryNodeClass("two-cards");
  nc.spec.networkInterfaces = {networkInterface(0, 0), networkInterface(1, 1)};
  nodeClasses_[nc.metadata.name] = nc;
  const std::vector<std::string> allowed = {"m5.xlarge", "c6in.32xlarge", "p4d.24xlarge",
                                            "m6i.32xlarge"};
  std::set<std::string> multiCard;
  for (const std::string& name : allowed) {
    const auto* info = sharedCatalog().find(name);
    ASSERT_NE(info, nullptr) << name;
    if (info->networkCards.size() > 1) {
      multiCard.insert(name);
    }
  }
  ASSERT_FALSE(multiCard.empty());
  ASSERT_LT(multiCard.size(), allowed.size());

  auto types = provider().instanceTypes(nodePool("default", "two-cards"));
  ASSERT_TRUE(types) << types.error().message();
  const Exclusion* single = exclusionOf(*types, "m5.xlarge");
  ASSERT_NE(single, nullptr);
  EXPECT_NE(single->reason.find("network card 1"), std::string::npos) << single->reason;

  EXPECT_EQ(launchAndOffered("two-cards-a", "two-cards", allowed), multiCard);
  expectEveryTemplate(templateInterfaceValues("NetworkCardIndex"), {"0", "1"});
}

TEST_F(Seed001ScenarioTest, NoTypeLeftIsACapacityErrorThatSaysWhy) {
  auto nc = discoveryNodeClass("four-enis");
  for (int i = 0; i < 4; ++i) {
    nc.spec.networkInterfaces.push_back(networkInterface(i));
  }
  nodeClasses_[nc.metadata.name] = nc;
  auto machine = provider().create(nodeClaim("small-only", "four-enis", {"m5.large"}));
  ASSERT_FALSE(machine);
  EXPECT_EQ(machine.error().code(), core::Code::InsufficientCapacity);
  EXPECT_NE(machine.error().message().find("excluded by EC2NodeClass four-enis"), std::string::npos)
      << machine.error().message();
  EXPECT_TRUE(fleetOverrideTypes().empty()) << "nothing may reach CreateFleet";
}

}  // namespace
}  // namespace nodewright::cloud::aws::testing
