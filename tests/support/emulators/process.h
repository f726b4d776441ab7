#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

// Child processes of the wire tests (python3 with boto3, awscli, moto): each runs in its own
// process group, and that group is killed with SIGKILL when the deadline passes or the test
// leaves early, so no client or server outlives its test.
namespace nodewright::emulators::testing {

struct ProcessResult {
  int exitCode = -1;  // 128 + signal when killed
  bool timedOut = false;
  std::string out;
  std::string err;
  std::string startError;  // set when it could not be started

  bool ok() const { return startError.empty() && !timedOut && exitCode == 0; }
  // "exit 1 / timed out" plus the tail of stderr, for failure messages.
  std::string describe() const;
};

// The inherited environment without AWS_* and BOTO_* variables (so no profile, endpoint or
// credentials of the user leak in), plus `set`.
std::map<std::string, std::string> cleanEnvironment(const std::map<std::string, std::string>& set);

// Runs argv[0] (searched in PATH) with exactly `env` until it exits or `timeout` passes.
ProcessResult runProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         std::chrono::milliseconds timeout);

}  // namespace nodewright::emulators::testing
