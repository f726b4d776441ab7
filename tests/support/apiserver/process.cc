#include "support/apiserver/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

extern char** environ;

namespace nodewright::apiserver::testing {
namespace {

std::vector<char*> cStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

std::vector<std::string> environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (!extra.count(name)) {
      out.push_back(entry);
    }
  }
  for (const auto& [k, v] : extra) {
    out.push_back(k + "=" + v);
  }
  return out;
}

}  // namespace

Ran runProcess(const std::vector<std::string>& argv, const std::string& input,
               const std::map<std::string, std::string>& env) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
    return {};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  std::vector<std::string> args = argv;
  std::vector<std::string> envStrings = environment(env);
  auto cargs = cStrings(args);
  auto cenv = cStrings(envStrings);
  pid_t pid = -1;
  int spawned = posix_spawnp(&pid, cargs[0], &actions, nullptr, cargs.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  Ran ran;
  if (spawned != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    ran.err = std::string("cannot run ") + argv[0] + ": " + std::strerror(spawned);
    return ran;
  }
  // Feed stdin from a thread so a child that writes a lot before reading cannot deadlock us.
  std::thread feeder([fd = in[1], &input] {
    size_t done = 0;
    signal(SIGPIPE, SIG_IGN);
    while (done < input.size()) {
      ssize_t n = write(fd, input.data() + done, input.size() - done);
      if (n <= 0) {
        break;
      }
      done += static_cast<size_t>(n);
    }
    close(fd);
  });
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&ran.out, &ran.err};
  int open = 2;
  char buffer[65536];
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
        continue;
      }
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      } else {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      }
    }
  }
  feeder.join();
  int status = 0;
  waitpid(pid, &status, 0);
  ran.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return ran;
}

Child::Child(const std::vector<std::string>& argv) {
  int out[2];
  if (pipe2(out, O_CLOEXEC)) {
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  std::vector<std::string> args = argv;
  auto cargs = cStrings(args);
  if (posix_spawnp(&pid_, cargs[0], &actions, nullptr, cargs.data(), environ) != 0) {
    pid_ = -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  out_ = out[0];
}

Child::~Child() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_ >= 0) {
    close(out_);
  }
}

std::string Child::waitForLine(const std::string& prefix, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    size_t newline;
    while ((newline = buffered_.find('\n')) != std::string::npos) {
      std::string line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      if (line.rfind(prefix, 0) == 0) {
        return line;
      }
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || out_ < 0) {
      return "";
    }
    pollfd fd{out_, POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(left.count())) <= 0) {
      return "";
    }
    char buffer[4096];
    ssize_t n = read(out_, buffer, sizeof buffer);
    if (n <= 0) {
      return "";
    }
    buffered_.append(buffer, static_cast<size_t>(n));
  }
}

void Child::kill(int signal) {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, signal);
  }
}

int Child::wait(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) {
    return -1;
  }
  if (reaped_) {
    return -1;
  }
  // A pidfd becomes readable when the child exits, so the wait has a timeout without polling.
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd >= 0) {
    pollfd fd{pidfd, POLLIN, 0};
    int ready = poll(&fd, 1, static_cast<int>(timeout.count()));
    close(pidfd);
    if (ready <= 0) {
      return -1;
    }
  }
  int status = 0;
  if (waitpid(pid_, &status, 0) != pid_) {
    return -1;
  }
  reaped_ = true;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace nodewright::apiserver::testing
