#include "support/aws/moto_server.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "support/emulators/ec2_fixture.h"

namespace nodewright::aws::testing {
namespace {

// moto's imports take a few seconds on a loaded machine.
constexpr int kStartTimeoutMs = 60000;

constexpr const char* kServerScript =
    "import sys\n"
    "from moto.server import ThreadedMotoServer\n"
    "s = ThreadedMotoServer(ip_address='127.0.0.1', port=0, verbose=False)\n"
    "s.start()\n"
    "print(s.get_host_and_port()[1], flush=True)\n"
    "sys.stdin.read()\n"
    "s.stop()\n";

}  // namespace

MotoServer::MotoServer() {
  int in[2];
  int out[2];
  if (::pipe(in) != 0) {
    error_ = "pipe failed";
    return;
  }
  if (::pipe(out) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    error_ = "pipe failed";
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, in[1]);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<std::string> args = {"python3", "-c", kServerScript};
  std::vector<std::string> envStrings;
  for (const auto& [k, v] : emulators::testing::awsClientEnvironment()) {
    envStrings.push_back(k + "=" + v);
  }
  std::vector<char*> argv;
  for (auto& a : args) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : envStrings) {
    envp.push_back(e.data());
  }
  envp.push_back(nullptr);
  const int rc = ::posix_spawnp(&pid_, "python3", &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  stdin_ = in[1];
  stdout_ = out[0];
  if (rc != 0) {
    pid_ = -1;
    error_ = "spawning python3 failed";
    return;
  }
  std::string line;
  while (line.find('\n') == std::string::npos) {
    pollfd p{stdout_, POLLIN, 0};
    if (::poll(&p, 1, kStartTimeoutMs) <= 0) {
      error_ = "moto printed no port within 60 s";
      return;
    }
    char buf[64];
    const ssize_t n = ::read(stdout_, buf, sizeof buf);
    if (n <= 0) {
      error_ = "moto exited before printing its port";
      return;
    }
    line.append(buf, static_cast<size_t>(n));
  }
  port_ = std::atoi(line.c_str());
  if (port_ <= 0) {
    error_ = "moto printed no port";
  }
}

MotoServer::~MotoServer() {
  if (stdin_ >= 0) {
    ::close(stdin_);
  }
  if (stdout_ >= 0) {
    ::close(stdout_);
  }
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

}  // namespace nodewright::aws::testing
