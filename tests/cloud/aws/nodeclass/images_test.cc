// Which image a requirement set gets: the newest, a deprecated one only when the set has no
// other, with the account's own images (always visible to DescribeImages) as the fixture.
#include "cloud/aws/nodeclass/resolver.h"

#include <gtest/gtest.h>

#include "cloud/aws/nodeclass/emulated_peer.h"
#include "cloud/aws/nodeclass/expect.h"
#include "cloud/aws/nodeclass/status.h"

namespace nodewright::cloud::aws {
namespace {

using namespace testing;
using emulators::ec2::Architecture;

emulators::ec2::ImageConfig teamImage(const std::string& id, Architecture arch,
                                      const std::string& created,
                                      std::optional<std::string> deprecated = std::nullopt) {
  emulators::ec2::ImageConfig image;
  image.id = id;
  image.name = "team-" + id;
  image.architecture = arch;
  image.creationDate = created;
  image.deprecationTime = std::move(deprecated);
  image.tags = {{"team", "a"}};
  return image;
}

class NodeClassImagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto options = emulators::testing::fastOptions();
    // The clock starts in November 2023: 2023-01-01 is past, 2030-01-01 is not.
    options.world.images = {
        teamImage("ami-00000000000000a01", Architecture::X86_64, "2024-01-01T00:00:00.000Z"),
        teamImage("ami-00000000000000a02", Architecture::X86_64, "2024-03-01T00:00:00.000Z"),
        teamImage("ami-00000000000000a03", Architecture::X86_64, "2024-06-01T00:00:00.000Z",
                  "2023-01-01T00:00:00.000Z"),
        teamImage("ami-00000000000000b01", Architecture::Arm64, "2024-02-01T00:00:00.000Z",
                  "2023-01-01T00:00:00.000Z"),
        teamImage("ami-00000000000000b02", Architecture::Arm64, "2023-12-01T00:00:00.000Z",
                  "2023-02-01T00:00:00.000Z"),
        teamImage("ami-00000000000000c01", Architecture::X86_64, "2024-01-01T00:00:00.000Z",
                  "2030-01-01T00:00:00.000Z")};
    options.world.images[5].tags = {{"team", "c"}};
    peer_ = std::make_unique<EmulatedPeer>(clock_, std::move(options));
    ASSERT_TRUE(peer_->ok());
    resolver_ =
        std::make_unique<NodeClassResolver>(clock_, peer_->ec2(), peer_->ssm(), ResolverOptions{});
  }

  ResolvedNodeClass resolveTeam(const std::string& team) {
    auto nc = discoveryNodeClass();
    nc.spec.amiFamily = "AL2023";
    api::karpenter::AMISelectorTerm term;
    term.tags = {{"team", team}};
    nc.spec.amiSelectorTerms = {term};
    auto r = resolver_->resolve(nc);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : ResolvedNodeClass{};
  }

  core::FakeClock clock_;
  std::unique_ptr<EmulatedPeer> peer_;
  std::unique_ptr<NodeClassResolver> resolver_;
};

TEST_F(NodeClassImagesTest, PicksTheNewestUndeprecatedImagePerArchitectureNewestFirst) {
  ResolvedNodeClass r = resolveTeam("a");
  // amd64: a03 is newer but deprecated, a02 is the newest of the rest. arm64: both are
  // deprecated, so the newer of them stays, marked.
  EXPECT_EQ(imageIds(r.images),
            (std::vector<std::string>{"ami-00000000000000a02", "ami-00000000000000b01"}));
  ASSERT_EQ(r.status.amis.size(), 2u);
  EXPECT_FALSE(r.status.amis[0].deprecated);
  EXPECT_TRUE(r.status.amis[1].deprecated);
  EXPECT_EQ(r.status.amis[1].name, "team-ami-00000000000000b01");
  EXPECT_EQ(r.status.amis[1].requirements.size(), 1u);
  EXPECT_EQ(r.status.amis[1].requirements[0].key, "kubernetes.io/arch");
  EXPECT_EQ(r.status.amis[1].requirements[0].operator_, "In");
  EXPECT_EQ(condition(r, nodeclass::kAMIsReady).status, "True");
}

TEST_F(NodeClassImagesTest, ADeprecationTimeStillAheadIsNotDeprecated) {
  ResolvedNodeClass r = resolveTeam("c");
  ASSERT_EQ(r.images.size(), 1u);
  EXPECT_FALSE(r.images[0].deprecated);
}

}  // namespace
}  // namespace nodewright::cloud::aws
