#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <CLI/CLI.hpp>

#include "api/crd/generate.h"
#include "apiserver/api_server.h"
#include "cmd/app.h"
#include "cmd/command.h"
#include "cmd/crds.h"
#include "cmd/embedded_cluster.h"
#include "cmd/embedded_controllers.h"
#include "cmd/listen_address.h"
#include "cmd/signals.h"
#include "cmd/up/components.h"
#include "cmd/up/demo.h"
#include "cmd/up/plan.h"
#include "cmd/up/progress.h"
#include "core/clock.h"
#include "kube/config.h"
#include "runtime/logging.h"

// `nodewright up`: the whole system in one process (the embedded API server, the EC2 and ARM
// emulators, the node agent and every controller), or with --cloud aws|azure the controllers
// alone against a real cluster and cloud.
namespace nodewright::cmd {
namespace {

namespace fs = std::filesystem;

constexpr double kDemoTimeScale = 5;

struct UpOptions {
  std::string dataDir = ".nodewright";
  bool demo = false;
  std::string cloud = "emulated";
  double timeScale = 1.0;
  bool dryRun = false;
  // Stop once ready (after --demo has run) instead of staying up until SIGINT/SIGTERM.
  bool exitWhenReady = false;
  std::string listen = "127.0.0.1:6443";
  std::string examplesDir;
  std::string requestLog;
  std::string logFile;  // "": DATA/nodewright.log; "-": stderr
  // Where the controllers serve /metrics; "": a free loopback port (printed at start).
  std::string metricsAddress;
  std::vector<std::string> controllerFlags;  // after --cloud aws|azure
};

// What runs, stopped in reverse order of starting whatever way `up` ends.
struct RunningSystem {
  std::unique_ptr<apiserver::ApiServer> server;
  std::unique_ptr<emulators::ec2::Ec2Server> ec2;
  std::unique_ptr<emulators::arm::ArmServer> arm;
  std::unique_ptr<EmbeddedControllers> controllers;

  ~RunningSystem() {
    if (ec2) {
      // Ends the interruption controller's SQS long poll (up to 20 s) now rather than at its
      // deadline, so the controllers stop within Ctrl-C's few seconds.
      ec2->emulator().sqs().shutdown();
    }
    controllers.reset();
    if (arm) {
      arm->stop();
    }
    if (ec2) {
      ec2->stop();
    }
    if (server) {
      server->stop();
    }
  }
};

// The repository's examples/: the flag, else next to the binary's build directory, else the
// working directory's.
std::optional<fs::path> findExamples(const std::string& flag) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const std::vector<fs::path> candidates =
      flag.empty() ? std::vector<fs::path>{exe.parent_path().parent_path() / "examples",
                                           fs::current_path(ec) / "examples"}
                   : std::vector<fs::path>{fs::path(flag)};
  for (const fs::path& candidate : candidates) {
    if (fs::exists(candidate / "demo" / "nodepool.yaml", ec)) {
      return candidate;
    }
  }
  return std::nullopt;
}

int runController(const UpOptions& o, Context& ctx) {
  std::vector<std::string> args{"controller"};
  if (o.cloud == "azure") {
    args.insert(args.end(), {"--cloud", "azure"});
  }
  if (!o.metricsAddress.empty()) {
    args.insert(args.end(), {"--metrics-bind-address", o.metricsAddress});
  }
  args.insert(args.end(), o.controllerFlags.begin(), o.controllerFlags.end());
  return run(ctx.registry, args, ctx.in, ctx.out, ctx.err);
}

core::Status startSystem(const UpOptions& o, const fs::path& dataDir, const ListenAddress& address,
                         const ListenAddress& metrics, const core::Clock& clock,
                         RunningSystem& system, Context& ctx) {
  up::StartupProgress progress(ctx.out, 4);
  progress.begin("embedded API server");
  apiserver::ApiServerOptions serverOptions;
  serverOptions.dataDir = dataDir.string();
  serverOptions.host = address.host;
  serverOptions.port = address.port;
  serverOptions.requestLog = o.requestLog;
  auto server = apiserver::startApiServer(serverOptions, clock);
  if (!server) {
    progress.failed();
    return core::fail(server.error().wrap("embedded API server"));
  }
  system.server = std::move(*server);
  progress.done(system.server->url() + ", state in " + (dataDir / "state.db").string());

  const up::CloudOptions cloud{o.timeScale, dataDir};
  progress.begin("EC2 emulator");
  auto ec2 = up::startEc2(cloud, clock);
  if (!ec2) {
    progress.failed();
    return core::fail(ec2.error().wrap("EC2 emulator"));
  }
  system.ec2 = std::move(*ec2);
  // `drift explain` and `disruption plan` with this kubeconfig find the emulated EC2 here.
  EmbeddedCluster described;
  described.clusterName = EmbeddedControllersOptions{}.clusterName;
  described.region = system.ec2->emulator().world().region;
  described.ec2Endpoint = system.ec2->url();
  described.ssmEndpoint = system.ec2->url();
  described.pricingEndpoint = system.ec2->url();
  described.awsConfigFile = (dataDir / "aws" / "config").string();
  described.awsCredentialsFile = (dataDir / "aws" / "credentials").string();
  if (auto written = writeEmbeddedCluster(dataDir.string(), described); !written) {
    progress.failed();
    return core::fail(written.error().wrap("EC2 emulator"));
  }
  progress.done(
      fmt::format("{} (try: AWS_CONFIG_FILE={} AWS_SHARED_CREDENTIALS_FILE={} aws ec2 "
                  "describe-instances)",
                  system.ec2->url(), (dataDir / "aws" / "config").string(),
                  (dataDir / "aws" / "credentials").string()));

  progress.begin("ARM emulator");
  auto armSecret = up::drawSecret();
  if (!armSecret) {
    progress.failed();
    return core::fail(armSecret.error().wrap("ARM emulator's client secret"));
  }
  auto arm = up::startArm(cloud, clock, *armSecret);
  if (!arm) {
    progress.failed();
    return core::fail(arm.error().wrap("ARM emulator"));
  }
  system.arm = std::move(*arm);
  progress.done(system.arm->url() + " (CA " + (dataDir / "azure" / "ca.crt").string() + ")");

  progress.begin("controllers");
  EmbeddedControllersOptions embedded;
  embedded.kubeconfig = system.server->kubeconfigPath();
  embedded.ec2Endpoint = system.ec2->url();
  embedded.region = system.ec2->emulator().world().region;
  embedded.interruptionQueue = up::kUpInterruptionQueue;
  embedded.timeScale = o.timeScale;
  embedded.metrics = runtime::EndpointsOptions{};
  embedded.metrics->host = metrics.host;
  embedded.metrics->port = metrics.port;
  AzureControllerSetOptions azure;
  azure.armEndpoint = system.arm->url();
  azure.caPem = system.arm->caPem();
  azure.tenantId = system.arm->emulator().options().tenantId;
  azure.clientId = up::kUpClientId;
  azure.clientSecret = *armSecret;
  embedded.azure = std::move(azure);
  auto controllers = EmbeddedControllers::start(embedded);
  if (!controllers) {
    progress.failed();
    return core::fail(controllers.error().wrap("controllers"));
  }
  system.controllers = std::move(*controllers);
  // Ready means the controllers see the cluster: their caches have synced.
  while (!system.controllers->cachesSynced()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  progress.done(
      "Karpenter (provisioning, NodeClaim lifecycle, drift, disruption, interruption, node "
      "repair), node agent, Cluster API and CAPZ; caches synced");
  if (auto port = system.controllers->metricsPort()) {
    const bool v6 = metrics.host.find(':') != std::string::npos;
    ctx.out << "  metrics: http://" << (v6 ? "[" + metrics.host + "]" : metrics.host) << ":"
            << *port << "/metrics\n";
  }
  ctx.out << fmt::format(
      "nodewright is ready in {:.1f} s: kubectl --kubeconfig {} get nodepools,"
      "nodeclaims,nodes,clusters,azuremachines\n",
      progress.elapsedSeconds(), system.server->kubeconfigPath());
  ctx.out << "  export KUBECONFIG=" << system.server->kubeconfigPath()
          << "   # then: kubectl get nodes; nodewright status\n";
  ctx.out.flush();
  return {};
}

// The demo on its own thread, narrating into `out`; `finished` is set when it ends.
std::jthread startDemo(const fs::path& examples, RunningSystem& system, Context& ctx,
                       std::atomic<bool>& finished, std::atomic<bool>& succeeded) {
  return std::jthread([&, examples](std::stop_token stop) {
    auto config = kube::loadKubeconfig(system.server->kubeconfigPath());
    std::unique_ptr<kube::Client> client;
    if (config) {
      config->userAgent = "nodewright-demo";
      if (auto created = kube::Client::create(*config)) {
        client = std::move(*created);
      }
    }
    auto narrate = [&ctx, mu = std::make_shared<std::mutex>()](const std::string& line) {
      std::lock_guard lock(*mu);
      ctx.out << line << "\n";
      ctx.out.flush();
    };
    if (!client) {
      narrate("demo failed: cannot reach the embedded API server");
      finished = true;
      return;
    }
    up::DemoOptions options;
    options.examplesDir = examples;
    options.narrate = narrate;
    emulators::arm::ArmServer* arm = system.arm.get();
    options.azureOperationsCompleted = [arm] { return up::armOperationsCompleted(*arm); };
    options.freshCost = [kubeconfig = system.server->kubeconfigPath(), &registry = ctx.registry] {
      return up::freshProvisioningCost(kubeconfig, "demo", registry);
    };
    auto summary = up::runDemo(*client, options, stop);
    if (!summary) {
      narrate("demo failed: " + summary.error().message());
    } else {
      for (const std::string& line : up::summaryLines(*summary)) {
        narrate(line);
      }
      succeeded = true;
    }
    finished = true;
  });
}

int runUp(const UpOptions& o, Context& ctx) {
  if (o.cloud != "emulated" && o.demo) {
    ctx.err << "error: --demo: needs --cloud emulated (the demo runs against the emulators)\n";
    return kExitUsage;
  }
  if (o.cloud == "emulated" && !o.controllerFlags.empty()) {
    ctx.err << "error: unexpected arguments "
            << fmt::format("{}", fmt::join(o.controllerFlags, " "))
            << " (controller flags follow --cloud aws or --cloud azure)\n";
    return kExitUsage;
  }
  std::error_code ec;
  fs::path dataDir = fs::absolute(o.dataDir, ec);
  if (ec) {
    dataDir = o.dataDir;
  }
  ctx.out << "nodewright " << NW_VERSION << ": up (cloud " << o.cloud << ", time scale "
          << fmt::format("{}", o.timeScale) << (o.dryRun ? ", dry run" : "") << ")\n";
  ctx.out << "plan:\n";
  for (const std::string& line : up::plan({o.cloud, o.demo, dataDir})) {
    ctx.out << "  " << line << "\n";
  }
  if (o.cloud != "emulated") {
    if (o.dryRun) {
      ctx.out << "dry run: nothing was started\n";
      return kExitOk;
    }
    return runController(o, ctx);
  }
  std::vector<api::Json> crds = api::crd::generateCrds(ctx.registry);
  up::summarizeModel(ctx.registry, crds, ctx);
  const fs::path crdDir = dataDir / "crds";
  if (o.dryRun) {
    ctx.out << "dry run: would write " << crds.size() << " CRDs to " << crdDir.string() << "\n";
    ctx.out << "dry run: nothing was started\n";
    return kExitOk;
  }
  std::optional<fs::path> examples;
  if (o.demo) {
    examples = findExamples(o.examplesDir);
    if (!examples) {
      ctx.err << "error: --examples-dir: no demo/nodepool.yaml in "
              << (o.examplesDir.empty() ? "examples/ next to the binary or in the working "
                                          "directory; name the repository's examples/"
                                        : o.examplesDir)
              << "\n";
      return kExitUsage;
    }
  }
  auto written = writeCrdFiles(ctx.registry, crdDir);
  if (!written) {
    ctx.err << "error: " << written.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "wrote " << *written << " CRDs to " << crdDir.string() << "\n";
  if (o.logFile != "-") {
    // The terminal keeps the progress and the demo's story; the controllers' logs go to a file.
    const fs::path logFile = o.logFile.empty() ? dataDir / "nodewright.log" : fs::path(o.logFile);
    try {
      auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(logFile.string());
      if (auto moved = runtime::configureLogging(runtime::currentLogOptions(), sink); !moved) {
        ctx.err << "error: --log-file: " << moved.error().message() << "\n";
        return kExitUsage;
      }
    } catch (const spdlog::spdlog_ex& e) {
      ctx.err << "error: --log-file: " << e.what() << "\n";
      return kExitFailed;
    }
    ctx.out << "logs: " << logFile.string() << "\n";
  }
  auto address = parseListenAddress(o.listen);
  if (!address) {
    ctx.err << "error: " << address.error().message() << "\n";
    return kExitUsage;
  }
  // As `nodewright controller` serves it; reachable from a Prometheus elsewhere if asked.
  auto metrics = parseListenAddress(o.metricsAddress.empty() ? "127.0.0.1:0" : o.metricsAddress,
                                    "--metrics-bind-address", ListenScope::Any);
  if (!metrics) {
    ctx.err << "error: " << metrics.error().message() << "\n";
    return kExitUsage;
  }
  std::optional<SignalWaiter> waiter;
  if (!o.exitWhenReady) {
    waiter.emplace();
  }
  core::SystemClock clock;
  RunningSystem system;
  if (auto started = startSystem(o, dataDir, *address, *metrics, clock, system, ctx); !started) {
    ctx.err << "error: " << started.error().message() << "\n";
    return kExitFailed;
  }
  std::atomic<bool> demoFinished = false;
  std::atomic<bool> demoSucceeded = false;
  std::jthread demo;
  if (examples) {
    demo = startDemo(*examples, system, ctx, demoFinished, demoSucceeded);
  }
  if (waiter) {
    std::optional<int> sig;
    while (!(sig = waiter->waitFor(std::chrono::milliseconds(200)))) {
    }
    ctx.out << "received " << (*sig == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping\n";
    demo = {};
  } else if (demo.joinable()) {
    demo.join();
    return demoSucceeded ? kExitOk : kExitFailed;
  }
  return kExitOk;
}

}  // namespace

void addUpCommand(CLI::App& app, Context& ctx, Action& action) {
  auto o = std::make_shared<UpOptions>();
  CLI::App* sub = app.add_subcommand(
      "up", "Run everything on this machine: API server, cloud emulators and controllers");
  sub->add_option("--data-dir", o->dataDir, "Where state, kubeconfig and CRDs are kept")
      ->capture_default_str();
  sub->add_flag("--demo", o->demo,
                "Apply the examples (nodes, a drift, an Azure cluster of 20 machines) and narrate");
  sub->add_option("--cloud", o->cloud,
                  "emulated: everything here; aws or azure: only the controllers, against a real "
                  "cluster and cloud, with `nodewright controller`'s flags after this one")
      ->check(CLI::IsMember({"emulated", "aws", "azure"}))
      ->capture_default_str();
  CLI::Option* timeScale =
      sub->add_option("--time-scale", o->timeScale,
                      "How much faster than real time the emulated clouds run (--demo: 5)")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
  sub->add_flag("--dry-run", o->dryRun, "Print the plan and check the model; start nothing");
  sub->add_option("--listen", o->listen, "Loopback address of the embedded API server")
      ->capture_default_str();
  sub->add_option("--metrics-bind-address", o->metricsAddress,
                  "Where the controllers serve /metrics (default: a free loopback port, printed "
                  "at start)");
  // The default now; kept so that scripts written for it still run.
  const std::string waitHelp = "Stay up until SIGINT or SIGTERM, then stop cleanly (the default)";
  sub->add_flag("--wait", waitHelp);
  sub->add_flag("--exit-when-ready", o->exitWhenReady,
                "Stop and exit once ready (with --demo: once the demo has run), for scripts");
  sub->add_option("--examples-dir", o->examplesDir,
                  "The repository's examples/ for --demo (default: found next to the binary)");
  sub->add_option("--request-log", o->requestLog,
                  "Append one JSON line per API request to this file (verb, resource, user agent)");
  sub->add_option("--log-file", o->logFile,
                  "Where the controllers log (default DATA/nodewright.log; - for stderr)");
  sub->allow_extras();
  sub->callback([o, sub, timeScale, &ctx, &action] {
    o->controllerFlags = sub->remaining();
    if (o->demo && timeScale->count() == 0) {
      // Emulated VMs take 45 s to create; the demo's Azure story would take minutes.
      o->timeScale = kDemoTimeScale;
    }
    action = [o, &ctx] { return runUp(*o, ctx); };
  });
}

}  // namespace nodewright::cmd
