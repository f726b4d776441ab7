#include "support/emulators/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/clock.h"

extern char** environ;

namespace nodewright::emulators::testing {
namespace {

std::vector<char*> cStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

// Kills the child's whole process group unless it was reaped: runs on every way out of
// runProcess(), including a timeout.
class GroupGuard {
 public:
  explicit GroupGuard(pid_t pid) : pid_(pid) {}
  ~GroupGuard() {
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  GroupGuard(const GroupGuard&) = delete;
  GroupGuard& operator=(const GroupGuard&) = delete;

  // The child exited and was reaped; its group may still hold grandchildren.
  void reaped() {
    ::kill(-pid_, SIGKILL);
    pid_ = -1;
  }

 private:
  pid_t pid_;
};

void closeFd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

}  // namespace

std::string ProcessResult::describe() const {
  if (!startError.empty()) {
    return startError;
  }
  std::string text = timedOut ? "timed out" : "exit " + std::to_string(exitCode);
  constexpr size_t kTail = 4000;
  text += "\nstderr: " + (err.size() > kTail ? "..." + err.substr(err.size() - kTail) : err);
  if (!out.empty()) {
    text += "\nstdout: " + (out.size() > kTail ? "..." + out.substr(out.size() - kTail) : out);
  }
  return text;
}

std::map<std::string, std::string> cleanEnvironment(const std::map<std::string, std::string>& set) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) {
      continue;
    }
    std::string name = entry.substr(0, eq);
    if (name.starts_with("AWS_") || name.starts_with("BOTO_")) {
      continue;
    }
    env[name] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : set) {
    env[name] = value;
  }
  return env;
}

ProcessResult runProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         std::chrono::milliseconds timeout) {
  ProcessResult result;
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    closeFd(out[0]);
    closeFd(out[1]);
    result.startError = "pipe failed";
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);  // its own group, so the guard kills all of it

  std::vector<std::string> args = argv;
  std::vector<std::string> envStrings;
  for (const auto& [name, value] : env) {
    envStrings.push_back(name + "=" + value);
  }
  auto cargs = cStrings(args);
  auto cenv = cStrings(envStrings);
  pid_t pid = -1;
  const int spawned =
      ::posix_spawnp(&pid, cargs[0], &actions, &attributes, cargs.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  closeFd(out[1]);
  closeFd(err[1]);
  if (spawned != 0) {
    closeFd(out[0]);
    closeFd(err[0]);
    result.startError = "cannot run " + argv[0] + ": " + std::strerror(spawned);
    return result;
  }
  GroupGuard guard(pid);

  const core::Clock& clock = core::systemClock();
  const auto deadline = clock.steadyNow() + timeout;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  char buffer[65536];
  // The pipes close when the child and everything it started have exited.
  while (open > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock.steadyNow());
    if (left.count() <= 0) {
      result.timedOut = true;
      break;
    }
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready < 0) {
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
        continue;
      }
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        closeFd(fds[i].fd);
        --open;
      } else {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      }
    }
  }
  closeFd(fds[0].fd);
  closeFd(fds[1].fd);
  if (result.timedOut) {
    return result;  // the guard kills and reaps
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  guard.reaped();
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace nodewright::emulators::testing
