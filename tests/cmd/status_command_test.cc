#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "cmd_test_util.h"
#include "status_env.h"
#include "support/apiserver/process.h"

namespace nodewright::cmd {
namespace {

using apiserver::testing::runProcess;
using testing::lines;

// The line of `text` matching `pattern` whole, or "" (ages vary, so lines are matched by regex).
std::string lineMatching(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  for (const std::string& line : lines(text)) {
    if (std::regex_match(line, re)) {
      return line;
    }
  }
  return "";
}

class StatusCommandTest : public testing::StatusEnv {};

TEST_F(StatusCommandTest, OncePrintsNodesPoolsAndAzureObjectsWithoutEscapes) {
  addPool("default", "1000");
  addNode("node-a", "m5.large", "on-demand");
  addNode("node-b", "c5.large", "spot");
  addClaim("default-a", "aws:///us-east-1a/i-node-a", /*drifted=*/true);
  addClaim("default-c", "", /*drifted=*/false);
  addPod("web", "node-a", "1600m", "4Gi");
  addPod("waiting", "", "1", "1Gi");
  addAzureMachine("demo-md-0");

  auto ran = runProcess({NW_BINARY, "status", "--once", "--kubeconfig", apiServer_.kubeconfig()});
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_EQ(ran.err, "");
  EXPECT_EQ(ran.out.find('\033'), std::string::npos) << ran.out;
  const std::string& out = ran.out;
  // Spot has no built-in price, so the cost is node-a's and the launching m5.xlarge's.
  EXPECT_EQ(lines(out).at(0),
            "nodewright status  nodes 2 (+1 launching)  pods 2 (1 pending)  cost $0.288/h  "
            "cloud objects 1");
  EXPECT_NE(lineMatching(out,
                         "NODE +NODEPOOL +TYPE +ZONE +CAPACITY +PRICE/H +CPU +MEMORY +PODS "
                         "+STATE +AGE"),
            "")
      << out;
  EXPECT_NE(lineMatching(out,
                         "node-a +default +m5\\.large +us-east-1a +on-demand +\\$0\\.096 +"
                         "cpu ████████░░  80% +mem █████░░░░░  50% +1 +ready,drifted +\\d+s"),
            "")
      << out;
  EXPECT_NE(lineMatching(out,
                         "node-b +default +c5\\.large +us-east-1a +spot +- +"
                         "cpu ░░░░░░░░░░   0% +mem ░░░░░░░░░░   0% +0 +ready +\\d+s"),
            "")
      << out;
  EXPECT_NE(lineMatching(out,
                         "default-c +default +m5\\.xlarge +us-east-1b +on-demand +\\$0\\.192 +"
                         "cpu ░░░░░░░░░░   0% +mem ░░░░░░░░░░   0% +0 +launching +\\d+s"),
            "")
      << out;
  // Two nodes of 2 CPUs / 8Gi and the launching claim's 4 / 16Gi count against the limit.
  EXPECT_NE(lineMatching(out, "default +3 +8 +32Gi +\\$0\\.288 +cpu 8/1000"), "") << out;
  EXPECT_NE(lineMatching(out, "AzureMachine default/demo-md-0  not-ready  vm Creating  age \\d+s"),
            "")
      << out;
  EXPECT_NE(lineMatching(out, "  VMRunning +False +Creating"), "") << out;
  EXPECT_NE(lineMatching(out, "  future PUT virtualmachine/demo-md-0 \\d+s"), "") << out;
}

TEST_F(StatusCommandTest, ViewIsAnAliasOfStatus) {
  addNode("node-a", "m5.large", "on-demand");
  auto ran = runProcess({NW_BINARY, "view", "--once", "--kubeconfig", apiServer_.kubeconfig()});
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_EQ(lines(ran.out).at(0),
            "nodewright status  nodes 1  pods 0  cost $0.096/h  cloud objects 0");
}

TEST_F(StatusCommandTest, UnreachableServerIsOneLineAndExitsOne) {
  const std::string kubeconfig = apiServer_.kubeconfig();
  apiServer_.stop();
  auto ran = runProcess({NW_BINARY, "status", "--once", "--kubeconfig", kubeconfig});
  EXPECT_EQ(ran.code, 1);
  EXPECT_EQ(ran.out, "");
  ASSERT_EQ(lines(ran.err).size(), 1u) << ran.err;
  EXPECT_TRUE(ran.err.starts_with("error: https://127.0.0.1:")) << ran.err;
  EXPECT_NE(ran.err.find("listing nodes"), std::string::npos) << ran.err;
}

TEST(StatusCommandErrorsTest, MissingKubeconfigIsOneLineAndExitsOne) {
  auto ran = runProcess({NW_BINARY, "status", "--once", "--kubeconfig", "/nonexistent/kubeconfig"});
  EXPECT_EQ(ran.code, 1);
  EXPECT_EQ(ran.out, "");
  ASSERT_EQ(lines(ran.err).size(), 1u) << ran.err;
  EXPECT_TRUE(ran.err.starts_with("error: kubeconfig: ")) << ran.err;
}

}  // namespace
}  // namespace nodewright::cmd
