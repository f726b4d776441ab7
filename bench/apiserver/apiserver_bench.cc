// The embedded API server end to end, over HTTPS with real connections:
//   - create throughput and p50/p99 latency with 8 concurrent clients (durable writes),
//   - watch fan-out: 20 watchers, events delivered per second and p99 write-to-event delay,
//   - resident memory per 10,000 stored NodeClaims.
// Prints `name value unit` lines. `--smoke` runs a tiny load so CI keeps it working.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "api/reflect/json.h"
#include "apiserver/api_server.h"
#include "http/client.h"

namespace {

using nodewright::api::Json;
using Clock = std::chrono::steady_clock;
namespace apiserver = nodewright::apiserver;
namespace http = nodewright::http;

Json nodeClaim(const std::string& name, size_t i) {
  return {
      {"apiVersion", "karpenter.sh/v1"},
      {"kind", "NodeClaim"},
      {"metadata",
       {{"name", name},
        {"labels", {{"karpenter.sh/nodepool", "default"}, {"team", "t" + std::to_string(i % 7)}}},
        {"annotations", {{"karpenter.sh/nodepool-hash", "6821555240594823858"}}}}},
      {"spec",
       {{"nodeClassRef",
         {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}},
        {"requirements", Json::array({{{"key", "node.kubernetes.io/instance-type"},
                                       {"operator", "In"},
                                       {"values", {"m5.large", "c6i.xlarge", "r7g.2xlarge"}}},
                                      {{"key", "karpenter.sh/capacity-type"},
                                       {"operator", "In"},
                                       {"values", {"spot", "on-demand"}}},
                                      {{"key", "topology.kubernetes.io/zone"},
                                       {"operator", "In"},
                                       {"values", {"us-east-1a"}}}})},
        {"taints",
         Json::array({{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}})},
        {"resources",
         {{"requests", {{"cpu", std::to_string(100 + i % 900) + "m"}, {"memory", "1Gi"}}}}},
        {"expireAfter", "720h"}}}};
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  size_t index = std::min(values.size() - 1, static_cast<size_t>(p * values.size()));
  return values[index];
}

void figure(const std::string& name, double value, const std::string& unit) {
  std::cout << name << " " << value << " " << unit << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
  const size_t objects = smoke ? 200 : 10000;
  const int writers = 8;
  const int watchers = 20;

  std::string dir = (std::filesystem::temp_directory_path() / "nw-apiserver-bench-XXXXXX").string();
  if (!mkdtemp(dir.data())) {
    return 1;
  }
  nodewright::core::SystemClock clock;
  apiserver::ApiServerOptions options;
  options.dataDir = dir;
  options.port = 0;
  auto server = apiserver::startApiServer(options, clock);
  if (!server) {
    std::cerr << server.error().message() << "\n";
    return 1;
  }
  http::ClientOptions clientOptions;
  clientOptions.port = (*server)->port();
  clientOptions.caPem = readFile(dir + "/pki/ca.crt");
  clientOptions.token = readFile(dir + "/pki/token");
  auto connect = [&] { return std::move(*http::connectClient(clientOptions)); };

  // Writes `count` NodeClaims named prefix-N from 8 concurrent clients.
  struct WriteRun {
    std::vector<double> latenciesMs;
    std::map<std::string, Clock::time_point> ackedAt;
    double seconds = 0;
    size_t failures = 0;
  };
  auto runWrites = [&](const std::string& prefix, size_t count) {
    WriteRun run;
    std::mutex mu;
    std::atomic<size_t> next{0};
    std::atomic<size_t> failures{0};
    auto start = Clock::now();
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
      threads.emplace_back([&] {
        auto client = connect();
        for (size_t i = next++; i < count; i = next++) {
          std::string name = prefix + std::to_string(i);
          std::string body = nodewright::api::dumpJson(nodeClaim(name, i));
          auto sent = Clock::now();
          auto response = client->send("POST", "/apis/karpenter.sh/v1/nodeclaims", body);
          auto acked = Clock::now();
          if (!response || response->status != 201) {
            ++failures;
            continue;
          }
          std::lock_guard lock(mu);
          run.latenciesMs.push_back(
              std::chrono::duration<double, std::milli>(acked - sent).count());
          run.ackedAt[name] = acked;
        }
      });
    }
    for (auto& t : threads) {
      t.join();
    }
    run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    run.failures = failures.load();
    return run;
  };

  // 1. Creates alone: throughput, latency, and the memory the stored objects take.
  size_t rssBefore = residentBytes();
  WriteRun creates = runWrites("solo-", objects);
  size_t rssAfter = residentBytes();
  figure("apiserver/create_objects_per_second",
         static_cast<double>(creates.latenciesMs.size()) / creates.seconds, "objects/s");
  figure("apiserver/create_latency_p50", percentile(creates.latenciesMs, 0.50), "ms");
  figure("apiserver/create_latency_p99", percentile(creates.latenciesMs, 0.99), "ms");
  figure("apiserver/memory_per_10000_nodeclaims",
         static_cast<double>(rssAfter - std::min(rssAfter, rssBefore)) / 1048576.0 *
             (10000.0 / static_cast<double>(objects)),
         "MiB");

  // 2. The same creates while 20 watchers follow them: delivery rate and write-to-event delay.
  std::vector<std::vector<std::pair<std::string, Clock::time_point>>> arrivals(watchers);
  std::atomic<size_t> delivered{0};
  std::atomic<int> watching{0};
  std::vector<std::thread> watchThreads;
  auto startRv = Json::parse(connect()
                                 ->send("GET", "/apis/karpenter.sh/v1/nodeclaims?limit=1")
                                 ->body)["metadata"]["resourceVersion"]
                     .get<std::string>();
  for (int w = 0; w < watchers; ++w) {
    watchThreads.emplace_back([&, w] {
      auto client = connect();
      size_t seen = 0;
      ++watching;
      (void)client->stream("/apis/karpenter.sh/v1/nodeclaims?watch=true&resourceVersion=" + startRv,
                           [&](std::string_view line) {
                             auto now = Clock::now();
                             // The watcher's own work stays small so that it measures the
                             // server: find the name without parsing the whole event.
                             if (line.rfind("{\"type\":\"ADDED\"", 0) != 0) {
                               return true;
                             }
                             ++delivered;
                             size_t at = line.find("\"name\":\"");
                             size_t end = line.find('"', at + 8);
                             arrivals[w].emplace_back(
                                 std::string(line.substr(at + 8, end - at - 8)), now);
                             return ++seen < objects;
                           });
    });
  }
  while (watching < watchers) {
    std::this_thread::yield();
  }
  auto fanoutStart = Clock::now();
  WriteRun watched = runWrites("bench-", objects);
  for (auto& t : watchThreads) {
    t.join();
  }
  double fanoutSeconds = std::chrono::duration<double>(Clock::now() - fanoutStart).count();
  // The delay runs from the write's acknowledgement (when a writer may expect watchers to hear
  // of it) to the event's arrival; an event that beat the acknowledgement counts 0.
  std::vector<double> delaysMs;
  for (const auto& perWatcher : arrivals) {
    for (const auto& [name, at] : perWatcher) {
      auto it = watched.ackedAt.find(name);
      if (it == watched.ackedAt.end()) {
        continue;
      }
      delaysMs.push_back(
          std::max(0.0, std::chrono::duration<double, std::milli>(at - it->second).count()));
    }
  }
  figure("apiserver/create_with_20_watchers_objects_per_second",
         static_cast<double>(watched.latenciesMs.size()) / watched.seconds, "objects/s");
  figure("apiserver/watch_events_delivered_per_second",
         static_cast<double>(delivered.load()) / fanoutSeconds, "events/s");
  figure("apiserver/write_to_watch_delay_p50", percentile(delaysMs, 0.50), "ms");
  figure("apiserver/write_to_watch_delay_p99", percentile(delaysMs, 0.99), "ms");
  size_t failures = creates.failures + watched.failures;
  figure("apiserver/create_failures", static_cast<double>(failures), "requests");
  (*server)->stop();
  std::filesystem::remove_all(dir);
  return failures == 0 ? 0 : 1;
}
