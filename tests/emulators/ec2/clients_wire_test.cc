// Real clients against the emulator: boto3 and the aws command run Karpenter's whole launch flow
// over HTTP with real SigV4 (scripts/flow_*.py), every response parses, and afterwards
// /admin/stats shows nothing leaked and no client token created twice.
//
// The emulator runs on the system clock (the clients sign with their own clocks) on a fast time
// scale, so launches are running within milliseconds; the scripts poll with deadlines.
#include <gtest/gtest.h>

#include <string>

#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::emulators::testing {
namespace {

class Ec2ClientsWireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto missing = missingPythonClients(/*needMoto=*/false, /*needAwsCli=*/true)) {
      FAIL() << *missing;
    }
    auto server = startEc2(core::systemClock(), fastOptions());
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    client_ = std::make_unique<QueryClient>(server_->url(), core::systemClock());
  }

  // What every flow leaves behind: its token created once, no instance still live, no token
  // that created twice.
  void expectCleanAfter(const std::string& token) {
    auto stats = adminStats(*client_);
    ASSERT_TRUE(stats) << stats.error().message();
    EXPECT_EQ((*stats)["createsByClientToken"][token], 1) << stats->dump();
    EXPECT_TRUE((*stats)["duplicateClientTokens"].empty()) << stats->dump();
    EXPECT_EQ(liveCount(*stats, "instance"), 0) << stats->dump();
    EXPECT_EQ(liveCount(*stats, "launch-template"), 0) << stats->dump();
    for (const auto& [action, counts] : (*stats)["requests"].items()) {
      EXPECT_FALSE(counts.contains("errors") && !counts["errors"].empty())
          << action << " failed: " << counts.dump();
    }
  }

  // Runs scripts/<script>, which exits non-zero on any failed step, and checks it launched
  // `instances` instances.
  void runFlow(const std::string& script, const std::string& token, size_t instances) {
    auto run = runScript(script, {server_->url(), token});
    ASSERT_TRUE(run.ok()) << run.describe();
    auto out = parseScriptOutput(run);
    ASSERT_TRUE(out) << out.error().message();
    EXPECT_EQ((*out)["instanceIds"].size(), instances) << out->dump();
  }

  std::unique_ptr<ec2::Ec2Server> server_;
  std::unique_ptr<QueryClient> client_;
};

TEST_F(Ec2ClientsWireTest, Boto3RunsTheWholeFlow) {
  ASSERT_NO_FATAL_FAILURE(runFlow("flow_boto3.py", "wire-boto3-token", 2));
  expectCleanAfter("wire-boto3-token");
}

TEST_F(Ec2ClientsWireTest, AwsCliRunsTheWholeFlow) {
  ASSERT_NO_FATAL_FAILURE(runFlow("flow_awscli.py", "wire-awscli-token", 3));
  expectCleanAfter("wire-awscli-token");
}

TEST_F(Ec2ClientsWireTest, BothClientsAgainstOneEmulatorLeaveNothingBehind) {
  ASSERT_NO_FATAL_FAILURE(runFlow("flow_boto3.py", "shared-boto3", 2));
  ASSERT_NO_FATAL_FAILURE(runFlow("flow_awscli.py", "shared-awscli", 3));
  expectCleanAfter("shared-boto3");
  expectCleanAfter("shared-awscli");
}

}  // namespace
}  // namespace nodewright::emulators::testing
