#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

// The controllers in a child process for machine_scale_bench, so that their CPU time and peak
// memory are theirs alone (the API server and the emulator stay in the bench's process). The
// child's output goes to a log file; it is stopped with SIGTERM and reaped with wait4, whose
// rusage gives its CPU seconds and maximum resident set.
namespace nodewright::bench::capz {

struct ChildUsage {
  double cpuSeconds = 0;  // user + system, whole life
  long maxRssKiB = 0;
  int status = 0;
};

class ControllerProcess {
 public:
  // Starts argv[0] (a path) with the current environment plus `env`; output to `logPath`.
  // nullopt (and a message in `error`) when it cannot start.
  static std::optional<ControllerProcess> start(const std::vector<std::string>& argv,
                                                const std::map<std::string, std::string>& env,
                                                const std::string& logPath, std::string& error) {
    std::vector<std::string> envStrings;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      if (!env.count(entry.substr(0, entry.find('=')))) {
        envStrings.push_back(entry);
      }
    }
    for (const auto& [k, v] : env) {
      envStrings.push_back(k + "=" + v);
    }
    std::vector<char*> cargs;
    for (const auto& a : argv) {
      cargs.push_back(const_cast<char*>(a.c_str()));
    }
    cargs.push_back(nullptr);
    std::vector<char*> cenv;
    for (const auto& e : envStrings) {
      cenv.push_back(const_cast<char*>(e.c_str()));
    }
    cenv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid = -1;
    const int spawned = posix_spawn(&pid, cargs[0], &actions, nullptr, cargs.data(), cenv.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
      error = "spawning " + argv[0] + ": " + std::string(strerror(spawned));
      return std::nullopt;
    }
    return ControllerProcess(pid);
  }

  ControllerProcess(ControllerProcess&& o) noexcept : pid_(o.pid_) { o.pid_ = -1; }
  ControllerProcess& operator=(ControllerProcess&&) = delete;
  ~ControllerProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      (void)stop();
    }
  }

  // Still running (not exited on its own).
  bool running() const {
    if (pid_ <= 0) {
      return false;
    }
    // WNOWAIT: an exited child stays waitable, for stop()'s wait4.
    siginfo_t info{};
    return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == 0;
  }

  // CPU seconds (user + system) so far, from /proc/PID/stat; nullopt once it has exited.
  std::optional<double> cpuSeconds() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
    const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) {
      return std::nullopt;
    }
    // After the command name: state is field 3; utime and stime are fields 14 and 15.
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    double utime = 0;
    double stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
      if (i == 14) {
        utime = std::stod(field);
      } else if (i == 15) {
        stime = std::stod(field);
      }
    }
    return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }

  // SIGTERM, then reaps it.
  ChildUsage stop() {
    ChildUsage usage;
    if (pid_ <= 0) {
      return usage;
    }
    ::kill(pid_, SIGTERM);
    struct rusage ru {};
    while (wait4(pid_, &usage.status, 0, &ru) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    usage.cpuSeconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    usage.maxRssKiB = ru.ru_maxrss;
    return usage;
  }

 private:
  explicit ControllerProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
};

}  // namespace nodewright::bench::capz
