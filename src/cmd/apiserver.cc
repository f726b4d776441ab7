#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "apiserver/api_server.h"
#include "cmd/command.h"
#include "cmd/listen_address.h"
#include "cmd/signals.h"

namespace nodewright::cmd {
namespace {

struct ApiServerFlags {
  std::string dataDir = ".nodewright";
  std::string listen = "127.0.0.1:6443";
  double bookmarkSeconds = 15;
  size_t watchHistory = 10000;
  std::string requestLog;
  apiserver::InFlightLimits inFlight;
};

int runApiServer(const ApiServerFlags& flags, Context& ctx) {
  auto address = parseListenAddress(flags.listen);
  if (!address) {
    ctx.err << "error: " << address.error().message() << "\n";
    return kExitUsage;
  }
  apiserver::ApiServerOptions options;
  options.dataDir = flags.dataDir;
  options.host = address->host;
  options.port = address->port;
  options.bookmarkInterval =
      std::chrono::milliseconds(static_cast<int64_t>(flags.bookmarkSeconds * 1000));
  options.watchHistory = flags.watchHistory;
  options.requestLog = flags.requestLog;
  options.inFlight = flags.inFlight;
  SignalWaiter waiter;
  core::SystemClock clock;
  auto server = apiserver::startApiServer(options, clock);
  if (!server) {
    ctx.err << "error: " << server.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "listening on " << (*server)->url() << "\n"
          << "kubeconfig: " << (*server)->kubeconfigPath() << "\n"
          << "try: kubectl --kubeconfig " << (*server)->kubeconfigPath() << " api-resources\n";
  ctx.out.flush();
  int sig = waiter.wait();
  ctx.out << "received " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping\n";
  (*server)->stop();
  return kExitOk;
}

}  // namespace

void addApiServerCommand(CLI::App& app, Context& ctx, Action& action) {
  auto flags = std::make_shared<ApiServerFlags>();
  CLI::App* sub =
      app.add_subcommand("apiserver", "Run the embedded Kubernetes-compatible API server");
  sub->add_option("--data-dir", flags->dataDir,
                  "Where the database, credentials and kubeconfig are kept")
      ->capture_default_str();
  sub->add_option("--listen", flags->listen, "Loopback address to serve HTTPS on (port 0: any)")
      ->capture_default_str();
  sub->add_option("--bookmark-interval", flags->bookmarkSeconds,
                  "Seconds between BOOKMARK events on watches that allow them")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--watch-history", flags->watchHistory,
                  "Events kept for watches resuming from an older resourceVersion")
      ->check(CLI::Range(size_t{1}, size_t{10000000}))
      ->capture_default_str();
  sub->add_option("--request-log", flags->requestLog,
                  "Append one JSON line per API request (verb, resource, user agent, status; "
                  "never bodies or tokens) to FILE")
      ->option_text("FILE");
  sub->add_option("--max-requests-inflight", flags->inFlight.maxReadOnly,
                  "Read-only requests served at once; more get 429 (0: no limit)")
      ->capture_default_str();
  sub->add_option("--max-mutating-requests-inflight", flags->inFlight.maxMutating,
                  "Mutating requests served at once; more get 429 (0: no limit)")
      ->capture_default_str();
  sub->callback(
      [flags, &ctx, &action] { action = [flags, &ctx] { return runApiServer(*flags, ctx); }; });
}

}  // namespace nodewright::cmd
