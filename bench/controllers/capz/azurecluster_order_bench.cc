// AzureCluster creation time, serial order versus dependency graph (issue 10), under the ARM
// emulator's default latency model. For each seed and each order, a fresh in-process ArmServer
// and the ServiceRunner drive a defaulted AzureCluster's services (managed resource group) to
// Done, pass after pass, waiting each pass's requeue as the controller does. The same seed gives
// both orders the same latency draws (the emulator's streams are per operation).
//
// Time: the emulator, the ARM client, the engine and the waits between passes all run on one
// clock that goes --time-scale times faster than the system clock (default 20), so Retry-After,
// call windows and requeues keep their real proportions and a run takes a fraction of its
// simulated time. Loopback HTTPS round trips are real and count scaled (about 1 ms real is
// 20 ms simulated; a real ARM request takes longer).
//
// Prints `name value unit`, simulated seconds from the first pass to every service Done:
//   azurecluster_create_{graph,serial}_seconds_{p50,min,max}
//   azurecluster_create_serial_over_graph_p50   median over seeds of serial / graph
//   azurecluster_create_passes_{graph,serial}_p50
// Exit status 1 when a run fails or does not finish.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/capz/azure_cluster.h"
#include "cloud/azure/arm_client.h"
#include "cloud/azure/credentials.h"
#include "cloud/azure/entra_credentials.h"
#include "controllers/capz/azurecluster/services.h"
#include "controllers/capz/service.h"
#include "core/clock.h"
#include "emulators/arm/server.h"
#include "lro/engine.h"

namespace {

namespace azure = nodewright::cloud::azure;
namespace capz = nodewright::controllers::capz;
namespace core = nodewright::core;
namespace lro = nodewright::lro;
using nodewright::emulators::arm::ArmEmulatorOptions;
using nodewright::emulators::arm::ArmServer;
using namespace std::chrono_literals;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr const char* kTenant = "00000000-0000-0000-0000-000000000001";
constexpr const char* kClientId = "11111111-1111-1111-1111-111111111111";
constexpr const char* kSubscription = "22222222-2222-2222-2222-222222222222";
// The controller's requeue after a pass that gave none (AzureClusterControllerOptions).
constexpr auto kWaitRequeue = 15s;
constexpr int kMaxPasses = 200;

// A view of `base` whose time passes `factor` times faster, from the moment it is made. Waits
// end at the real instant that corresponds to their simulated deadline.
class FastClock final : public core::Clock {
 public:
  FastClock(const core::Clock& base, double factor)
      : base_(base), factor_(factor), realOrigin_(base.steadyNow()), wallOrigin_(base.now()) {}

  core::TimePoint now() const override {
    return wallOrigin_ + std::chrono::duration_cast<core::TimePoint::duration>(scaledElapsed());
  }
  SteadyTime steadyNow() const override {
    return realOrigin_ + std::chrono::duration_cast<SteadyTime::duration>(scaledElapsed());
  }
  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 SteadyTime deadline) const override {
    if (deadline == SteadyTime::max()) {
      base_.waitUntil(lock, cv, deadline);
      return;
    }
    const std::chrono::duration<double> simulated = deadline - realOrigin_;
    base_.waitUntil(
        lock, cv,
        realOrigin_ + std::chrono::duration_cast<SteadyTime::duration>(simulated / factor_));
  }

 private:
  std::chrono::duration<double> scaledElapsed() const {
    return std::chrono::duration<double>(base_.steadyNow() - realOrigin_) * factor_;
  }

  const core::Clock& base_;
  const double factor_;
  const SteadyTime realOrigin_;
  const core::TimePoint wallOrigin_;
};

nodewright::api::capz::AzureCluster defaultedCluster(const std::string& name) {
  nodewright::api::capz::AzureCluster c;
  c.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
  c.kind = "AzureCluster";
  c.metadata.name = name;
  c.metadata.namespace_ = "default";
  c.spec.subscriptionID = kSubscription;
  c.spec.location = "eastus";
  nodewright::api::capz::applyAzureClusterDefaults(c);
  return c;
}

struct RunResult {
  double seconds = 0;  // simulated
  int passes = 0;
};

// One cluster created from nothing with `order`, on a fresh emulator seeded with `seed`.
std::optional<RunResult> createCluster(capz::Order order, uint64_t seed, double timeScale) {
  const FastClock clock(core::systemClock(), timeScale);
  ArmEmulatorOptions emulatorOptions;  // the default latency model
  emulatorOptions.engine.seed = seed;
  auto server = ArmServer::start(clock, emulatorOptions);
  if (!server) {
    std::cerr << "starting the ARM emulator: " << server.error().message() << "\n";
    return std::nullopt;
  }
  azure::CurlTransportOptions transportOptions;
  transportOptions.caPem = (*server)->caPem();
  azure::TransportPtr transport = azure::makeCurlTransport(transportOptions);
  azure::EntraOptions entra;
  entra.authorityHost = (*server)->url();
  entra.tenantId = kTenant;
  entra.clientId = kClientId;
  azure::TokenCredentialPtr credential = azure::cached(
      std::make_unique<azure::ClientSecretCredential>(entra, "bench-secret", *transport, clock),
      clock);
  azure::ArmClientOptions armOptions;
  armOptions.endpoint = (*server)->url();
  azure::ArmClient arm(armOptions, *transport, *credential, clock);
  lro::Engine engine(arm, clock);  // production defaults: 2 s call window, 12 s per service
  capz::RunnerOptions runnerOptions;
  runnerOptions.order = order;
  capz::ServiceRunner runner(engine, clock, runnerOptions);

  const auto cluster = defaultedCluster("bench");
  const std::vector<capz::Service> services =
      capz::azurecluster::clusterServices(cluster, /*managedResourceGroup=*/true);
  nodewright::api::capz::Futures futures;
  std::vector<nodewright::api::capi::CapiCondition> conditions;
  std::mutex mu;
  std::condition_variable never;
  const SteadyTime began = clock.steadyNow();
  for (int pass = 1; pass <= kMaxPasses; ++pass) {
    const capz::Pass p = runner.reconcile(services, futures, conditions);
    if (p.failed) {
      std::cerr << "seed " << seed << ": " << p.failureMessage << "\n";
      return std::nullopt;
    }
    if (p.done) {
      (*server)->stop();
      return RunResult{std::chrono::duration<double>(clock.steadyNow() - began).count(), pass};
    }
    std::unique_lock<std::mutex> lock(mu);
    const SteadyTime due = clock.steadyNow() + p.requeueAfter.value_or(kWaitRequeue);
    while (clock.steadyNow() < due) {
      clock.waitUntil(lock, never, due);
    }
  }
  std::cerr << "seed " << seed << ": not done after " << kMaxPasses << " passes\n";
  return std::nullopt;
}

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const size_t at = static_cast<size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(at, values.size() - 1)];
}

std::optional<std::string_view> flagValue(std::string_view arg, std::string_view name) {
  if (arg.size() > name.size() + 1 && arg.starts_with(name) && arg[name.size()] == '=') {
    return arg.substr(name.size() + 1);
  }
  return std::nullopt;
}

void printFigures(const std::string& order, const std::vector<RunResult>& runs) {
  std::vector<double> seconds;
  std::vector<double> passes;
  for (const RunResult& r : runs) {
    seconds.push_back(r.seconds);
    passes.push_back(r.passes);
  }
  const std::string prefix = "azurecluster_create_" + order + "_seconds_";
  std::cout << prefix << "p50 " << percentile(seconds, 0.5) << " s\n";
  std::cout << prefix << "min " << percentile(seconds, 0) << " s\n";
  std::cout << prefix << "max " << percentile(seconds, 1) << " s\n";
  std::cout << "azurecluster_create_passes_" << order << "_p50 " << percentile(passes, 0.5)
            << " count\n";
}

}  // namespace

int main(int argc, char** argv) {
  int seeds = 5;
  double timeScale = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--smoke") {
      seeds = 1;
    } else if (auto s = flagValue(arg, "--seeds")) {
      seeds = std::atoi(std::string(*s).c_str());
    } else if (auto t = flagValue(arg, "--time-scale")) {
      timeScale = std::atof(std::string(*t).c_str());
    } else {
      std::cerr << "usage: azurecluster_order_bench [--smoke] [--seeds=N] [--time-scale=X]\n";
      return 2;
    }
  }
  if (seeds <= 0 || !(timeScale > 0)) {
    std::cerr << "--seeds and --time-scale must be positive\n";
    return 2;
  }

  std::vector<RunResult> graph;
  std::vector<RunResult> serial;
  std::vector<double> ratios;
  for (int s = 1; s <= seeds; ++s) {
    const auto g = createCluster(capz::Order::Graph, static_cast<uint64_t>(s), timeScale);
    const auto r = createCluster(capz::Order::Serial, static_cast<uint64_t>(s), timeScale);
    if (!g || !r) {
      return 1;
    }
    graph.push_back(*g);
    serial.push_back(*r);
    ratios.push_back(r->seconds / g->seconds);
    std::cerr << "seed " << s << ": graph " << g->seconds << " s, serial " << r->seconds << " s\n";
  }
  std::cout << "azurecluster_create_seeds " << seeds << " count\n";
  std::cout << "azurecluster_create_time_scale " << timeScale << " x\n";
  printFigures("graph", graph);
  printFigures("serial", serial);
  std::cout << "azurecluster_create_serial_over_graph_p50 " << percentile(ratios, 0.5) << " x\n";
  return 0;
}
