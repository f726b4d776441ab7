#pragma once

#include <csignal>

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

 private:
  sigset_t set_;
  sigset_t previous_;
};

}  // namespace nodewright::cmd
