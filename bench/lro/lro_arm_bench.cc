// The futures engine at scale against the ARM emulator: N NAT gateways (default 2,000; 200
// with --smoke) created through one lro::Engine and one ArmClient over real HTTPS, against an
// in-process ArmServer on the system clock. A pool of workers reconciles them as a controller
// would: each resource's createOrUpdate with its own records, NotDone requeued after its
// requeueAfter, until every one is Done. The emulator's time runs --time-scale times faster
// (a NAT gateway's 20 s take 2 s by default); its Retry-After (2 s) does not fit in the 2 s call
// window, so every operation is parked at once, then resumed: a worker is never held for an
// operation's length.
//
// Throttling is off: ARM's write bucket (200, then 10/s) would make this a benchmark of the
// bucket, and a refused PUT would count as one in /admin/stats.
//
// Prints `name value unit`:
//   lro_arm_operations_in_flight_peak  most operations parked (begun, not yet seen done) at once
//   lro_arm_reconcile_us_p50/p99       one createOrUpdate call, HTTPS requests included
//   lro_arm_all_done_seconds           first call to the last resource Done
//   lro_arm_puts_total                 PUTs of the gateways per the emulator's /admin/stats
//                                      (must be N: a resume sends none)
//   lro_arm_failures                   Failed or Error outcomes

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cloud/azure/arm_client.h"
#include "cloud/azure/entra_credentials.h"
#include "core/clock.h"
#include "emulators/arm/server.h"
#include "lro/engine.h"
#include "runtime/metrics.h"

namespace {

namespace azure = nodewright::cloud::azure;
namespace core = nodewright::core;
namespace lro = nodewright::lro;
using nodewright::api::Json;
using nodewright::emulators::Latency;
using nodewright::emulators::arm::ArmEmulatorOptions;
using nodewright::emulators::arm::ArmServer;
using namespace std::chrono_literals;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr const char* kTenant = "00000000-0000-0000-0000-000000000001";
const std::string kGroup = "/subscriptions/22222222-2222-2222-2222-222222222222/resourceGroups/rg";

struct Options {
  int resources = 2000;
  int workers = 16;
  double timeScale = 10;
  // Off by default: sped up 10 times, a 20 s operation takes 2 s of real time, which the
  // adaptive timeout (bounds in real time, up to 10 s) rightly learns to wait for within the
  // call, so nothing would be parked. With it on, the figures show that regime.
  bool adaptive = false;
};

class NatSpec final : public lro::ResourceSpec {
 public:
  explicit NatSpec(int i) {
    ref_.name = "nat-" + std::to_string(i);
    ref_.id = kGroup + "/providers/Microsoft.Network/natGateways/" + ref_.name;
    ref_.resourceGroup = "rg";
    ref_.serviceName = "natgateways";
  }
  lro::ResourceRef resource() const override { return ref_; }
  nodewright::core::Result<std::optional<Json>> parameters(const Json& existing) const override {
    if (!existing.is_null() &&
        existing.value("properties", Json::object()).value("provisioningState", "") ==
            "Succeeded") {
      return std::optional<Json>();
    }
    return std::optional<Json>(Json{{"location", "eastus"}, {"sku", {{"name", "Standard"}}}});
  }

 private:
  lro::ResourceRef ref_;
};

// Resources waiting for their next reconcile, earliest first.
class RequeueQueue {
 public:
  explicit RequeueQueue(int pending) : pending_(pending) {}

  void push(size_t index, SteadyTime due) {
    std::lock_guard<std::mutex> lock(mu_);
    heap_.push({due, index});
    cv_.notify_one();
  }
  // A resource is finished for good.
  void retire() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--pending_ == 0) {
      cv_.notify_all();
    }
  }
  // The next due resource; nullopt once every resource is retired.
  std::optional<size_t> pop(const core::Clock& clock) {
    std::unique_lock<std::mutex> lock(mu_);
    while (pending_ > 0) {
      if (heap_.empty()) {
        cv_.wait(lock);
        continue;
      }
      const Entry top = heap_.top();
      if (top.due <= clock.steadyNow()) {
        heap_.pop();
        return top.index;
      }
      clock.waitUntil(lock, cv_, top.due);
    }
    return std::nullopt;
  }

 private:
  struct Entry {
    SteadyTime due;
    size_t index;
    bool operator>(const Entry& o) const { return due > o.due; }
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap_;  // GUARDED_BY(mu_)
  int pending_;                                                          // GUARDED_BY(mu_)
};

double percentile(std::vector<double>& values, double q) {
  if (values.empty()) {
    return 0;
  }
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

int run(const Options& options) {
  const core::Clock& clock = core::systemClock();
  ArmEmulatorOptions emulatorOptions;
  emulatorOptions.engine.timeScale = options.timeScale;
  emulatorOptions.engine.faults.throttling = false;
  emulatorOptions.latencies["arm:NatGateways_CreateOrUpdate"] = Latency::fixed(20s);
  auto server = ArmServer::start(clock, emulatorOptions);
  if (!server) {
    std::cerr << "starting the ARM emulator: " << server.error().message() << "\n";
    return 1;
  }
  azure::CurlTransportOptions transportOptions;
  transportOptions.caPem = (*server)->caPem();
  transportOptions.maxIdleHandles = static_cast<size_t>(options.workers) + 2;
  azure::TransportPtr transport = azure::makeCurlTransport(transportOptions);
  azure::EntraOptions entra;
  entra.authorityHost = (*server)->url();
  entra.tenantId = kTenant;
  entra.clientId = "11111111-1111-1111-1111-111111111111";
  azure::TokenCredentialPtr credential = azure::cached(
      std::make_unique<azure::ClientSecretCredential>(entra, "bench-secret", *transport, clock),
      clock);
  azure::ArmClientOptions armOptions;
  armOptions.endpoint = (*server)->url();
  azure::ArmClient arm(armOptions, *transport, *credential, clock);

  lro::ResourceRef group;
  group.id = kGroup;
  group.name = "rg";
  group.serviceName = "resourcegroups";
  auto created = arm.begin(lro::Verb::Put, group, Json{{"location", "eastus"}}, 5s);
  if (!created || !created->done()) {
    std::cerr << "creating the resource group failed\n";
    return 1;
  }

  nodewright::runtime::Registry metrics;
  lro::EngineOptions engineOptions;
  engineOptions.adaptive.enabled = options.adaptive;
  lro::Engine engine(arm, clock, engineOptions, &metrics);

  const size_t n = static_cast<size_t>(options.resources);
  std::vector<std::unique_ptr<NatSpec>> specs;
  std::vector<lro::OperationRecords> futures(n);
  std::vector<char> parked(n, 0);  // each entry touched only by the worker reconciling it
  for (size_t i = 0; i < n; ++i) {
    specs.push_back(std::make_unique<NatSpec>(static_cast<int>(i)));
  }

  RequeueQueue queue(options.resources);
  const SteadyTime started = clock.steadyNow();
  for (size_t i = 0; i < n; ++i) {
    queue.push(i, started);
  }
  std::atomic<int> inFlight{0};
  std::atomic<int> peak{0};
  std::atomic<int> failures{0};
  std::atomic<int64_t> lastDoneNs{0};
  std::mutex latencyMu;
  std::vector<double> latencies;

  auto worker = [&] {
    std::vector<double> mine;
    while (std::optional<size_t> next = queue.pop(clock)) {
      const size_t i = *next;
      const SteadyTime before = clock.steadyNow();
      lro::Outcome o = engine.createOrUpdate(*specs[i], futures[i]);
      const SteadyTime after = clock.steadyNow();
      mine.push_back(std::chrono::duration<double, std::micro>(after - before).count());
      if (o.kind == lro::Outcome::Kind::NotDone || o.kind == lro::Outcome::Kind::Error) {
        if (o.kind == lro::Outcome::Kind::Error) {
          failures.fetch_add(1);
        }
        if (!parked[i] && !futures[i].empty()) {
          parked[i] = 1;
          const int now = inFlight.fetch_add(1) + 1;
          int seen = peak.load();
          while (now > seen && !peak.compare_exchange_weak(seen, now)) {
          }
        }
        queue.push(i, after + o.requeueAfter.value_or(1s));
        continue;
      }
      if (o.kind == lro::Outcome::Kind::Failed) {
        failures.fetch_add(1);
        std::cerr << "failed: " << o.message << "\n";
      }
      if (parked[i]) {
        inFlight.fetch_sub(1);
      }
      const int64_t doneNs = std::chrono::nanoseconds(after - started).count();
      int64_t last = lastDoneNs.load();
      while (doneNs > last && !lastDoneNs.compare_exchange_weak(last, doneNs)) {
      }
      queue.retire();
    }
    std::lock_guard<std::mutex> lock(latencyMu);
    latencies.insert(latencies.end(), mine.begin(), mine.end());
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < options.workers; ++w) {
    threads.emplace_back(worker);
  }
  for (auto& t : threads) {
    t.join();
  }

  // The PUT count as a client sees it: /admin/stats over HTTPS.
  azure::HttpRequest statsRequest;
  statsRequest.url = (*server)->url() + "/admin/stats";
  auto stats = transport->send(statsRequest, 10s);
  int64_t puts = -1;
  if (stats && stats->status == 200) {
    const Json body = Json::parse(stats->body, nullptr, /*allow_exceptions=*/false);
    if (body.is_object() && body.contains("puts") && body["puts"].is_object()) {
      puts = 0;
      for (const auto& [id, count] : body["puts"].items()) {
        if (id.find("/natgateways/") != std::string::npos) {
          puts += count.get<int64_t>();
        }
      }
    }
  }

  std::cout << "lro_arm_resources " << n << " count\n";
  std::cout << "lro_arm_operations_in_flight_peak " << peak.load() << " count\n";
  std::cout << "lro_arm_reconcile_us_p50 " << percentile(latencies, 0.5) << " us\n";
  std::cout << "lro_arm_reconcile_us_p99 " << percentile(latencies, 0.99) << " us\n";
  std::cout << "lro_arm_reconciles_total " << latencies.size() << " count\n";
  std::cout << "lro_arm_all_done_seconds " << static_cast<double>(lastDoneNs.load()) / 1e9
            << " s\n";
  std::cout << "lro_arm_puts_total " << puts << " count\n";
  std::cout << "lro_arm_failures " << failures.load() << " count\n";
  (*server)->stop();
  return puts == static_cast<int64_t>(n) && failures.load() == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--smoke") {
      options.resources = 200;
    } else if (arg == "--adaptive") {
      options.adaptive = true;
    } else if (auto v = flagValue(arg, "--resources")) {
      options.resources = std::atoi(std::string(*v).c_str());
    } else if (auto w = flagValue(arg, "--workers")) {
      options.workers = std::atoi(std::string(*w).c_str());
    } else if (auto s = flagValue(arg, "--time-scale")) {
      options.timeScale = std::atof(std::string(*s).c_str());
    } else {
      std::cerr << "usage: lro_arm_bench [--smoke] [--resources=N] [--workers=N] "
                   "[--time-scale=X] [--adaptive]\n";
      return 2;
    }
  }
  if (options.resources <= 0 || options.workers <= 0 || !(options.timeScale > 0)) {
    std::cerr << "--resources, --workers and --time-scale must be positive\n";
    return 2;
  }
  return run(options);
}
