// The YAML blocks of the design documents in ../shared/seeds, fed to the commands as a user
// would paste them.
#include <gtest/gtest.h>

#include "cmd_test_util.h"

namespace nodewright::cmd {
namespace {

using testing::lines;
using testing::Ran;
using testing::ScratchDir;
using Lines = std::vector<std::string>;

// The fenced (```) blocks of a seed document, in order.
std::vector<std::string> fencedBlocks(const std::string& seed) {
  std::vector<std::string> blocks;
  std::string text = testing::readFile(std::string(NW_SHARED_DIR) + "/seeds/" + seed);
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      inside = !inside;
      if (inside) {
        blocks.emplace_back();
      }
      continue;
    }
    if (inside) {
      blocks.back() += line + "\n";
    }
  }
  return blocks;
}

// The block that contains `marker`.
std::string blockWith(const std::string& seed, const std::string& marker) {
  for (const std::string& b : fencedBlocks(seed)) {
    if (b.find(marker) != std::string::npos) {
      return b;
    }
  }
  return {};
}

class SeedManifestsTest : public ::testing::Test {
 protected:
  ScratchDir dir_;
};

TEST_F(SeedManifestsTest, Seed001AwsNodeTemplateWithNetworkInterfacesIsValid) {
  std::string block = blockWith("001_6781d34034bb3f49.txt", "kind: AWSNodeTemplate\nmetadata:");
  ASSERT_NE(block, "");
  std::string file = dir_.write("001.yaml", block);
  Ran r = testing::runCmd({"validate", "-f", file});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, file + ":0: AWSNodeTemplate/default: valid\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(SeedManifestsTest, Seed001AwsNodeTemplateIsRejectedWhenStrict) {
  std::string block = blockWith("001_6781d34034bb3f49.txt", "kind: AWSNodeTemplate\nmetadata:");
  std::string file = dir_.write("001.yaml", block);
  Ran r = testing::runCmd({"validate", "--strict", "-f", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  // The documentation's "..." is an ordinary string to the API server.
  EXPECT_NE(
      r.err.find(file + ":0: AWSNodeTemplate/default: spec.detailedMonitoring: Invalid value: "
                        "\"...\": must be of type boolean\n"),
      std::string::npos)
      << r.err;
}

TEST_F(SeedManifestsTest, Seed001AwsNodeTemplateConvertsToEc2NodeClass) {
  std::string block = blockWith("001_6781d34034bb3f49.txt", "kind: AWSNodeTemplate\nmetadata:");
  std::string file = dir_.write("001.yaml", block);
  Ran r = testing::runCmd({"convert", "-f", file, "-o", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  api::Json out = api::Json::parse(r.out);
  EXPECT_EQ(out["apiVersion"], "karpenter.k8s.aws/v1");
  EXPECT_EQ(out["kind"], "EC2NodeClass");
  EXPECT_EQ(out["metadata"]["name"], "default");
  ASSERT_EQ(out["spec"]["networkInterfaces"].size(), 1u) << r.out;
  const api::Json& nic = out["spec"]["networkInterfaces"][0];
  EXPECT_EQ(nic["associateCarrierIPAddress"], false);
  EXPECT_EQ(nic["associatePublicIPAddress"], false);
  EXPECT_EQ(nic["deleteOnTermination"], false);
  EXPECT_EQ(nic["deviceIndex"], 0);
  EXPECT_EQ(nic["interfaceType"], "interface");
  EXPECT_EQ(nic["networkCardIndex"], 0);
  EXPECT_EQ(nic["ipv4PrefixCount"], 1);
  EXPECT_EQ(nic["ipv6PrefixCount"], 1);
}

TEST_F(SeedManifestsTest, Seed002ProvisionerSpecTemplateIsValidAsAProvisioner) {
  std::string block = blockWith("002_0344a53d10055d7d.txt", "spec:\n  template:");
  ASSERT_NE(block, "");
  std::string file = dir_.write("002.yaml", block);
  Ran r = testing::runCmd({"validate", "-f", file, "--kind", "karpenter.sh/v1alpha5/Provisioner"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, file + ":0: Provisioner/<unnamed>: valid\n");
  EXPECT_EQ(r.err, file + ":0: Provisioner/<unnamed>: warning: metadata.name: Required value\n");
}

TEST_F(SeedManifestsTest, Seed002ProvisionerSpecTemplateConvertsToNodePool) {
  std::string block = blockWith("002_0344a53d10055d7d.txt", "spec:\n  template:");
  std::string file = dir_.write("002.yaml", block);
  Ran r = testing::runCmd({"convert", "-f", file, "--kind", "karpenter.sh/v1alpha5/Provisioner"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.out).at(0), "apiVersion: karpenter.sh/v1");
  EXPECT_EQ(lines(r.out).at(1), "kind: NodePool");
}

}  // namespace
}  // namespace nodewright::cmd
