#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cmd_test_util.h"
#include "core/clock.h"
#include "status_env.h"
#include "support/apiserver/process.h"

namespace nodewright::cmd {
namespace {

using apiserver::testing::Ran;
using apiserver::testing::runProcess;
using namespace std::chrono_literals;

constexpr const char* kTmux = "/usr/bin/tmux";

// A tmux server on a private socket, killed with everything in it when the object goes.
class TmuxServer {
 public:
  TmuxServer() : socket_("nw-status-" + std::to_string(getpid())) {}
  ~TmuxServer() { run({"kill-server"}); }
  TmuxServer(const TmuxServer&) = delete;
  TmuxServer& operator=(const TmuxServer&) = delete;

  Ran run(std::vector<std::string> args) const {
    args.insert(args.begin(), {kTmux, "-L", socket_});
    return runProcess(args);
  }
  std::string capture() const { return run({"capture-pane", "-p", "-t", "status"}).out; }

  // The pane's text once it contains `needle`, or "" at the deadline.
  std::string awaitText(const std::string& needle, std::chrono::seconds timeout) const {
    return awaitOutput({"capture-pane", "-p", "-t", "status"}, needle, timeout);
  }

  // The output of the tmux command `args` once it contains `needle`, or "" at the deadline.
  // Polls with a short pause: tmux has no way to announce that a pane changed.
  std::string awaitOutput(const std::vector<std::string>& args, const std::string& needle,
                          std::chrono::seconds timeout) const {
    const core::Clock& clock = core::systemClock();
    const auto deadline = clock.steadyNow() + timeout;
    std::mutex mu;
    std::condition_variable never;
    while (clock.steadyNow() < deadline) {
      std::string out = run(args).out;
      if (out.find(needle) != std::string::npos) {
        return out;
      }
      std::unique_lock lock(mu);
      clock.waitUntil(lock, never, clock.steadyNow() + 100ms);
    }
    return "";
  }

 private:
  std::string socket_;
};

class StatusTmuxTest : public testing::StatusEnv {};

TEST_F(StatusTmuxTest, LiveViewDrawsANodeCreatedAfterItStarted) {
  // scripts/deps.sh installs tmux: without it the live view would go untested.
  ASSERT_TRUE(std::filesystem::exists(kTmux)) << kTmux << " missing: run scripts/deps.sh";
  addNode("node-first", "m5.large", "on-demand");
  TmuxServer tmux;
  Ran started = tmux.run({"new-session", "-d", "-s", "status", "-x", "160", "-y", "50",
                          "trap true INT; " + std::string(NW_BINARY) + " view --kubeconfig " +
                              apiServer_.kubeconfig() + "; echo view-exit=$?"});
  ASSERT_EQ(started.code, 0) << started.err;
  // Keeps the pane after the view exits, so what it printed last can be read.
  tmux.run({"set-option", "-t", "status", "remain-on-exit", "on"});

  std::string pane = tmux.awaitText("nodewright status  nodes 1", 30s);
  ASSERT_NE(pane, "") << tmux.capture();
  EXPECT_NE(pane.find("node-first"), std::string::npos) << pane;

  // Only a watch can bring this node to the screen: the view never lists again.
  addNode("node-second", "c5.large", "on-demand");
  pane = tmux.awaitText("node-second", 30s);
  ASSERT_NE(pane, "") << tmux.capture();
  EXPECT_NE(pane.find("nodewright status  nodes 2"), std::string::npos) << pane;
  EXPECT_NE(pane.find("c5.large"), std::string::npos) << pane;

  // Ctrl-C ends the view with status 0. The pane's shell prints it (its trap keeps it alive
  // through the SIGINT and is reset for the view): tmux itself may report a dead pane long
  // before it has reaped the process.
  tmux.run({"send-keys", "-t", "status", "C-c"});
  EXPECT_NE(tmux.awaitText("view-exit=0", 10s), "") << tmux.capture();
}

}  // namespace
}  // namespace nodewright::cmd
