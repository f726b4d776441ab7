#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "api/crd/generate.h"
#include "cmd_test_util.h"

extern char** environ;

namespace nodewright::cmd {
namespace {

using testing::lines;
using testing::Ran;
using testing::ScratchDir;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(UpCommandTest, PrintsPlanWritesCrdsAndIsReady) {
  ScratchDir dir;
  const std::string data = (dir.path() / "data").string();
  Ran r =
      testing::runCmd({"up", "--data-dir", data, "--listen", "127.0.0.1:0", "--exit-when-ready"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::vector<std::string> out = lines(r.out);
  ASSERT_FALSE(out.empty());
  ASSERT_GE(out.size(), 2u);
  EXPECT_EQ(out[out.size() - 2].rfind("nodewright is ready in ", 0), 0u) << r.out;
  EXPECT_EQ(out.back(), "  export KUBECONFIG=" + data +
                            "/kubeconfig   # then: kubectl get nodes; nodewright status");
  EXPECT_TRUE(contains(
      r.out, "  embedded API server (SQLite in " + data + ", writes " + data + "/kubeconfig)\n"))
      << r.out;
  // The start-up display: one line per component, with where to reach it.
  EXPECT_TRUE(contains(r.out, "[1/4] embedded API server ........ ready in ")) << r.out;
  EXPECT_TRUE(contains(r.out, "s: https://127.0.0.1:")) << r.out;
  EXPECT_TRUE(contains(r.out, "[2/4] EC2 emulator ............... ready in ")) << r.out;
  EXPECT_TRUE(contains(r.out, "s: http://127.0.0.1:")) << r.out;
  EXPECT_TRUE(contains(r.out, "[4/4] controllers ................ ready in ")) << r.out;
  EXPECT_TRUE(contains(r.out, "kubectl --kubeconfig " + data + "/kubeconfig get ")) << r.out;
  EXPECT_TRUE(contains(r.out, "  EC2 emulator (writes " + data + "/aws/config, state in "))
      << r.out;
  EXPECT_TRUE(contains(r.out, "logs: " + data + "/nodewright.log\n")) << r.out;
  EXPECT_TRUE(contains(testing::readFile(dir.path() / "data" / "aws" / "config"),
                       "endpoint_url = http://127.0.0.1:"));
  EXPECT_TRUE(contains(r.out, "  every CRD schema is structural\n")) << r.out;
  for (const auto& [name, text] : api::crd::crdFiles(api::builtinRegistry())) {
    EXPECT_EQ(testing::readFile(dir.path() / "data" / "crds" / name), text) << name;
  }
  // Only the owner may read the state (Secrets among the objects), the kubeconfig and the keys.
  namespace fs = std::filesystem;
  const fs::perms ownerReadWrite = fs::perms::owner_read | fs::perms::owner_write;
  EXPECT_EQ(fs::status(data).permissions(), fs::perms::owner_all);
  EXPECT_EQ(fs::status(data + "/state.db").permissions(), ownerReadWrite);
  EXPECT_EQ(fs::status(data + "/kubeconfig").permissions(), ownerReadWrite);
  EXPECT_EQ(fs::status(data + "/embedded-cluster.json").permissions(), ownerReadWrite);
}

TEST(UpCommandTest, SummarizesTheModelPerGroup) {
  ScratchDir dir;
  Ran r = testing::runCmd({"up", "--dry-run", "--data-dir", dir.path().string()});
  const api::Registry& registry = api::builtinRegistry();
  std::set<std::string> groups;
  for (const api::KindInfo& k : registry.kinds()) {
    groups.insert(k.group.empty() ? "core" : k.group);
  }
  EXPECT_TRUE(contains(r.out, "resource model: " + std::to_string(registry.kinds().size()) +
                                  " kinds in " + std::to_string(groups.size()) + " groups, " +
                                  std::to_string(api::crd::generateCrds(registry).size()) +
                                  " CRDs\n"))
      << r.out;
}

TEST(UpCommandTest, RunsAgainForTheSameDataDir) {
  ScratchDir dir;
  EXPECT_EQ(testing::runCmd({"up", "--data-dir", dir.path().string(), "--listen", "127.0.0.1:0",
                             "--exit-when-ready"})
                .code,
            0);
  EXPECT_EQ(testing::runCmd({"up", "--data-dir", dir.path().string(), "--listen", "127.0.0.1:0",
                             "--exit-when-ready"})
                .code,
            0);
}

TEST(UpCommandTest, DryRunCreatesNothing) {
  ScratchDir dir;
  const std::string data = (dir.path() / "data").string();
  Ran r = testing::runCmd({"up", "--dry-run", "--data-dir", data, "--demo"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(data));
  EXPECT_EQ(lines(r.out).back(), "dry run: nothing was started");
  EXPECT_TRUE(contains(r.out, "demo workload")) << r.out;
}

TEST(UpCommandTest, CloudChoosesWhichEmulatorsArePlanned) {
  ScratchDir dir;
  Ran aws =
      testing::runCmd({"up", "--dry-run", "--cloud", "aws", "--data-dir", dir.path().string()});
  EXPECT_EQ(aws.code, 0);
  EXPECT_FALSE(contains(aws.out, "emulator")) << aws.out;
  EXPECT_TRUE(contains(aws.out, "against AWS")) << aws.out;
  Ran azure =
      testing::runCmd({"up", "--dry-run", "--cloud", "azure", "--data-dir", dir.path().string()});
  EXPECT_TRUE(contains(azure.out, "against Azure")) << azure.out;
  EXPECT_FALSE(contains(azure.out, "Karpenter")) << azure.out;
}

TEST(UpCommandTest, DemoNeedsTheEmulators) {
  Ran r = testing::runCmd({"up", "--cloud", "aws", "--demo"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("error: --demo: needs --cloud emulated", 0), 0u) << r.err;
}

TEST(UpCommandTest, ControllerFlagsWithoutARealCloudAreRefused) {
  ScratchDir dir;
  Ran r = testing::runCmd({"up", "--data-dir", dir.path().string(), "--cluster-name", "x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "unexpected arguments --cluster-name x")) << r.err;
}

// With a real cloud, `up` is `nodewright controller` with the flags that follow: the
// controller's own checks answer.
TEST(UpCommandTest, RealCloudRunsTheControllerWithItsFlags) {
  ScratchDir dir;
  const std::string missing = (dir.path() / "no-kubeconfig").string();
  Ran aws =
      testing::runCmd({"up", "--cloud", "aws", "--kubeconfig", missing, "--cluster-name", "prod"});
  EXPECT_NE(aws.code, 0);
  EXPECT_TRUE(contains(aws.err, missing)) << aws.err;
  Ran azure = testing::runCmd({"up", "--cloud", "azure", "--kubeconfig", missing});
  EXPECT_NE(azure.code, 0);
  EXPECT_TRUE(contains(azure.err, "AZURE_") || contains(azure.err, missing)) << azure.err;
}

TEST(UpCommandTest, DemoWithoutExamplesNamesTheFlag) {
  ScratchDir dir;
  Ran r = testing::runCmd({"up", "--demo", "--data-dir", (dir.path() / "d").string(),
                           "--examples-dir", (dir.path() / "nowhere").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("error: --examples-dir: no demo/nodepool.yaml in ", 0), 0u) << r.err;
}

struct BadUpFlag {
  std::string name;
  std::vector<std::string> args;
};

class UpFlagTest : public ::testing::TestWithParam<BadUpFlag> {};

TEST_P(UpFlagTest, RejectsWithUsageError) {
  std::vector<std::string> args{"up", "--dry-run"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  Ran r = testing::runCmd(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err, "");
}

INSTANTIATE_TEST_SUITE_P(Flags, UpFlagTest,
                         ::testing::Values(BadUpFlag{"UnknownCloud", {"--cloud", "gcp"}},
                                           BadUpFlag{"ZeroTimeScale", {"--time-scale", "0"}},
                                           BadUpFlag{"TextTimeScale", {"--time-scale", "fast"}}),
                         [](const auto& info) { return info.param.name; });

TEST(UpCommandTest, DataDirThatCannotBeCreatedExitsOneCleanly) {
  ScratchDir dir;
  std::string file = dir.write("file", "x");
  Ran r = testing::runCmd({"up", "--data-dir", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("error: creating " + file + "/crds: ", 0), 0u) << r.err;
}

// The real binary: --wait stays up until SIGTERM and then exits 0.
TEST(UpCommandTest, WaitStopsCleanlyOnSigterm) {
  ScratchDir dir;
  int pipeFds[2];
  ASSERT_EQ(pipe(pipeFds), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
  std::string binary = NW_BINARY;
  std::string dataDir = dir.path().string();
  std::vector<char*> argv{binary.data(),
                          const_cast<char*>("up"),
                          const_cast<char*>("--data-dir"),
                          dataDir.data(),
                          const_cast<char*>("--wait"),
                          const_cast<char*>("--listen"),
                          const_cast<char*>("127.0.0.1:0"),
                          nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(pipeFds[1]);

  std::string output;
  char buf[4096];
  while (!contains(output, "nodewright is ready")) {
    ssize_t n = read(pipeFds[0], buf, sizeof buf);
    if (n <= 0) {
      break;
    }
    output.append(buf, static_cast<size_t>(n));
  }
  ASSERT_TRUE(contains(output, "nodewright is ready")) << output;
  // The interruption queue the controllers read is in the EC2 emulator, at the endpoint the
  // AWS config `up` wrote names.
  const std::string config = testing::readFile(dir.path() / "aws" / "config");
  const size_t at = config.find("endpoint_url = ");
  EXPECT_NE(at, std::string::npos) << config;
  const std::string endpoint =
      at == std::string::npos ? "" : config.substr(at + 15, config.find('\n', at) - at - 15);
  const std::string aws = "AWS_CONFIG_FILE=" + dataDir +
                          "/aws/config AWS_SHARED_CREDENTIALS_FILE=" + dataDir +
                          "/aws/credentials aws --endpoint-url " + endpoint +
                          " sqs get-queue-url --queue-name nodewright 2>&1";
  std::string queue;
  if (FILE* p = popen(aws.c_str(), "r")) {
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) {
      queue.append(buf, n);
    }
    pclose(p);
  }
  EXPECT_TRUE(contains(queue, "/123456789012/nodewright\"")) << queue;
  EXPECT_TRUE(contains(output, "disruption, interruption, node repair)")) << output;
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  for (ssize_t n; (n = read(pipeFds[0], buf, sizeof buf)) > 0;) {
    output.append(buf, static_cast<size_t>(n));
  }
  close(pipeFds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "terminated by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(lines(output).back(), "received SIGTERM, stopping");
}

}  // namespace
}  // namespace nodewright::cmd
