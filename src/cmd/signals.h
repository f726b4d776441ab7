#pragma once

#include <chrono>
#include <csignal>
#include <optional>

#include <pthread.h>

namespace nodewright::cmd {

// Blocks until SIGINT or SIGTERM. The signals are blocked before "ready" is printed, so one
// sent the moment a script sees that line is not lost and does not kill the process.
class SignalWaiter {
 public:
  SignalWaiter() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  }
  ~SignalWaiter() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SignalWaiter(const SignalWaiter&) = delete;
  SignalWaiter& operator=(const SignalWaiter&) = delete;

  int wait() {
    int sig = 0;
    while (sigwait(&set_, &sig) != 0) {
    }
    return sig;
  }

  // A signal within `timeout`, or nullopt: lets the waiting thread also watch for work that
  // ended on its own (a manager that lost leadership).
  std::optional<int> waitFor(std::chrono::milliseconds timeout) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    ts.tv_nsec = static_cast<long>((timeout.count() % 1000) * 1000000);
    int sig = sigtimedwait(&set_, nullptr, &ts);
    if (sig < 0) {
      return std::nullopt;
    }
    return sig;
  }

 private:
  sigset_t set_;
  sigset_t previous_;
};

}  // namespace nodewright::cmd
