// Issue 10, story 2 at scale: a MachineDeployment scaled from 0 to N machines (default 1,000;
// env NW_BENCH_MACHINES or --machines) with AzureMachine concurrency 10 and a VM create latency
// of 60 s (forced; a machine's NICs, public IPs, disks and extensions take 1 s, or with
// --default-machine-latencies the emulator's defaults; the cluster's are its defaults). Set up as
// tests/e2e/capz_test.cc: an in-process API server and ARM emulator (time --time-scale times
// faster, default 1, --smoke 20; ARM throttling off, so the figures are the controllers', not ARM's
// write bucket), examples/capz/cluster.yaml applied with replicas 0, the AzureCluster awaited
// Ready, then the MachineDeployment scaled to N while a watch records each AzureMachine's first
// VMCreating and first ready.
//
// The controllers run in a child process (`nodewright controller --cloud azure`) so their CPU
// seconds (user + system) and peak memory are theirs alone; with --controllers=in-process (or
// when the binary has no Azure controller) they run in this process on a runtime::Manager with
// cmd::AzureControllerSet, and the CPU and memory figures then include the API server and the
// emulator: the output says which.
//
// Only the emulator's time is scaled: the controllers' requeues, the debouncing timer and ARM's
// Retry-After (at least 1 s) pass in real time, so a simulated figure counts each of them
// --time-scale times over. With --time-scale=1 simulated is real; larger scales overstate.
//
// Prints `name value unit`: the configuration, then
//   capz_scale_all_creating_{simulated,real}_seconds  scale request to the N-th VMCreating seen
//   capz_scale_all_ready_{simulated,real}_seconds     scale request to the N-th ready
//   capz_scale_controllers_cpu_seconds                during the scale (_total: whole life)
//   capz_scale_controllers_peak_rss_mib               peak resident set, whole life
// (capz_scale_process_* in-process).
// Exit status 1 when the machines are not all ready in time.

#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api/capz/azure_cluster.h"
#include "bench/controllers/capz/controller_process.h"
#include "bench/controllers/capz/machine_watch.h"
#include "cmd/azure_controller_set.h"
#include "core/clock.h"
#include "emulators/arm/server.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "support/apiserver/process.h"
#include "support/apiserver/test_server.h"
#include "support/kube/objects.h"
#include "support/kube/rest_config.h"

namespace {

namespace capzbench = nodewright::bench::capz;
namespace core = nodewright::core;
namespace apitest = nodewright::apiserver::testing;
using nodewright::emulators::Latency;
using namespace std::chrono_literals;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr const char* kClientId = "00000000-0000-0000-0000-00000000c0de";
constexpr const char* kClientSecret = "capz-bench-client-secret";
constexpr const char* kCluster = "prod-westeurope";
constexpr const char* kDeployment = "prod-westeurope-md-0";

struct Options {
  int machines = 1000;
  // Real time by default: see the comment at the top on what a scale overstates.
  double timeScale = 1;
  int concurrency = 10;
  std::chrono::seconds vmLatency{60};
  bool child = true;
  // The emulator's default latencies for a machine's other resources (an extension's long tail
  // then sets all-Ready); false: 1 s each, so all-Ready is the VM's 60 s plus the controllers.
  bool defaultMachineLatencies = false;
  std::chrono::seconds patience{1800};  // real time, for all machines to be ready
};

double seconds(SteadyTime::duration d) {
  return std::chrono::duration<double>(d).count();
}

// This process's CPU seconds (user + system) and peak resident set (VmHWM, KiB).
double selfCpuSeconds() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
long selfPeakRssKiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("VmHWM:")) {
      return std::atol(line.substr(6).c_str());
    }
  }
  return -1;
}

// Whether `binary controller` has the Azure flags yet.
bool hasAzureController(const std::string& binary) {
  const apitest::Ran ran = apitest::runProcess({binary, "controller", "--help"});
  return ran.out.find("--azure-resource-manager-endpoint") != std::string::npos;
}

// The controllers, in this process or in a child.
class Controllers {
 public:
  virtual ~Controllers() = default;
  virtual double cpuSeconds() = 0;  // so far
  virtual bool alive() = 0;
  // Stops them; CPU seconds over their life and peak RSS (KiB).
  virtual std::pair<double, long> stop() = 0;
};

class InProcess final : public Controllers {
 public:
  InProcess(nodewright::kube::Client& client, nodewright::emulators::arm::ArmServer& arm,
            const Options& options) {
    nodewright::runtime::ManagerOptions managerOptions;
    managerOptions.metrics = &metrics_;
    managerOptions.component = "capz";
    manager_ = std::make_unique<nodewright::runtime::Manager>(client, managerOptions);
    nodewright::cmd::AzureControllerSetOptions set;
    set.armEndpoint = arm.url();
    set.caPem = arm.caPem();
    set.tenantId = arm.emulator().options().tenantId;
    set.clientId = kClientId;
    set.clientSecret = kClientSecret;
    // As the e2e test: a call window below the emulator's Retry-After (at least 1 s real), so
    // a VM's operation parks its future; requeues in real time, short as the time is scaled.
    set.lro.timeouts.call = 500ms;
    set.lro.timeouts.requeue = 1s;
    set.azureClusters.waitRequeue = 1s;
    set.azureMachines.waitRequeue = 1s;
    set.azureMachines.workers = options.concurrency;
    auto created = nodewright::cmd::AzureControllerSet::create(*manager_, core::systemClock(), set);
    if (!created) {
      std::cerr << "controllers: " << created.error().message() << "\n";
      std::exit(1);
    }
    set_ = std::move(*created);
    thread_ = std::jthread([this](std::stop_token stop) {
      auto ran = manager_->run(stop);
      if (!ran) {
        std::cerr << "controllers: " << ran.error().message() << "\n";
      }
    });
  }
  double cpuSeconds() override { return selfCpuSeconds(); }
  bool alive() override { return true; }
  std::pair<double, long> stop() override {
    thread_ = {};
    set_.reset();
    manager_.reset();
    return {selfCpuSeconds(), selfPeakRssKiB()};
  }

 private:
  nodewright::runtime::Registry metrics_;
  std::unique_ptr<nodewright::runtime::Manager> manager_;
  std::unique_ptr<nodewright::cmd::AzureControllerSet> set_;
  std::jthread thread_;
};

class Child final : public Controllers {
 public:
  explicit Child(capzbench::ControllerProcess process) : process_(std::move(process)) {}
  double cpuSeconds() override { return process_.cpuSeconds().value_or(-1); }
  bool alive() override { return process_.running(); }
  std::pair<double, long> stop() override {
    const bool exitedEarly = !process_.running();
    const capzbench::ChildUsage usage = process_.stop();
    if (exitedEarly) {
      std::cerr << "the controller exited early: "
                << (WIFSIGNALED(usage.status)
                        ? "signal " + std::to_string(WTERMSIG(usage.status))
                        : "status " + std::to_string(WEXITSTATUS(usage.status)))
                << "\n";
    }
    return {usage.cpuSeconds, usage.maxRssKiB};
  }

 private:
  capzbench::ControllerProcess process_;
};

// The child's output, in the API server's data directory (it goes with the run).
std::string controllerLog(const apitest::TestApiServer& api) {
  return api.dataDir() + "/controller.log";
}

// The end of the child's output, for a failed run.
void printLogTail(const apitest::TestApiServer& api) {
  std::ifstream in(controllerLog(api));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(std::move(line));
  }
  const size_t from = lines.size() > 40 ? lines.size() - 40 : 0;
  for (size_t i = from; i < lines.size(); ++i) {
    std::cerr << "controller: " << lines[i] << "\n";
  }
}

std::unique_ptr<Controllers> startChild(const apitest::TestApiServer& api,
                                        nodewright::emulators::arm::ArmServer& arm,
                                        const Options& options) {
  const std::string caFile = api.dataDir() + "/arm-ca.pem";
  std::ofstream(caFile) << arm.caPem();
  std::vector<std::string> argv = {NW_BINARY,
                                   "controller",
                                   "--cloud",
                                   "azure",
                                   "--kubeconfig",
                                   api.kubeconfig(),
                                   "--azure-resource-manager-endpoint",
                                   arm.url(),
                                   "--azure-authority-host",
                                   arm.url(),
                                   "--azure-ca-file",
                                   caFile,
                                   "--azuremachine-concurrency",
                                   std::to_string(options.concurrency),
                                   "--azure-call-timeout",
                                   "500ms",
                                   "--azure-requeue-after",
                                   "1s",
                                   "--metrics-bind-address",
                                   "127.0.0.1:0",
                                   "--health-probe-bind-address",
                                   "127.0.0.1:0"};
  // More flags for the child, space-separated (the wait requeues, when the command has them).
  if (const char* extra = std::getenv("NW_BENCH_CONTROLLER_ARGS")) {
    std::istringstream words(extra);
    for (std::string w; words >> w;) {
      argv.push_back(w);
    }
  }
  const std::string log = controllerLog(api);
  std::string error;
  auto process =
      capzbench::ControllerProcess::start(argv,
                                          {{"AZURE_TENANT_ID", arm.emulator().options().tenantId},
                                           {"AZURE_CLIENT_ID", kClientId},
                                           {"AZURE_CLIENT_SECRET", kClientSecret}},
                                          log, error);
  if (!process) {
    std::cerr << error << "\n";
    std::exit(1);
  }
  return std::make_unique<Child>(std::move(*process));
}

bool runKubectl(const apitest::TestApiServer& api, const std::vector<std::string>& args) {
  const apitest::Ran ran = apitest::kubectl(api, args);
  if (ran.code != 0) {
    std::cerr << "kubectl " << args.front() << ": " << ran.err << "\n";
  }
  return ran.code == 0;
}

int run(const Options& options) {
  const core::Clock& clock = core::systemClock();
  apitest::TestApiServer api;
  nodewright::emulators::arm::ArmEmulatorOptions armOptions;
  armOptions.engine.timeScale = options.timeScale;
  armOptions.engine.faults.throttling = false;
  armOptions.clientSecrets = {{kClientId, kClientSecret}};
  if (!options.defaultMachineLatencies) {
    for (const char* group :
         {"NetworkInterfaces", "PublicIPAddresses", "Disks", "VirtualMachineExtensions"}) {
      armOptions.latencies[std::string("arm:") + group + "_CreateOrUpdate"] = Latency::fixed(1s);
    }
  }
  armOptions.latencies["arm:VirtualMachines_CreateOrUpdate"] = Latency::fixed(options.vmLatency);
  auto arm = nodewright::emulators::arm::ArmServer::start(clock, std::move(armOptions));
  if (!arm) {
    std::cerr << "ARM emulator: " << arm.error().message() << "\n";
    return 1;
  }
  auto client = nodewright::kube::testing::clientFor(nodewright::kube::testing::restConfigFor(api));
  if (!runKubectl(api, {"create", "secret", "generic", "prod-westeurope-md-0-bootstrap",
                        "--from-literal=value=#cloud-config"}) ||
      !runKubectl(api,
                  {"apply", "-f", std::string(NW_SOURCE_DIR) + "/examples/capz/cluster.yaml"}) ||
      !runKubectl(api, {"patch", "machinedeployment", kDeployment, "--type", "merge", "-p",
                        R"({"spec":{"replicas":0}})"})) {
    return 1;
  }

  const SteadyTime started = clock.steadyNow();
  std::unique_ptr<nodewright::kube::Client> controllerClient;
  std::unique_ptr<Controllers> controllers;
  if (options.child) {
    controllers = startChild(api, **arm, options);
  } else {
    controllerClient =
        nodewright::kube::testing::clientFor(nodewright::kube::testing::restConfigFor(api));
    controllers = std::make_unique<InProcess>(*controllerClient, **arm, options);
  }
  nodewright::kube::Typed<nodewright::api::capz::AzureCluster> clusters(*client);
  const bool clusterReady = nodewright::kube::testing::eventually(
      [&] {
        auto c = clusters.get("default", kCluster);
        return (c && c->status.ready) || !controllers->alive();
      },
      std::chrono::duration_cast<std::chrono::milliseconds>(options.patience));
  if (!clusterReady || !controllers->alive()) {
    std::cerr << "the AzureCluster is not Ready\n";
    controllers->stop();
    printLogTail(api);
    return 1;
  }
  const SteadyTime clusterReadyAt = clock.steadyNow();

  capzbench::MachineWatch watch(*client);
  const double cpuBefore = controllers->cpuSeconds();
  const SteadyTime scaledAt = clock.steadyNow();
  if (!runKubectl(api, {"patch", "machinedeployment", kDeployment, "--type", "merge", "-p",
                        R"({"spec":{"replicas":)" + std::to_string(options.machines) + "}}"})) {
    controllers->stop();
    return 1;
  }
  const size_t n = static_cast<size_t>(options.machines);
  const capzbench::MachineWatch::Counts counts = watch.waitForReady(n, scaledAt + options.patience);
  const double cpuAfter = controllers->cpuSeconds();
  const auto [cpuTotal, peakKiB] = controllers->stop();
  (*arm)->stop();

  const double scale = options.timeScale;
  const std::string who = options.child ? "controllers" : "process";
  std::cout << "capz_scale_machines " << n << " count\n";
  std::cout << "capz_scale_azuremachine_concurrency " << options.concurrency << " count\n";
  std::cout << "capz_scale_vm_create_latency " << options.vmLatency.count() << " s\n";
  std::cout << "capz_scale_time_scale " << scale << " x\n";
  std::cout << "capz_scale_other_machine_latencies "
            << (options.defaultMachineLatencies ? "emulator-defaults" : "1s") << "\n";
  std::cout << "capz_scale_measured " << who
            << (options.child ? " (child process)\n"
                              : " (in-process: controllers + API server + emulator)\n");
  std::cout << "capz_scale_cluster_ready_simulated_seconds "
            << seconds(clusterReadyAt - started) * scale << " s\n";
  std::cout << "capz_scale_creating_seen " << counts.creating << " count\n";
  std::cout << "capz_scale_ready_seen " << counts.ready << " count\n";
  std::cout << "capz_scale_ready_without_creating_seen " << counts.readyWithoutCreatingSeen
            << " count\n";
  if (counts.creating >= n) {
    const double real = seconds(counts.lastCreating - scaledAt);
    std::cout << "capz_scale_all_creating_simulated_seconds " << real * scale << " s\n";
    std::cout << "capz_scale_all_creating_real_seconds " << real << " s\n";
  }
  if (counts.ready >= n) {
    const double real = seconds(counts.lastReady - scaledAt);
    std::cout << "capz_scale_all_ready_simulated_seconds " << real * scale << " s\n";
    std::cout << "capz_scale_all_ready_real_seconds " << real << " s\n";
  }
  std::cout << "capz_scale_" << who << "_cpu_seconds " << cpuAfter - cpuBefore << " s\n";
  std::cout << "capz_scale_" << who << "_cpu_seconds_total " << cpuTotal << " s\n";
  std::cout << "capz_scale_" << who << "_peak_rss_mib " << static_cast<double>(peakKiB) / 1024
            << " MiB\n";
  if (counts.ready < n || counts.creating < n) {
    printLogTail(api);
    return 1;
  }
  return 0;
}

std::optional<std::string_view> flagValue(std::string_view arg, std::string_view name) {
  if (arg.size() > name.size() + 1 && arg.starts_with(name) && arg[name.size()] == '=') {
    return arg.substr(name.size() + 1);
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (const char* n = std::getenv("NW_BENCH_MACHINES")) {
    options.machines = std::atoi(n);
  }
  std::optional<bool> child;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--smoke") {
      // Checks that it runs, in about half a minute; the figures are overstated (see top).
      options.machines = 50;
      options.timeScale = 20;
    } else if (auto m = flagValue(arg, "--machines")) {
      options.machines = std::atoi(std::string(*m).c_str());
    } else if (auto s = flagValue(arg, "--time-scale")) {
      options.timeScale = std::atof(std::string(*s).c_str());
    } else if (arg == "--default-machine-latencies") {
      options.defaultMachineLatencies = true;
    } else if (auto c = flagValue(arg, "--controllers")) {
      child = *c == "child";
    } else {
      std::cerr << "usage: machine_scale_bench [--smoke] [--machines=N] [--time-scale=X] "
                   "[--controllers=child|in-process] [--default-machine-latencies]\n";
      return 2;
    }
  }
  if (options.machines <= 0 || !(options.timeScale > 0)) {
    std::cerr << "--machines and --time-scale must be positive\n";
    return 2;
  }
  options.child = child.value_or(hasAzureController(NW_BINARY));
  if (options.child && !hasAzureController(NW_BINARY)) {
    std::cerr << NW_BINARY
              << " controller has no --cloud azure yet: use --controllers=in-process\n";
    return 2;
  }
  return run(options);
}
