// ARM emulator benchmark: 2,000 long-running operations in flight at once, as CAPZ's
// reconcilers produce them across a large cluster. Clients PUT 2,000 public IPs over HTTPS on
// keep-alive connections, then poll every Azure-AsyncOperation URL until all have Succeeded.
// Prints one `name value unit` line per figure:
//   arm_ops_in_flight        operations running at once after the PUTs (must be all of them)
//   arm_put_latency_us_p50   PUT round trip on loopback HTTPS, median and 99th percentile
//   arm_put_latency_us_p99
//   arm_puts_per_second      PUT throughput of all client threads
//   arm_poll_latency_us_p50  operation-status GET round trip
//   arm_all_done_seconds     from the first PUT until every operation reported Succeeded
// `--smoke`: 200 operations, for CI. Throttling is off: this measures the emulator, not ARM's
// limits.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/clock.h"
#include "core/text.h"
#include "emulators/arm/server.h"
#include "http/client.h"

namespace nodewright::bench {
namespace {

using Clock = std::chrono::steady_clock;
using emulators::arm::ArmEmulatorOptions;
using emulators::arm::ArmServer;

constexpr int kThreads = 8;

int64_t percentile(std::vector<int64_t> v, double p) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

std::string pathOf(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return slash == std::string::npos ? "/" : url.substr(slash);
}

std::string header(const http::Response& r, std::string_view name) {
  for (const auto& [n, v] : r.headers) {
    if (core::equalsIgnoreCase(n, name)) {
      return v;
    }
  }
  return {};
}

int run(bool smoke) {
  const int ops = smoke ? 200 : 2000;
  core::SystemClock clock;
  ArmEmulatorOptions options;
  options.engine.faults.throttling = false;
  // Long enough that every PUT is answered before the first operation completes.
  options.latencies["arm:PublicIPAddresses_CreateOrUpdate"] =
      emulators::Latency::fixed(std::chrono::seconds(smoke ? 2 : 8));
  auto server = ArmServer::start(clock, options);
  if (!server) {
    std::cerr << "start: " << server.error().message() << "\n";
    return 1;
  }
  const std::string token = (*server)->emulator().identity().issue(
      "bench", "https://management.azure.com/", std::chrono::hours(1));
  http::ClientOptions clientOptions;
  clientOptions.port = (*server)->port();
  clientOptions.caPem = (*server)->caPem();
  clientOptions.token = token;
  const std::string rg = "/subscriptions/bench/resourceGroups/rg";
  {
    auto setup = http::connectClient(clientOptions);
    auto created =
        setup ? (*setup)->send("PUT", rg + "?api-version=2021-04-01", R"({"location":"eastus"})")
              : core::Result<http::Response>(core::fail(setup.error()));
    if (!created || created->status != 201) {
      std::cerr << "creating the resource group failed\n";
      return 1;
    }
  }

  std::vector<std::vector<int64_t>> putLatencies(kThreads), pollLatencies(kThreads);
  std::vector<std::vector<std::string>> operations(kThreads);
  std::atomic<int> failures{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto client = http::connectClient(clientOptions);
      if (!client) {
        ++failures;
        return;
      }
      for (int i = t; i < ops; i += kThreads) {
        const auto before = Clock::now();
        auto r = (*client)->send(
            "PUT",
            fmt::format("{}/providers/Microsoft.Network/publicIPAddresses/ip-{}?api-version="
                        "2023-09-01",
                        rg, i),
            R"({"location":"eastus","sku":{"name":"Standard"}})");
        putLatencies[t].push_back(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - before).count());
        if (!r || r->status != 201) {
          ++failures;
          continue;
        }
        operations[t].push_back(pathOf(header(*r, "Azure-AsyncOperation")));
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  const double putSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  const size_t inFlight = (*server)->emulator().model().operationsInFlight();

  threads.clear();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto client = http::connectClient(clientOptions);
      if (!client) {
        ++failures;
        return;
      }
      std::vector<std::string> pending = operations[t];
      while (!pending.empty()) {
        std::vector<std::string> still;
        for (const std::string& op : pending) {
          const auto before = Clock::now();
          auto r = (*client)->send("GET", op);
          pollLatencies[t].push_back(
              std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - before).count());
          if (!r || r->status != 200) {
            ++failures;
            continue;
          }
          if (r->body.find("\"status\":\"Succeeded\"") == std::string::npos) {
            still.push_back(op);
          }
        }
        pending = std::move(still);
        if (!pending.empty()) {
          // A client between polls, as Retry-After asks; the benchmark's pacing, not a sync.
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  const double allDone = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<int64_t> puts, polls;
  for (int t = 0; t < kThreads; ++t) {
    puts.insert(puts.end(), putLatencies[t].begin(), putLatencies[t].end());
    polls.insert(polls.end(), pollLatencies[t].begin(), pollLatencies[t].end());
  }
  std::cout << "arm_ops_in_flight " << inFlight << " ops\n"
            << "arm_put_latency_us_p50 " << percentile(puts, 0.5) << " us\n"
            << "arm_put_latency_us_p99 " << percentile(puts, 0.99) << " us\n"
            << "arm_puts_per_second " << fmt::format("{:.0f}", ops / putSeconds) << " puts/s\n"
            << "arm_poll_latency_us_p50 " << percentile(polls, 0.5) << " us\n"
            << "arm_all_done_seconds " << fmt::format("{:.2f}", allDone) << " s\n"
            << "arm_failures " << failures.load() << " requests\n";
  (*server)->stop();
  return failures.load() == 0 && inFlight == static_cast<size_t>(ops) ? 0 : 1;
}

}  // namespace
}  // namespace nodewright::bench

int main(int argc, char** argv) {
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    smoke = smoke || std::strcmp(argv[i], "--smoke") == 0;
  }
  return nodewright::bench::run(smoke);
}
