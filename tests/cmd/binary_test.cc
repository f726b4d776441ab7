#include <sys/wait.h>
#include <cstdio>

#include <gtest/gtest.h>

#include "cmd_test_util.h"

namespace nodewright::cmd {
namespace {

struct Process {
  int code = -1;
  std::string out;
};

// Runs a shell command line and collects its stdout.
Process shell(const std::string& commandLine) {
  Process p;
  FILE* f = popen(commandLine.c_str(), "r");
  if (f == nullptr) {
    return p;
  }
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) {
    p.out.append(buf, n);
  }
  int status = pclose(f);
  p.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return p;
}

TEST(BinaryTest, VersionRunsAsAProcess) {
  Process p = shell(std::string(NW_BINARY) + " version");
  EXPECT_EQ(p.code, 0);
  EXPECT_EQ(p.out, testing::runCmd({"version"}).out);
}

TEST(BinaryTest, ValidateReadsStdinAndSetsTheExitCode) {
  Process p = shell("printf 'apiVersion: v9\\nkind: Nothing\\n' | " + std::string(NW_BINARY) +
                    " validate -f - 2>&1");
  EXPECT_EQ(p.code, 1);
  EXPECT_EQ(p.out,
            "<stdin>:0: Nothing/<unnamed>: kind: Invalid value: \"Nothing\": no kind \"Nothing\" "
            "is registered for version \"v9\"\n");
}

TEST(BinaryTest, NonexistentFileExitsOne) {
  Process p = shell(std::string(NW_BINARY) + " validate -f /nonexistent/x.yaml 2>&1");
  EXPECT_EQ(p.code, 1);
  EXPECT_EQ(p.out, "/nonexistent/x.yaml: cannot read: No such file or directory\n");
}

}  // namespace
}  // namespace nodewright::cmd
