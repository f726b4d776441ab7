#include <gtest/gtest.h>

#include "cmd_test_util.h"

// `nodewright controller` refuses to start without what it cannot guess, naming the flag, and
// exits 2 (usage) rather than running against the wrong cluster.
namespace nodewright::cmd {
namespace {

using testing::runCmd;

TEST(ControllerCommandTest, TheClusterNameIsRequired) {
  auto r = runCmd({"controller", "--kubeconfig", "/nonexistent/kubeconfig"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--cluster-name: required"), std::string::npos) << r.err;
}

TEST(ControllerCommandTest, AMissingKubeconfigIsAUsageError) {
  auto r = runCmd({"controller", "--cluster-name", "demo", "--kubeconfig",
                   "/nonexistent/kubeconfig", "--ec2-endpoint", "http://127.0.0.1:1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("error: kubeconfig:"), std::string::npos) << r.err;
}

TEST(ControllerCommandTest, AnUnknownPendingRuleIsRejected) {
  auto r = runCmd({"controller", "--cluster-name", "demo", "--pending", "sometimes"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--pending"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nodewright::cmd
