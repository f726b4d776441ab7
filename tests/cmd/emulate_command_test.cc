#include <signal.h>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "cmd/cmd_test_util.h"
#include "support/apiserver/process.h"

namespace nodewright::cmd {
namespace {

using apiserver::testing::Child;
using apiserver::testing::runProcess;
using testing::runCmd;
using namespace std::chrono_literals;

constexpr std::string_view kListening = "listening on ";

// The binary serves EC2 to the real awscli, signed with the default credentials, and stops
// cleanly on SIGTERM.
TEST(EmulateEc2CommandTest, ServesAwsCliAndStopsOnSigterm) {
  Child child({NW_BINARY, "emulate", "ec2", "--listen", "127.0.0.1:0", "--time-scale", "100"});
  std::string line = child.waitForLine(std::string(kListening), 30s);
  ASSERT_TRUE(line.starts_with("listening on http://127.0.0.1:")) << line;
  const std::string url = line.substr(kListening.size());

  auto ran =
      runProcess({"aws", "--endpoint-url", url, "--region", "us-east-1", "--output", "text", "ec2",
                  "describe-availability-zones", "--query", "AvailabilityZones[].ZoneName"},
                 "",
                 {{"AWS_ACCESS_KEY_ID", "nodewright"},
                  {"AWS_SECRET_ACCESS_KEY", "nodewright"},
                  {"AWS_CONFIG_FILE", "/dev/null"},
                  {"AWS_SHARED_CREDENTIALS_FILE", "/dev/null"},
                  {"AWS_EC2_METADATA_DISABLED", "true"}});
  EXPECT_EQ(ran.code, 0) << ran.err;
  EXPECT_EQ(ran.out, "us-east-1a\tus-east-1b\tus-east-1c\n");

  auto wrong = runProcess(
      {"aws", "--endpoint-url", url, "--region", "us-east-1", "ec2", "describe-availability-zones"},
      "",
      {{"AWS_ACCESS_KEY_ID", "nodewright"},
       {"AWS_SECRET_ACCESS_KEY", "not-the-secret"},
       {"AWS_CONFIG_FILE", "/dev/null"},
       {"AWS_SHARED_CREDENTIALS_FILE", "/dev/null"},
       {"AWS_EC2_METADATA_DISABLED", "true"}});
  EXPECT_NE(wrong.code, 0);
  EXPECT_NE(wrong.err.find("SignatureDoesNotMatch"), std::string::npos) << wrong.err;

  child.kill(SIGTERM);
  EXPECT_EQ(child.wait(10s), 0);
}

TEST(EmulateEc2CommandTest, LoadsTheFullCatalog) {
  Child child({NW_BINARY, "emulate", "ec2", "--listen", "127.0.0.1:0", "--instance-types",
               std::string(NW_SHARED_DIR) + "/data/aws-instance-types.json"});
  ASSERT_FALSE(child.waitForLine(std::string(kListening), 60s).empty());
  std::string types = child.waitForLine("instance types: ", 10s);
  EXPECT_TRUE(types.starts_with("instance types: 1434,")) << types;
  child.kill(SIGTERM);
  EXPECT_EQ(child.wait(10s), 0);
}

TEST(EmulateEc2CommandTest, BadConfigurationFilesExitOneNamingTheProblem) {
  auto missing = runCmd({"emulate", "ec2", "--world", "/nonexistent/world.yaml"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/world.yaml"), std::string::npos) << missing.err;

  auto refused = runCmd({"emulate", "ec2", "--listen", "0.0.0.0:8710"});
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("only loopback addresses"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace nodewright::cmd
