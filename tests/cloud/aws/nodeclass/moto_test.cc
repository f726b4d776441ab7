// NodeClassResolver against moto, the second real peer: a VPC, subnets and a group created in
// moto and tagged, resolved by their tags into the node class status; images by name (owners
// self and amazon) and through an SSM parameter put into moto's SSM.
#include "cloud/aws/nodeclass/resolver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>

#include "aws/json_client.h"
#include "cloud/aws/nodeclass/expect.h"
#include "cloud/aws/nodeclass/status.h"
#include "support/aws/moto_network.h"
#include "support/aws/moto_server.h"
#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::cloud::aws {
namespace {

using namespace testing;
using ::testing::UnorderedElementsAreArray;

class NodeClassResolverMotoTest : public ::testing::Test {
 protected:
  // One moto for the suite: it takes seconds to start. Each test tags with its own cluster.
  static void SetUpTestSuite() { moto_ = new sdk::testing::MotoServer(); }
  static void TearDownTestSuite() {
    delete moto_;
    moto_ = nullptr;
  }

  void SetUp() override {
    if (auto missing = emulators::testing::missingPythonClients(true, false)) {
      FAIL() << *missing;
    }
    ASSERT_EQ(moto_->error(), "");
    auto credentials = [] {
      return sdk::ApiResult<sdk::sigv4::Credentials>(
          sdk::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    sdk::QueryClientOptions q;
    q.endpoint = moto_->url();
    q.region = "us-east-1";
    q.credentials = credentials;
    query_ = std::make_unique<sdk::QueryClient>(core::systemClock(), *transport_, std::move(q));
    ec2_ = std::make_unique<sdk::Ec2Client>(*query_);
    sdk::JsonClientOptions j;
    j.endpoint = moto_->url();
    j.region = "us-east-1";
    j.service = "ssm";
    j.targetPrefix = "AmazonSSM";
    j.credentials = credentials;
    json_ = std::make_unique<sdk::JsonClient>(core::systemClock(), *transport_, std::move(j));
    ssm_ = std::make_unique<sdk::SsmClient>(*json_);
    wire_ = std::make_unique<emulators::testing::QueryClient>(moto_->url(), core::systemClock());
    resolver_ =
        std::make_unique<NodeClassResolver>(core::systemClock(), *ec2_, *ssm_, ResolverOptions{});
  }

  using Network = sdk::testing::MotoNetwork;

  Network network(const std::string& cluster, int octet) {
    return sdk::testing::createMotoNetwork(*wire_, cluster, octet);
  }

  // An x86_64 image moto's amazon account owns.
  sdk::Image amazonImage() {
    auto images = ec2_->describeImages({{"architecture", {"x86_64"}}}, {}, {"amazon"});
    EXPECT_TRUE(images && !images->empty());
    return images && !images->empty() ? images->front() : sdk::Image{};
  }

  api::karpenter::EC2NodeClass nodeClass(const std::string& cluster) {
    api::karpenter::EC2NodeClass nc;
    nc.metadata.name = cluster;
    nc.metadata.generation = 3;
    nc.spec.amiFamily = "AL2023";
    nc.spec.subnetSelectorTerms = {{{{"karpenter.sh/discovery", cluster}}, ""}};
    nc.spec.securityGroupSelectorTerms = {{{{"karpenter.sh/discovery", cluster}}, "", ""}};
    api::karpenter::AMISelectorTerm byName;
    byName.name = amazonImage().name;
    nc.spec.amiSelectorTerms = {byName};
    return nc;
  }

  static sdk::testing::MotoServer* moto_;
  sdk::TransportPtr transport_ = sdk::makeCurlTransport();
  std::unique_ptr<sdk::QueryClient> query_;
  std::unique_ptr<sdk::Ec2Client> ec2_;
  std::unique_ptr<sdk::JsonClient> json_;
  std::unique_ptr<sdk::SsmClient> ssm_;
  std::unique_ptr<emulators::testing::QueryClient> wire_;
  std::unique_ptr<NodeClassResolver> resolver_;
};

sdk::testing::MotoServer* NodeClassResolverMotoTest::moto_ = nullptr;

TEST_F(NodeClassResolverMotoTest, ResolvesTaggedNetworkIntoStatus) {
  const Network n = network("moto-resolve", 21);
  network("moto-elsewhere", 22);  // not selected
  auto r = resolver_->resolve(nodeClass("moto-resolve"));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_THAT(subnetIds(r->subnets), UnorderedElementsAreArray(n.subnets));
  ASSERT_EQ(r->status.subnets.size(), 2u);
  std::set<std::string> zones;
  for (const auto& s : r->status.subnets) {
    zones.insert(s.zone);
    EXPECT_FALSE(s.zoneID.empty()) << s.id;
  }
  EXPECT_EQ(zones, (std::set<std::string>{"us-east-1a", "us-east-1b"}));
  ASSERT_EQ(r->status.securityGroups.size(), 1u);
  EXPECT_EQ(r->status.securityGroups[0].id, n.group);
  EXPECT_EQ(r->status.securityGroups[0].name, "moto-resolve-node");
  ASSERT_EQ(r->images.size(), 1u);
  EXPECT_EQ(r->images[0].id, amazonImage().imageId);
  EXPECT_EQ(r->images[0].architecture, "amd64");
  for (const api::Condition& c : r->status.conditions) {
    EXPECT_EQ(c.status, "True") << c.type << ": " << c.message;
    EXPECT_EQ(c.observedGeneration, 3);
  }
  EXPECT_TRUE(r->ready());
}

TEST_F(NodeClassResolverMotoTest, SelectsByGroupNameAndAnSsmParameter) {
  const Network n = network("moto-names", 23);
  const sdk::Image image = amazonImage();
  auto put = json_->call("PutParameter", {{"Name", "/nodewright/moto/image"},
                                          {"Value", image.imageId},
                                          {"Type", "String"},
                                          {"Overwrite", true}});
  ASSERT_TRUE(put) << put.error().code << ": " << put.error().message;
  auto nc = nodeClass("moto-names");
  nc.spec.securityGroupSelectorTerms = {{{}, "", "moto-names-node"}};
  api::karpenter::AMISelectorTerm ssm;
  ssm.ssmParameter = "/nodewright/moto/image";
  nc.spec.amiSelectorTerms = {ssm};
  auto r = resolver_->resolve(nc);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(groupIds(r->securityGroups), std::vector<std::string>{n.group});
  EXPECT_EQ(imageIds(r->images), std::vector<std::string>{image.imageId});
}

TEST_F(NodeClassResolverMotoTest, NothingTaggedIsAFalseCondition) {
  auto r = resolver_->resolve(nodeClass("moto-nobody"));
  ASSERT_TRUE(r) << r.error().message();
  api::Condition subnets = condition(*r, nodeclass::kSubnetsReady);
  EXPECT_EQ(subnets.status, "False");
  EXPECT_EQ(subnets.reason, "SubnetsNotFound");
  EXPECT_EQ(condition(*r, nodeclass::kSecurityGroupsReady).reason, "SecurityGroupsNotFound");
  EXPECT_FALSE(r->ready());
}

}  // namespace
}  // namespace nodewright::cloud::aws
