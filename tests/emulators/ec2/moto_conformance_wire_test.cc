// Conformance against moto: the same boto3 calls go to moto's server and to the emulator, and
// the response shapes (key paths, lists collapsed, values ignored) must match for every action
// both support, in both directions, except for the differences scripts/moto_conformance.py
// allows with a reason. Error codes of calls that must fail, and the facts of the instance
// types both describe, must agree too.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/emulators/ec2_fixture.h"

namespace nodewright::emulators::testing {
namespace {

// "DescribeSubnets: only moto has" -> its paths, leaving out those below a listed one.
std::map<std::string, std::vector<std::string>> groupDifferences(const api::Json& unexpected) {
  std::map<std::string, std::vector<std::string>> groups;
  for (const auto& d : unexpected) {
    const std::string only = d["only"].get<std::string>();
    const std::string what =
        d["call"].get<std::string>() + (only == "value"        ? ": facts differ"
                                        : only == "error code" ? ": error codes differ"
                                                               : ": only " + only + " has");
    std::vector<std::string>& paths = groups[what];
    const std::string path = d["path"].get<std::string>();
    const bool below = !paths.empty() && (path.starts_with(paths.back() + ".") ||
                                          path.starts_with(paths.back() + "["));
    if (!below) {
      paths.push_back(path);
    }
  }
  return groups;
}

class Ec2MotoConformanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto missing = missingPythonClients(/*needMoto=*/true, /*needAwsCli=*/false)) {
      FAIL() << *missing;
    }
    auto server = startEc2(core::systemClock(), fastOptions());
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
  }

  std::unique_ptr<ec2::Ec2Server> server_;
};

TEST_F(Ec2MotoConformanceTest, ResponseShapesMatchMotoForEveryActionBothSupport) {
  auto run = runScript("moto_conformance.py", {server_->url()});
  ASSERT_TRUE(run.ok()) << run.describe();
  auto out = parseScriptOutput(run);
  ASSERT_TRUE(out) << out.error().message();

  // Every action of the flow was compared; none was skipped as unsupported by moto.
  std::set<std::string> compared;
  for (const auto& name : (*out)["compared"]) {
    compared.insert(name.get<std::string>());
  }
  for (const char* action :
       {"DescribeAvailabilityZones", "DescribeInstanceTypes", "DescribeInstanceTypeOfferings",
        "DescribeVpcs", "DescribeSubnets", "DescribeSecurityGroups", "DescribeImages",
        "DescribeSpotPriceHistory", "GetParameter", "CreateLaunchTemplate",
        "DescribeLaunchTemplates", "DescribeLaunchTemplateVersions", "CreateFleet", "RunInstances",
        "DescribeInstances", "CreateTags", "DeleteTags", "TerminateInstances",
        "DeleteLaunchTemplate"}) {
    EXPECT_TRUE(compared.contains(action)) << action << " was not compared: " << out->dump();
  }
  EXPECT_TRUE((*out)["skipped"].empty()) << (*out)["skipped"].dump();

  for (const auto& [what, paths] : groupDifferences((*out)["unexpected"])) {
    std::string list;
    for (const std::string& path : paths) {
      list += "\n  " + path;
    }
    ADD_FAILURE() << what << ":" << list;
  }
  // Allowlist entries nothing needs any more should go; they do not fail the test, since a
  // newer moto may close a gap on its side.
  for (const auto& s : (*out)["stale"]) {
    std::cout << "stale allowlist entry: " << s.dump() << "\n";
  }
}

}  // namespace
}  // namespace nodewright::emulators::testing
