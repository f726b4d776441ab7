#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

// Real processes for tests: kubectl, node, and the nodewright binary itself.
namespace nodewright::apiserver::testing {

struct Ran {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs argv[0] (searched in PATH) to completion, feeding `input` on stdin.
Ran runProcess(const std::vector<std::string>& argv, const std::string& input = "",
               const std::map<std::string, std::string>& env = {});

// A child that keeps running: its stdout is read line by line; it is killed (SIGKILL) and
// reaped when the object goes.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // The next stdout line that starts with `prefix`, waiting at most `timeout`; "" on timeout
  // or end of output.
  std::string waitForLine(const std::string& prefix, std::chrono::milliseconds timeout);
  void kill(int signal);
  pid_t pid() const { return pid_; }
  // Exit status after kill() or a natural exit; -1 if it is still running after `timeout`.
  int wait(std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffered_;
  bool reaped_ = false;
};

}  // namespace nodewright::apiserver::testing
