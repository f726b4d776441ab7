// The whole AWS provider against moto_server, the second real peer: a node class resolved from
// tags on a network created in moto, instance types from moto's DescribeInstanceTypes filtered
// by the node class's interfaces, then create, get, list, remove and garbage collection, each
// read back from what moto recorded.
#include <gtest/gtest.h>

#include <regex>

#include <fmt/format.h>

#include "support/aws/moto_network.h"
#include "support/aws/moto_server.h"
#include "support/cloud/aws/provider_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::cloud::aws::testing {
namespace {

class ProviderMotoTest : public ProviderTest {
 protected:
  static void SetUpTestSuite() { moto_ = new nodewright::aws::testing::MotoServer(); }
  static void TearDownTestSuite() {
    delete moto_;
    moto_ = nullptr;
  }

  void SetUp() override {
    if (auto missing = emulators::testing::missingPythonClients(true, false)) {
      FAIL() << *missing;
    }
    ASSERT_EQ(moto_->error(), "");
    startStack(moto_->url(), "");
    wire_ = std::make_unique<emulators::testing::QueryClient>(moto_->url(), core::systemClock());
  }

  api::karpenter::EC2NodeClass network(const std::string& cluster, int octet) {
    const auto n = nodewright::aws::testing::createMotoNetwork(*wire_, cluster, octet);
    auto nc = discoveryNodeClass(cluster);
    nc.spec.subnetSelectorTerms[0].tags = {{"karpenter.sh/discovery", cluster}};
    nc.spec.securityGroupSelectorTerms[0].tags = {{"karpenter.sh/discovery", cluster}};
    api::karpenter::AMISelectorTerm byId;
    byId.id = n.imageId;
    nc.spec.amiSelectorTerms = {byId};
    nc.spec.amiFamily = "AL2023";
    return nc;
  }

  static nodewright::aws::testing::MotoServer* moto_;
  std::unique_ptr<emulators::testing::QueryClient> wire_;
};

nodewright::aws::testing::MotoServer* ProviderMotoTest::moto_ = nullptr;

TEST_F(ProviderMotoTest, LaunchesOnlyTypesThatCarryTheInterfacesAndManagesTheInstance) {
  auto nc = network("moto-stack", 41);
  nc.spec.networkInterfaces = {networkInterface(0), networkInterface(1), networkInterface(2),
                               networkInterface(3)};
  nodeClasses_[nc.metadata.name] = nc;

  auto types = provider().instanceTypes(nodePool("default", nc.metadata.name));
  ASSERT_TRUE(types) << types.error().message();
  bool largeExcluded = false;
  for (const Exclusion& e : types->excluded) {
    largeExcluded = largeExcluded || e.instanceType == "m5.large";
  }
  EXPECT_TRUE(largeExcluded) << "moto's m5.large has 3 interfaces";

  auto machine =
      provider().create(nodeClaim("moto-a", nc.metadata.name, {"m5.large", "m5.xlarge"}));
  ASSERT_TRUE(machine) << machine.error().message();
  EXPECT_EQ(machine->instanceType, "m5.xlarge");
  EXPECT_EQ(machine->nodeClaimName, "moto-a");
  EXPECT_EQ(machine->labels.at("karpenter.sh/capacity-type"), "on-demand");
  EXPECT_EQ(fleetOverrideTypes(),
            (std::vector<std::string>(fleetOverrideTypes().size(), "m5.xlarge")));
  // What moto recorded: the template's four interfaces.
  auto versions =
      wire_->call("DescribeLaunchTemplateVersions",
                  {{"LaunchTemplateName",
                    recorder_->values("CreateLaunchTemplate", "LaunchTemplateName").at(0)},
                   {"Versions.1", "$Latest"}});
  ASSERT_TRUE(versions) << versions.error().message();
  std::vector<std::string> deviceIndexes;
  const std::regex deviceIndex("<deviceIndex>([0-9]+)</deviceIndex>");
  for (auto it = std::sregex_iterator(versions->body.begin(), versions->body.end(), deviceIndex);
       it != std::sregex_iterator(); ++it) {
    deviceIndexes.push_back((*it)[1]);
  }
  EXPECT_EQ(deviceIndexes, (std::vector<std::string>{"0", "1", "2", "3"})) << versions->body;

  auto got = provider().get(machine->providerID);
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(got->nodeClaimName, "moto-a");
  auto listed = provider().list();
  ASSERT_TRUE(listed) << listed.error().message();
  bool found = false;
  for (const Machine& m : *listed) {
    found = found || m.providerID == machine->providerID;
  }
  EXPECT_TRUE(found);

  // Unknown to every NodeClaim and past the grace period: collected.
  auto collected = provider().garbageCollect({}, core::systemClock().now() + std::chrono::hours(1));
  ASSERT_TRUE(collected) << collected.error().message();
  ASSERT_EQ(collected->size(), 1u);
  EXPECT_EQ(collected->at(0).providerID, machine->providerID);
  auto gone = provider().get(machine->providerID);
  if (gone) {
    EXPECT_NE(gone->state, "running");
  }
  auto removedAgain = provider().remove(machine->providerID);
  if (!removedAgain) {
    EXPECT_EQ(removedAgain.error().code(), core::Code::NotFound) << removedAgain.error().message();
  }
}

}  // namespace
}  // namespace nodewright::cloud::aws::testing
