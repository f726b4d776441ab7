#pragma once

#include <chrono>
#include <ostream>
#include <string>

// The start-up display of `nodewright up`: one line per component, "[2/4] EC2 emulator ..."
// written when it starts and completed with how long it took and where to reach it, so a slow
// component shows which one it is.
namespace nodewright::cmd::up {

class StartupProgress {
 public:
  StartupProgress(std::ostream& out, int steps);

  void begin(const std::string& component);
  // Completes the current line: "ready in 0.21 s: DETAIL".
  void done(const std::string& detail);
  // Completes the current line with the failure (the error itself is reported by the caller).
  void failed();
  // Since the first begin().
  double elapsedSeconds() const;

 private:
  std::ostream& out_;
  int steps_;
  int step_ = 0;
  std::chrono::steady_clock::time_point first_;
  std::chrono::steady_clock::time_point current_;
};

}  // namespace nodewright::cmd::up
