// Runs a credential plugin as client-go's exec authenticator does: the request in
// KUBERNETES_EXEC_INFO, stdin from /dev/null (we are never interactive), stderr passed through,
// stdout parsed as an ExecCredential. stdout holds the secret, so no message ever quotes it.
#include "kube/exec_plugin.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "api/core/validation.h"
#include "api/reflect/json.h"
#include "core/clock.h"
#include "core/time.h"

extern char** environ;

namespace nodewright::kube {
namespace {

using api::Json;

// The parent's environment with `extra` set over it.
std::vector<std::string> environment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::set<std::string> overridden;
  for (const auto& [name, value] : extra) {
    overridden.insert(name);
  }
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry = *e;
    if (!overridden.contains(std::string(entry.substr(0, entry.find('='))))) {
      out.emplace_back(entry);
    }
  }
  for (const auto& [name, value] : extra) {
    out.push_back(name + "=" + value);
  }
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

// A spawned plugin: its pid, a pipe from its stdout and, where the kernel has them, a pidfd
// that becomes readable when it exits.
class Plugin {
 public:
  ~Plugin() {
    if (pid_ > 0 && !reaped_) {
      kill();
    }
    if (out_ >= 0) {
      ::close(out_);
    }
    if (pidfd_ >= 0) {
      ::close(pidfd_);
    }
  }

  // Returns posix_spawn's error number, 0 on success.
  int spawn(const ExecConfig& exec, std::vector<std::string> env) {
    int pipeFds[2];
    if (pipe2(pipeFds, O_CLOEXEC) != 0) {
      return errno;
    }
    out_ = pipeFds[0];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipeFds[1], STDOUT_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Its own process group, so a timeout kills whatever the plugin started too; default
    // signal dispositions and mask, whatever this process has set up for its threads.
    sigset_t none;
    sigset_t defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<std::string> argv = {exec.command};
    argv.insert(argv.end(), exec.args.begin(), exec.args.end());
    auto cargv = pointers(argv);
    auto cenv = pointers(env);
    int rc = posix_spawnp(&pid_, cargv[0], &actions, &attr, cargv.data(), cenv.data());
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipeFds[1]);
    if (rc != 0) {
      pid_ = -1;
      return rc;
    }
    pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
    return 0;
  }

  // Reads stdout to its end and waits for the exit, until `deadline`. False on timeout or
  // when the output passes kExecOutputLimit (`tooLarge`).
  bool collect(std::chrono::steady_clock::time_point deadline, const core::Clock& clock,
               bool& tooLarge) {
    char buffer[16384];
    while (out_ >= 0 || !reaped_) {
      if (out_ < 0 && pidfd_ < 0) {
        // No pidfd (an old kernel): the output has ended, so the exit is near.
        reap(0);
        break;
      }
      auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock.steadyNow());
      if (left.count() <= 0) {
        return false;
      }
      pollfd fds[2];
      nfds_t n = 0;
      if (out_ >= 0) {
        fds[n++] = {out_, POLLIN, 0};
      }
      if (!reaped_ && pidfd_ >= 0) {
        fds[n++] = {pidfd_, POLLIN, 0};
      }
      int ready = ::poll(fds, n, static_cast<int>(std::min<int64_t>(left.count(), 60000)));
      if (ready < 0 && errno != EINTR) {
        return false;
      }
      for (nfds_t i = 0; ready > 0 && i < n; ++i) {
        if (fds[i].revents == 0) {
          continue;
        }
        if (fds[i].fd == pidfd_) {
          reap(WNOHANG);
          continue;
        }
        ssize_t got = ::read(out_, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) {
          continue;
        }
        if (got <= 0) {
          ::close(out_);
          out_ = -1;
          continue;
        }
        output_.append(buffer, static_cast<size_t>(got));
        if (output_.size() > kExecOutputLimit) {
          tooLarge = true;
          return false;
        }
      }
    }
    return true;
  }

  void kill() {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);  // in case it left its group
    reap(0);
  }

  int status() const { return status_; }
  const std::string& output() const { return output_; }

 private:
  void reap(int flags) {
    int status = 0;
    pid_t got;
    do {
      got = ::waitpid(pid_, &status, flags);
    } while (got < 0 && errno == EINTR);
    if (got == pid_) {
      reaped_ = true;
      status_ = status;
    } else if (got < 0) {
      reaped_ = true;  // not our child any more (SIGCHLD ignored): nothing left to wait for
      status_ = 0;
    }
  }

  pid_t pid_ = -1;
  int out_ = -1;
  int pidfd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::string output_;
};

// A string member of `object`; absent is empty, another type an error naming `path`.
core::Result<std::string> stringField(const Json& object, const char* key, const char* path) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    return std::string();
  }
  if (!it->is_string()) {
    return core::fail(core::Error::invalid(std::string(path) + ": must be a string"));
  }
  return it->get<std::string>();
}

}  // namespace

std::string execInfo(const ExecConfig& exec, const RestConfig& cluster) {
  Json spec = Json::object();
  if (exec.provideClusterInfo) {
    Json c = Json::object();
    c["server"] = cluster.server;
    if (!cluster.tlsServerName.empty()) {
      c["tls-server-name"] = cluster.tlsServerName;
    }
    if (cluster.insecureSkipTlsVerify) {
      c["insecure-skip-tls-verify"] = true;
    }
    if (!cluster.caPem.empty()) {
      c["certificate-authority-data"] = api::corev1::encodeBase64(cluster.caPem);
    }
    spec["cluster"] = std::move(c);
  }
  spec["interactive"] = false;
  Json info = Json::object();
  info["apiVersion"] = exec.apiVersion;
  info["kind"] = "ExecCredential";
  info["spec"] = std::move(spec);
  return api::dumpJson(info);
}

core::Result<ExecCredential> parseExecCredential(std::string_view output,
                                                 const std::string& apiVersion) {
  Json value = Json::parse(output.begin(), output.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object()) {
    return core::fail(core::Error::invalid("the output is not an ExecCredential in JSON"));
  }
  auto returned = stringField(value, "apiVersion", "apiVersion");
  if (!returned) {
    return core::fail(returned.error());
  }
  if (*returned != apiVersion) {
    // The returned version is shown only when it is plainly one; stdout is otherwise secret.
    std::string shown =
        returned->starts_with("client.authentication.k8s.io/") && returned->size() < 64
            ? " " + *returned
            : " another one";
    return core::fail(
        core::Error::invalid("configured for " + apiVersion + ", but the plugin returned" + shown));
  }
  auto kind = stringField(value, "kind", "kind");
  if (!kind || *kind != "ExecCredential") {
    return core::fail(core::Error::invalid("kind: must be ExecCredential"));
  }
  auto status = value.find("status");
  if (status == value.end() || !status->is_object()) {
    return core::fail(core::Error::invalid("status: the plugin returned none"));
  }
  ExecCredential out;
  auto token = stringField(*status, "token", "status.token");
  auto cert = stringField(*status, "clientCertificateData", "status.clientCertificateData");
  auto key = stringField(*status, "clientKeyData", "status.clientKeyData");
  auto expiry = stringField(*status, "expirationTimestamp", "status.expirationTimestamp");
  for (auto* field : {&token, &cert, &key, &expiry}) {
    if (!*field) {
      return core::fail(field->error());
    }
  }
  out.token = std::move(*token);
  out.clientCertificatePem = std::move(*cert);
  out.clientKeyPem = std::move(*key);
  if (out.clientCertificatePem.empty() != out.clientKeyPem.empty()) {
    return core::fail(core::Error::invalid(
        "status: the plugin returned only one of clientCertificateData and clientKeyData"));
  }
  if (out.token.empty() && out.clientCertificatePem.empty()) {
    return core::fail(core::Error::invalid(
        "status: the plugin returned neither a token nor a client certificate"));
  }
  if (!expiry->empty()) {
    auto time = core::Time::parse(*expiry);
    if (!time) {
      return core::fail(core::Error::invalid("status.expirationTimestamp: not an RFC 3339 time"));
    }
    out.expiration =
        std::chrono::time_point_cast<std::chrono::system_clock::duration>(time->point());
  }
  return out;
}

core::Result<ExecCredential> runExecPlugin(const ExecConfig& exec, const RestConfig& cluster,
                                           std::chrono::milliseconds timeout) {
  std::string name = "exec plugin \"" + exec.command + "\"";
  if (exec.interactiveMode == "Always") {
    return core::fail(core::Error::invalid(
        name + ": interactiveMode Always needs a terminal, and nodewright never has one"));
  }
  std::vector<std::pair<std::string, std::string>> extra = exec.env;
  extra.emplace_back("KUBERNETES_EXEC_INFO", execInfo(exec, cluster));
  const core::Clock& clock = core::systemClock();
  auto deadline = clock.steadyNow() + timeout;
  Plugin plugin;
  if (int rc = plugin.spawn(exec, environment(extra)); rc != 0) {
    if (rc == ENOENT) {
      std::string message = name + ": executable not found";
      if (!exec.installHint.empty()) {
        message += ". " + exec.installHint;
      }
      return core::fail(core::Error::notFound(message));
    }
    return core::fail(core::Error::invalid(name + ": cannot run: " + std::strerror(rc)));
  }
  bool tooLarge = false;
  if (!plugin.collect(deadline, clock, tooLarge)) {
    plugin.kill();
    if (tooLarge) {
      return core::fail(core::Error::invalid(name + ": wrote more than " +
                                             std::to_string(kExecOutputLimit) + " bytes"));
    }
    return core::fail(
        core::Error(core::Code::Internal,
                    name + ": no answer within " + std::to_string(timeout.count()) + "ms; killed"));
  }
  int status = plugin.status();
  if (WIFSIGNALED(status)) {
    return core::fail(
        core::Error::internal(name + ": killed by signal " + std::to_string(WTERMSIG(status))));
  }
  if (WEXITSTATUS(status) != 0) {
    return core::fail(core::Error::internal(name + ": failed with exit code " +
                                            std::to_string(WEXITSTATUS(status))));
  }
  auto credential = parseExecCredential(plugin.output(), exec.apiVersion);
  if (!credential) {
    return core::fail(credential.error().wrap(name));
  }
  return credential;
}

core::Result<ExecCredential> runExecPlugin(const ExecConfig& exec, const RestConfig& cluster) {
  return runExecPlugin(exec, cluster, kExecPluginTimeout);
}

}  // namespace nodewright::kube
