// Live interface drift: the interfaces an instance runs with now against its node class's
// spec.networkInterfaces, by (networkCardIndex, deviceIndex, interfaceType). Pure checks first,
// then end to end: an ENI detached out of band through the EC2 wire drifts the claim.
#include "cloud/aws/drift/interface_layout.h"

#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "drift_fixture.h"
#include "support/cloud/aws/provider_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::cloud::aws::testing {
namespace {

using api::karpenter::EC2NodeClass;

const DriftCheck* named(const std::vector<DriftCheck>& checks, const std::string& name) {
  for (const DriftCheck& c : checks) {
    if (c.name == name) {
      return &c;
    }
  }
  return nullptr;
}

class InterfaceLayoutTest : public ::testing::Test {
 protected:
  DriftCheck check(const InstanceFacts& instance) {
    const auto context = nodeClassDriftContext(nc_, api::karpenter::defaultHashPolicy());
    return drift::interfaceLayoutDrift(context, instance);
  }

  EC2NodeClass nc_ = resolvedNodeClass();  // interfaces at devices 0 and 1, card 0
};

TEST_F(InterfaceLayoutTest, AnInstanceWithTheListedInterfacesPasses) {
  const DriftCheck c = check(runningInstance());
  EXPECT_FALSE(c.drifted);
  EXPECT_EQ(c.detail, "the instance has the 2 listed interfaces (card, device, type)");
}

TEST_F(InterfaceLayoutTest, ADetachedInterfaceDriftsWithItsFieldPath) {
  InstanceFacts instance = runningInstance();
  instance.networkInterfaces.pop_back();  // device 1 gone
  const DriftCheck c = check(instance);
  ASSERT_TRUE(c.drifted);
  EXPECT_EQ(c.reason, "NetworkInterfaceDrifted");
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_EQ(c.changes[0].path, "spec.networkInterfaces[networkCardIndex=0,deviceIndex=1]");
  EXPECT_TRUE(c.changes[0].from.is_null());
  EXPECT_EQ(c.changes[0].to,
            api::Json::parse(R"({"networkCardIndex":0,"deviceIndex":1,"interfaceType":"interface"})"));
  EXPECT_EQ(c.detail,
            "the instance's interfaces no longer contain the node class's: no interface on "
            "network card 0, device 1");
}

TEST_F(InterfaceLayoutTest, AnInterfaceOfAnotherTypeDrifts) {
  nc_.spec.networkInterfaces[1].interfaceType = "efa";
  InstanceFacts instance = runningInstance();
  instance.networkInterfaces[1].interfaceType = "interface";
  const DriftCheck c = check(instance);
  ASSERT_TRUE(c.drifted);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_EQ(c.changes[0].path,
            "spec.networkInterfaces[networkCardIndex=0,deviceIndex=1].interfaceType");
  EXPECT_EQ(c.changes[0].from, api::Json("interface"));
  EXPECT_EQ(c.changes[0].to, api::Json("efa"));
}

TEST_F(InterfaceLayoutTest, ChangesComeSortedByDeviceIndexWhateverTheListOrder) {
  nc_.spec.networkInterfaces = {interfaceAt(2), interfaceAt(0), interfaceAt(1)};
  InstanceFacts instance = runningInstance();
  instance.networkInterfaces.resize(1);  // only the primary left
  const DriftCheck c = check(instance);
  ASSERT_EQ(c.changes.size(), 2u);
  EXPECT_EQ(c.changes[0].path, "spec.networkInterfaces[networkCardIndex=0,deviceIndex=1]");
  EXPECT_EQ(c.changes[1].path, "spec.networkInterfaces[networkCardIndex=0,deviceIndex=2]");
}

TEST_F(InterfaceLayoutTest, ExtraInterfacesAttachedLaterAreNotDrift) {
  InstanceFacts instance = runningInstance();
  InterfaceFacts cni;  // VPC CNI's secondary ENI
  cni.deviceIndex = 2;
  cni.interfaceType = "interface";
  instance.networkInterfaces.push_back(cni);
  InterfaceFacts trunk;
  trunk.deviceIndex = 3;
  trunk.interfaceType = "trunk";
  instance.networkInterfaces.push_back(trunk);
  EXPECT_FALSE(check(instance).drifted);
}

TEST_F(InterfaceLayoutTest, NoReportedInterfacesIsNotCompared) {
  InstanceFacts instance = runningInstance();
  instance.networkInterfaces.clear();
  const DriftCheck c = check(instance);
  EXPECT_FALSE(c.drifted);
  EXPECT_EQ(c.detail, "EC2 reported no network interfaces for the instance: not compared");
}

TEST_F(InterfaceLayoutTest, DeleteOnTerminationNeverDrifts) {
  const auto claim = launchedClaim(nc_);
  nc_.spec.networkInterfaces[1].deleteOnTermination = false;  // behavioral, seed 001
  const auto checks =
      nodeClassDrift(claim, nc_, runningInstance(), api::karpenter::defaultHashPolicy());
  EXPECT_EQ(drifted(checks), std::vector<std::string>{});
  ASSERT_NE(named(checks, "NetworkInterfaces"), nullptr);
}

TEST_F(InterfaceLayoutTest, ANodeClassWithoutInterfacesHasNoSuchCheck) {
  nc_.spec.networkInterfaces.clear();
  const auto claim = launchedClaim(nc_);
  const auto checks =
      nodeClassDrift(claim, nc_, runningInstance(), api::karpenter::defaultHashPolicy());
  EXPECT_EQ(named(checks, "NetworkInterfaces"), nullptr);
}

// End to end over the emulator: a claim launched with two interfaces passes; after its
// secondary ENI is detached through DetachNetworkInterface, the next DescribeInstances the
// provider makes shows one interface and the claim drifts.
class InterfaceLayoutProviderTest : public ProviderTest {
 protected:
  void SetUp() override {
    start();
    wire_ = std::make_unique<emulators::testing::QueryClient>(server_->url(), core::systemClock());
    nc_ = discoveryNodeClass("default");
    nc_.spec.networkInterfaces = {networkInterface(0), networkInterface(1)};
    stack().resolver().invalidate();
    auto resolved = stack().resolver().resolve(nc_);
    ASSERT_TRUE(resolved) << resolved.error().message();
    nc_.status = resolved->status;
    nc_.metadata.resourceVersion = "1";
    nodeClasses_[nc_.metadata.name] = nc_;
  }

  std::unique_ptr<emulators::testing::QueryClient> wire_;
  EC2NodeClass nc_;
};

TEST_F(InterfaceLayoutProviderTest, AnEniDetachedOutOfBandDriftsTheClaim) {
  api::karpenter::NodeClaim claim = nodeClaim("two-enis", "default", {"m5.large"});
  auto machine = provider().create(claim);
  ASSERT_TRUE(machine) << machine.error().message();
  claim.status.providerID = machine->providerID;
  claim.status.imageID = machine->imageID;
  claim.metadata.labels.insert(machine->labels.begin(), machine->labels.end());
  claim.metadata.annotations = machine->annotations;

  auto before = provider().isDrifted(claim);
  ASSERT_TRUE(before) << before.error().message();
  ASSERT_NE(named(*before, "NetworkInterfaces"), nullptr);
  EXPECT_FALSE(named(*before, "NetworkInterfaces")->drifted)
      << named(*before, "NetworkInterfaces")->detail;

  // The secondary's attachment, as DescribeInstances shows it.
  const std::string instanceId = machine->providerID.substr(machine->providerID.rfind('/') + 1);
  auto described = wire_->call("DescribeInstances", {{"InstanceId.1", instanceId}});
  ASSERT_TRUE(described);
  ASSERT_EQ(described->status, 200) << described->body;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(described->body.c_str()));
  const std::string attachment =
      doc.select_node("//networkInterfaceSet/item[attachment/deviceIndex='1']/attachment/"
                      "attachmentId")
          .node()
          .child_value();
  ASSERT_FALSE(attachment.empty()) << described->body;
  auto detached = wire_->call("DetachNetworkInterface", {{"AttachmentId", attachment}});
  ASSERT_TRUE(detached);
  ASSERT_EQ(detached->status, 200) << detached->body;

  // What the controllers' periodic list() sees replaces what the provider remembered.
  ASSERT_TRUE(provider().list());
  auto after = provider().isDrifted(claim);
  ASSERT_TRUE(after) << after.error().message();
  const DriftCheck* c = named(*after, "NetworkInterfaces");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->drifted) << c->detail;
  EXPECT_EQ(c->reason, "NetworkInterfaceDrifted");
  ASSERT_EQ(c->changes.size(), 1u);
  EXPECT_EQ(c->changes[0].path, "spec.networkInterfaces[networkCardIndex=0,deviceIndex=1]");
  // Nothing else moved: the hash and the selectors still pass.
  EXPECT_EQ(drifted(*after), std::vector<std::string>{"NetworkInterfaces"});
}

}  // namespace
}  // namespace nodewright::cloud::aws::testing
