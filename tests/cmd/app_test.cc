#include "cmd/app.h"

#include <regex>

#include <gtest/gtest.h>

#include "cmd_test_util.h"

namespace nodewright::cmd {
namespace {

using testing::lines;
using testing::runCmd;

TEST(AppTest, VersionPrintsTheProjectVersion) {
  auto r = runCmd({"version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(std::regex_match(r.out, std::regex("nodewright [0-9]+\\.[0-9]+\\.[0-9]+\n")))
      << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(AppTest, VersionFlagPrintsTheSameVersion) {
  auto r = runCmd({"--version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, runCmd({"version"}).out);
}

TEST(AppTest, NoSubcommandIsAUsageError) {
  auto r = runCmd({});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), (std::vector<std::string>{"A subcommand is required",
                                                    "Run with --help for more information."}));
}

TEST(AppTest, UnknownSubcommandIsAUsageError) {
  auto r = runCmd({"frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "unknown command \"frobnicate\"\nRun with --help for more information.\n");
}

TEST(AppTest, UnknownFlagIsAUsageError) {
  auto r = runCmd({"validate", "-f", "x.yaml", "--no-such-flag"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
}

TEST(AppTest, RootHelpListsEveryCommandOfTheContract) {
  for (const char* flag : {"--help", "-h"}) {
    auto r = runCmd({flag});
    EXPECT_EQ(r.code, 0) << flag;
    EXPECT_EQ(r.err, "") << flag;
    for (const char* command :
         {"up", "validate", "convert", "explain", "crds", "version", "apiserver", "controller",
          "emulate", "drift", "disruption", "status"}) {
      EXPECT_NE(r.out.find("\n  " + std::string(command) + " "), std::string::npos)
          << flag << " lacks " << command << ":\n"
          << r.out;
    }
  }
}

class SubcommandHelpTest : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(SubcommandHelpTest, PrintsUsageOfThatCommandAndExitsZero) {
  std::vector<std::string> args = GetParam();
  std::string usage = "Usage: nodewright";
  for (const std::string& a : args) {
    usage += " " + a;
  }
  for (const char* flag : {"--help", "-h"}) {
    std::vector<std::string> withFlag = args;
    withFlag.push_back(flag);
    auto r = runCmd(withFlag);
    EXPECT_EQ(r.code, 0) << flag;
    EXPECT_NE(r.out.find(usage), std::string::npos) << usage << " not in:\n" << r.out;
    EXPECT_NE(r.out.find("-h,--help"), std::string::npos) << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Commands, SubcommandHelpTest,
    ::testing::Values(
        std::vector<std::string>{"up"}, std::vector<std::string>{"validate"},
        std::vector<std::string>{"convert"}, std::vector<std::string>{"explain"},
        std::vector<std::string>{"crds"}, std::vector<std::string>{"version"},
        std::vector<std::string>{"apiserver"}, std::vector<std::string>{"controller"},
        std::vector<std::string>{"emulate"}, std::vector<std::string>{"emulate", "ec2"},
        std::vector<std::string>{"emulate", "azure"}, std::vector<std::string>{"drift", "explain"},
        std::vector<std::string>{"disruption", "plan"}, std::vector<std::string>{"status"}),
    [](const auto& info) {
      std::string name;
      for (const std::string& a : info.param) {
        name += static_cast<char>(std::toupper(static_cast<unsigned char>(a[0])));
        name += a.substr(1);
      }
      return name;
    });

}  // namespace
}  // namespace nodewright::cmd
