// Ec2Client against moto, the second real peer: the calls moto implements, on a VPC the test
// creates with its own Query client (Ec2Client has no CreateVpc). Launch templates are read
// back with that client, so the assertions see what moto recorded.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "aws/ec2_client.h"
#include "aws/error_class.h"
#include "support/aws/moto_network.h"
#include "support/aws/moto_server.h"
#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::aws {
namespace {

class Ec2ClientMotoTest : public ::testing::Test {
 protected:
  // One moto for the suite: it takes seconds to start. Each test makes its own VPC and names.
  static void SetUpTestSuite() { moto_ = new testing::MotoServer(); }
  static void TearDownTestSuite() {
    delete moto_;
    moto_ = nullptr;
  }

  void SetUp() override {
    if (auto missing = emulators::testing::missingPythonClients(true, false)) {
      FAIL() << *missing;
    }
    ASSERT_EQ(moto_->error(), "");
    QueryClientOptions o;
    o.endpoint = moto_->url();
    o.region = "us-east-1";
    o.credentials = [] {
      return ApiResult<sigv4::Credentials>(sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    query_ = std::make_unique<QueryClient>(core::systemClock(), *transport_, std::move(o));
    ec2_ = std::make_unique<Ec2Client>(*query_);
    wire_ = std::make_unique<emulators::testing::QueryClient>(moto_->url(), core::systemClock());
  }

  using Network = testing::MotoNetwork;

  Network network(const std::string& cluster, int octet) {
    return testing::createMotoNetwork(*wire_, cluster, octet);
  }

  std::string anyImage() {
    auto images = ec2_->describeImages({{"architecture", {"x86_64"}}}, {}, {"amazon"});
    EXPECT_TRUE(images && !images->empty());
    return images && !images->empty() ? images->front().imageId : "";
  }

  static testing::MotoServer* moto_;
  TransportPtr transport_ = makeCurlTransport();
  std::unique_ptr<QueryClient> query_;
  std::unique_ptr<Ec2Client> ec2_;
  std::unique_ptr<emulators::testing::QueryClient> wire_;
};

testing::MotoServer* Ec2ClientMotoTest::moto_ = nullptr;

TEST_F(Ec2ClientMotoTest, DiscoversSubnetsGroupsZonesTypesAndImages) {
  const Network n = network("moto-discovery", 11);
  const Filter discovery{"tag:karpenter.sh/discovery", {"moto-discovery"}};
  auto subnets = ec2_->describeSubnets({discovery});
  ASSERT_TRUE(subnets) << subnets.error().code << ": " << subnets.error().message;
  ASSERT_EQ(subnets->size(), 2u);
  std::set<std::string> zones;
  for (const Subnet& s : *subnets) {
    zones.insert(s.availabilityZone);
    EXPECT_EQ(s.vpcId, n.vpc);
    EXPECT_GT(s.availableIpAddressCount, 0);
    EXPECT_EQ(s.tags.at("karpenter.sh/discovery"), "moto-discovery");
  }
  EXPECT_EQ(zones, (std::set<std::string>{"us-east-1a", "us-east-1b"}));

  auto groups = ec2_->describeSecurityGroups({discovery});
  ASSERT_TRUE(groups) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ(groups->front().groupId, n.group);
  EXPECT_EQ(groups->front().groupName, "moto-discovery-node");

  auto az = ec2_->describeAvailabilityZones();
  ASSERT_TRUE(az) << az.error().message;
  EXPECT_NE(std::find_if(az->begin(), az->end(),
                         [](const AvailabilityZone& z) { return z.zoneName == "us-east-1a"; }),
            az->end());

  auto all = ec2_->describeInstanceTypes();
  ASSERT_TRUE(all) << all.error().code << ": " << all.error().message;
  EXPECT_GT(all->size(), 100u);
  auto types = ec2_->describeInstanceTypes({"m5.large", "m5.xlarge"});
  ASSERT_TRUE(types) << types.error().message;
  ASSERT_EQ(types->size(), 2u);
  for (const InstanceTypeInfo& t : *types) {
    const bool large = t.instanceType == "m5.large";
    EXPECT_EQ(t.defaultVCpus, large ? 2 : 4) << t.instanceType;
    EXPECT_EQ(t.memoryMiB, large ? 8192 : 16384) << t.instanceType;
    EXPECT_EQ(t.maximumNetworkInterfaces, large ? 3 : 4) << t.instanceType;
    ASSERT_NE(t.card(0), nullptr) << t.instanceType;
    EXPECT_EQ(t.card(0)->maximumNetworkInterfaces, large ? 3 : 4) << t.instanceType;
  }

  auto offerings = ec2_->describeInstanceTypeOfferings();
  ASSERT_TRUE(offerings) << offerings.error().message;
  EXPECT_NE(std::find_if(offerings->begin(), offerings->end(),
                         [](const InstanceTypeOffering& o) {
                           return o.instanceType == "m5.large" && o.location == "us-east-1a";
                         }),
            offerings->end());

  const std::string image = anyImage();
  auto byId = ec2_->describeImages({}, {image});
  ASSERT_TRUE(byId) << byId.error().message;
  ASSERT_EQ(byId->size(), 1u);
  EXPECT_EQ(byId->front().architecture, "x86_64");
}

TEST_F(Ec2ClientMotoTest, LaunchTemplateWithFourInterfacesReadsBackAsSent) {
  const Network n = network("moto-lt", 12);
  LaunchTemplateData d;
  d.imageId = anyImage();
  d.metadataOptions = {"enabled", "", "required", 1};
  for (int i = 0; i < 4; ++i) {
    LaunchTemplateNetworkInterface ni;
    ni.deviceIndex = i == 0 ? 0 : 1;
    ni.networkCardIndex = i;
    ni.deleteOnTermination = true;
    ni.description = "if-" + std::to_string(i);
    ni.groups = {n.group};
    ni.interfaceType = i == 3 ? "efa" : "";
    d.networkInterfaces.push_back(ni);
  }
  const Tags tags{{"karpenter.k8s.aws/ec2nodeclass", "moto"}};
  auto created = ec2_->createLaunchTemplate("moto-four", d, tags);
  ASSERT_TRUE(created) << created.error().code << ": " << created.error().message;
  EXPECT_TRUE(created->launchTemplateId.starts_with("lt-"));

  auto read = wire_->call("DescribeLaunchTemplateVersions", {{"LaunchTemplateName", "moto-four"}});
  ASSERT_TRUE(read) << read.error().message();
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(read->body.c_str())) << read->body;
  pugi::xml_node data =
      doc.select_node("//launchTemplateVersionSet/item/launchTemplateData").node();
  ASSERT_TRUE(data) << read->body;
  std::vector<pugi::xml_node> nis;
  for (pugi::xml_node item : data.child("networkInterfaceSet").children("item")) {
    nis.push_back(item);
  }
  ASSERT_EQ(nis.size(), 4u) << read->body;
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    pugi::xml_node ni = nis[static_cast<size_t>(i)];
    EXPECT_STREQ(ni.child_value("deviceIndex"), i == 0 ? "0" : "1");
    EXPECT_STREQ(ni.child_value("networkCardIndex"), std::to_string(i).c_str());
    EXPECT_STREQ(ni.child_value("description"), ("if-" + std::to_string(i)).c_str());
    EXPECT_STREQ(ni.child_value("interfaceType"), i == 3 ? "efa" : "");
    EXPECT_FALSE(ni.child("associatePublicIpAddress"));
  }
  EXPECT_STREQ(data.child("metadataOptions").child_value("httpTokens"), "required");

  auto byTag =
      ec2_->describeLaunchTemplates({}, {{"tag:karpenter.k8s.aws/ec2nodeclass", {"moto"}}});
  ASSERT_TRUE(byTag) << byTag.error().code << ": " << byTag.error().message;
  ASSERT_EQ(byTag->size(), 1u);
  EXPECT_EQ(byTag->front().launchTemplateName, "moto-four");
  ASSERT_TRUE(ec2_->deleteLaunchTemplate("moto-four"));
  auto gone = ec2_->describeLaunchTemplates({"moto-four"});
  ASSERT_FALSE(gone);
  EXPECT_EQ(classify(gone.error()), ErrorClass::NotFound) << gone.error().code;
}

TEST_F(Ec2ClientMotoTest, FleetLaunchesThenDescribesTagsAndTerminates) {
  const Network n = network("moto-fleet", 13);
  LaunchTemplateData d;
  d.imageId = anyImage();
  d.securityGroupIds = {n.group};
  ASSERT_TRUE(ec2_->createLaunchTemplate("moto-fleet", d, {}));

  FleetRequest request;
  request.launchTemplateConfigs = {
      {"moto-fleet", "$Latest", {{"m5.large", n.subnets[1], "us-east-1b", {}, {}}}}};
  request.capacityType = "on-demand";
  request.allocationStrategy = "lowest-price";
  request.clientToken = "moto-claim-1";
  request.tags = {{"karpenter.sh/nodeclaim", "moto-claim"}};
  auto fleet = ec2_->createFleet(request);
  ASSERT_TRUE(fleet) << fleet.error().code << ": " << fleet.error().message;
  ASSERT_EQ(fleet->instanceIds.size(), 1u);
  EXPECT_TRUE(fleet->fleetId.starts_with("fleet-")) << fleet->fleetId;
  const std::string id = fleet->instanceIds[0];

  auto described = ec2_->describeInstances({id});
  ASSERT_TRUE(described) << described.error().code << ": " << described.error().message;
  ASSERT_EQ(described->size(), 1u);
  EXPECT_EQ(described->front().instanceType, "m5.large");
  EXPECT_EQ(described->front().subnetId, n.subnets[1]);
  EXPECT_EQ(described->front().availabilityZone, "us-east-1b");
  EXPECT_EQ(described->front().imageId, d.imageId);

  ASSERT_TRUE(ec2_->createTags({id}, {{"karpenter.sh/registered", "true"}}));
  auto tagged = ec2_->describeInstances(
      {}, {{"tag:karpenter.sh/registered", {"true"}}, {"subnet-id", {n.subnets[1]}}});
  ASSERT_TRUE(tagged) << tagged.error().message;
  ASSERT_EQ(tagged->size(), 1u);
  EXPECT_EQ(tagged->front().instanceId, id);

  auto terminated = ec2_->terminateInstances({id});
  ASSERT_TRUE(terminated) << terminated.error().code << ": " << terminated.error().message;
  ASSERT_EQ(terminated->size(), 1u);
  EXPECT_EQ(terminated->front().instanceId, id);
  EXPECT_EQ(terminated->front().previousState, "running");
  EXPECT_TRUE(terminated->front().currentState == "shutting-down" ||
              terminated->front().currentState == "terminated")
      << terminated->front().currentState;
}

}  // namespace
}  // namespace nodewright::aws
