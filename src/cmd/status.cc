#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cmd/command.h"
#include "cmd/signals.h"
#include "cmd/status/cluster_watch.h"
#include "cmd/status/model.h"
#include "cmd/status/render.h"
#include "core/clock.h"
#include "kube/config.h"

// `nodewright status` (alias `view`): nodes with their price and CPU/memory bars, NodePools
// against their limits, and the Azure objects' conditions and futures in flight, like
// eks-node-viewer. Live, it redraws the whole screen whenever a watch delivers a change (at
// most every kRedrawEvery) until SIGINT/SIGTERM; with --once it prints one plain snapshot.
namespace nodewright::cmd {
namespace {

constexpr std::chrono::milliseconds kRedrawEvery{200};
// Ages move even when nothing else does.
constexpr std::chrono::seconds kAgeRefresh{5};
constexpr std::chrono::seconds kSyncTimeout{30};
constexpr std::chrono::milliseconds kSyncPoll{20};
constexpr const char* kClearAndHome = "\033[H\033[2J";

struct StatusFlags {
  std::string kubeconfig;
  std::string context;
  bool once = false;
  bool noColor = false;
  int width = 0;
};

struct TerminalSize {
  int columns = 0;  // 0: unknown
  int rows = 0;
};

TerminalSize terminalSize() {
  winsize ws{};
  if (isatty(STDOUT_FILENO) == 0 || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0) {
    return {};
  }
  return {ws.ws_col, ws.ws_row};
}

std::string screen(const status::ClusterWatch& watch, const core::Clock& clock, int width,
                   bool color) {
  status::RenderOptions options;
  options.width = width;
  options.color = color;
  options.now = clock.now();
  return status::render(status::buildView(watch.snapshot(), status::builtinPrice), options);
}

int runLive(const StatusFlags& flags, status::ClusterWatch& watch, SignalWaiter& signals,
            const core::Clock& clock, Context& ctx) {
  uint64_t drawn = 0;
  auto lastDraw = clock.steadyNow() - kAgeRefresh;
  while (true) {
    const uint64_t generation = watch.generation();
    if (generation != drawn || clock.steadyNow() - lastDraw >= kAgeRefresh) {
      TerminalSize size = terminalSize();
      int width = flags.width > 0 ? flags.width : size.columns;
      ctx.out << kClearAndHome
              << status::fitToRows(screen(watch, clock, width, !flags.noColor), size.rows)
              << std::flush;
      drawn = generation;
      lastDraw = clock.steadyNow();
    }
    // Waiting here both coalesces bursts of events into one redraw and catches the signal.
    if (signals.waitFor(kRedrawEvery)) {
      ctx.out << "\n" << std::flush;
      return kExitOk;
    }
  }
}

int runStatus(const StatusFlags& flags, Context& ctx) {
  // Blocked before any informer thread starts, so every thread inherits the mask and the
  // signal reaches sigtimedwait instead of killing the process.
  SignalWaiter signals;
  auto config = kube::loadConfig(flags.kubeconfig, {flags.context});
  if (!config) {
    ctx.err << "error: kubeconfig: " << config.error().message() << "\n";
    return kExitFailed;
  }
  auto client = kube::Client::create(*config);
  if (!client) {
    ctx.err << "error: " << client.error().message() << "\n";
    return kExitFailed;
  }
  const core::Clock& clock = core::systemClock();
  auto watch = status::ClusterWatch::start(**client, clock);
  if (!watch) {
    ctx.err << "error: " << config->server << ": " << watch.error().message() << "\n";
    return kExitFailed;
  }
  // Waits on the signals too: SIGINT is blocked, so this is what lets Ctrl-C end a slow sync.
  const auto syncDeadline = clock.steadyNow() + kSyncTimeout;
  while (!(*watch)->synced()) {
    if (clock.steadyNow() >= syncDeadline) {
      ctx.err << "error: " << config->server << ": caches did not sync within "
              << kSyncTimeout.count() << "s\n";
      return kExitFailed;
    }
    if (signals.waitFor(kSyncPoll)) {
      return kExitFailed;
    }
  }
  if (flags.once) {
    ctx.out << screen(**watch, clock, flags.width, false) << std::flush;
    return kExitOk;
  }
  return runLive(flags, **watch, signals, clock, ctx);
}

}  // namespace

void addStatusCommand(CLI::App& app, Context& ctx, Action& action) {
  // `view` is a second, hidden subcommand rather than a CLI11 alias, so that the help lists
  // `status` under its own name alone.
  for (const char* name : {"status", "view"}) {
    auto flags = std::make_shared<StatusFlags>();
    CLI::App* sub = app.add_subcommand(
        name, "Show nodes, NodePools and Azure objects, live from watches (alias: view)");
    if (std::string_view(name) == "view") {
      sub->group("");
    }
    sub->add_option("--kubeconfig", flags->kubeconfig,
                    "Kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
    sub->add_option("--context", flags->context, "Kubeconfig context (default: current-context)");
    sub->add_flag("--once", flags->once,
                  "Wait for the caches to sync, print one snapshot without escapes and exit");
    sub->add_flag("--no-color", flags->noColor, "No colours in the live view");
    sub->add_option("--width", flags->width,
                    "Cut lines to this many columns (default: the terminal's; --once: no cut)")
        ->check(CLI::NonNegativeNumber);
    sub->callback(
        [flags, &ctx, &action] { action = [flags, &ctx] { return runStatus(*flags, ctx); }; });
  }
}

}  // namespace nodewright::cmd
