// Against `nodewright up`, the read-only commands need no AWS flags: up leaves the cluster's
// name and its emulated EC2 beside the kubeconfig (cmd/embedded_cluster.h), and the commands
// read them from the directory the kubeconfig came from.
#include "cmd/embedded_cluster.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "cmd/cmd_test_util.h"
#include "cmd/inspect_env.h"

namespace nodewright::cmd::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// No AWS credentials, profile or metadata service in reach: only the data directory's.
const std::map<std::string, std::string> kNoAws = {{"AWS_ACCESS_KEY_ID", ""},
                                                   {"AWS_SECRET_ACCESS_KEY", ""},
                                                   {"AWS_CONFIG_FILE", "/dev/null"},
                                                   {"AWS_SHARED_CREDENTIALS_FILE", "/dev/null"},
                                                   {"AWS_EC2_METADATA_DISABLED", "true"},
                                                   {"CLUSTER_NAME", ""},
                                                   {"KUBECONFIG", ""}};

class EmbeddedClusterTest : public InspectEnv {
 protected:
  // What `up` leaves in its data directory, here the test API server's, pointing at the
  // fixture's EC2 emulator.
  void describeCluster() {
    const fs::path dir = fs::path(apiServer_.kubeconfig()).parent_path();
    fs::create_directories(dir / "aws");
    std::ofstream(dir / "aws" / "credentials")
        << "[default]\naws_access_key_id = nodewright\naws_secret_access_key = nodewright\n";
    std::ofstream(dir / "aws" / "config") << "[default]\nregion = us-east-1\n";
    EmbeddedCluster cluster;
    cluster.clusterName = kCluster;
    cluster.region = "us-east-1";
    cluster.ec2Endpoint = ec2_->url();
    cluster.ssmEndpoint = ec2_->url();
    cluster.awsConfigFile = (dir / "aws" / "config").string();
    cluster.awsCredentialsFile = (dir / "aws" / "credentials").string();
    ASSERT_TRUE(writeEmbeddedCluster(dir.string(), cluster));
  }
};

TEST_F(EmbeddedClusterTest, DriftExplainFindsTheClusterNameEndpointsAndKeyBesideTheKubeconfig) {
  const NodePool pool = addPool();
  launch("fresh", pool);
  describeCluster();
  auto r = apiserver::testing::runProcess(
      {NW_BINARY, "drift", "explain", "fresh", "--kubeconfig", apiServer_.kubeconfig()}, "",
      kNoAws);
  ASSERT_EQ(r.code, 0) << r.err;
  // The instance was found and checked through the emulator: every cloud check ran.
  EXPECT_NE(r.out.find("PASS AMI"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PASS SecurityGroups"), std::string::npos) << r.out;
  EXPECT_EQ(lines(r.out).back(), "not drifted") << r.out;
}

TEST_F(EmbeddedClusterTest, WithoutTheDescriptionTheClusterNameIsStillRequired) {
  addPool();
  auto r = apiserver::testing::runProcess(
      {NW_BINARY, "disruption", "plan", "--kubeconfig", apiServer_.kubeconfig()}, "", kNoAws);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("error: --cluster-name: required", 0), 0u) << r.err;
}

// The real `nodewright up`, no flags but its address and data directory: it stays up after
// "ready" until SIGTERM, and `disruption plan` finds its cluster from the kubeconfig alone.
TEST(UpStaysUpTest, StaysUpUntilSigtermAndTheReadOnlyCommandsFindItsCloud) {
  ScratchDir dir;
  const std::string data = (dir.path() / "data").string();
  apiserver::testing::Child up({NW_BINARY, "up", "--data-dir", data, "--listen", "127.0.0.1:0"});
  ASSERT_NE(up.waitForLine("nodewright is ready", 120s), "");
  auto plan = apiserver::testing::runProcess(
      {NW_BINARY, "disruption", "plan", "--kubeconfig", data + "/kubeconfig"}, "", kNoAws);
  EXPECT_EQ(plan.code, 0) << plan.err;
  EXPECT_EQ(plan.err, "");
  auto drift = apiserver::testing::runProcess(
      {NW_BINARY, "drift", "explain", "nope", "--kubeconfig", data + "/kubeconfig"}, "", kNoAws);
  EXPECT_EQ(drift.code, 1);
  EXPECT_EQ(drift.err, "error: nodeclaim nope not found\n");
  up.kill(SIGTERM);
  EXPECT_EQ(up.wait(30s), 0);
}

}  // namespace
}  // namespace nodewright::cmd::testing
