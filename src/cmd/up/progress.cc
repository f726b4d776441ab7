#include "cmd/up/progress.h"

#include <fmt/format.h>

namespace nodewright::cmd::up {

namespace {

double secondsBetween(std::chrono::steady_clock::time_point from,
                      std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

StartupProgress::StartupProgress(std::ostream& out, int steps) : out_(out), steps_(steps) {}

void StartupProgress::begin(const std::string& component) {
  current_ = std::chrono::steady_clock::now();
  if (step_ == 0) {
    first_ = current_;
  }
  ++step_;
  out_ << fmt::format("[{}/{}] {:.<28} ", step_, steps_, component + " ");
  out_.flush();
}

void StartupProgress::done(const std::string& detail) {
  out_ << fmt::format("ready in {:.2f} s: {}\n",
                      secondsBetween(current_, std::chrono::steady_clock::now()), detail);
  out_.flush();
}

void StartupProgress::failed() {
  out_ << "failed\n";
  out_.flush();
}

double StartupProgress::elapsedSeconds() const {
  return secondsBetween(first_, std::chrono::steady_clock::now());
}

}  // namespace nodewright::cmd::up
