// The Pod informer against the embedded API server, both in this process:
//   - time from Informer::start() to a synced cache of 50,000 Pods (LIST by pages of 500, then
//     the watch),
//   - resident memory per cached Pod,
//   - watch ingest: 5,000 more Pods written while the informer watches (events/s and the lag
//     behind the last write), and the same events replayed from the server's watch history into
//     a bare cache, which the writers do not limit.
// Prints `name value unit` lines; notes go to stderr. NW_BENCH_PODS=2000 (or `--smoke`) scales
// the run down for CI.

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/core/pod.h"
#include "api/reflect/json.h"
#include "apiserver/api_server.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/informer.h"

namespace {

namespace kube = nodewright::kube;
namespace apiserver = nodewright::apiserver;
using nodewright::api::Json;
using Clock = std::chrono::steady_clock;

constexpr int kNamespaces = 10;
constexpr int kNodes = 500;
constexpr int kWriters = 4;

void figure(const std::string& name, double value, const std::string& unit) {
  std::cout << name << " " << value << " " << unit << std::endl;
}

double secondsSince(Clock::time_point start, Clock::time_point end = Clock::now()) {
  return std::chrono::duration<double>(end - start).count();
}

size_t countFromEnv(const char* name, size_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    return fallback;
  }
  return static_cast<size_t>(std::strtoull(value, nullptr, 10));
}

// VmRSS of /proc/self/status, in bytes.
size_t residentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
    }
  }
  return 0;
}

// Bytes the allocator has handed out and not had back: unlike RSS, blind to fragmentation and to
// pages the allocator keeps.
size_t heapInUse() {
  return mallinfo2().uordblks;
}

// Returns what the allocator can to the kernel first, so RSS reflects live data.
void settleMemory() {
  malloc_trim(0);
}

// A small, realistic Pod: a Deployment's replica with one container and resource requests,
// bound to one of 500 nodes.
Json podJson(const std::string& name, size_t i) {
  std::string team = "team-" + std::to_string(i % kNamespaces);
  std::string app = "web-" + std::to_string(i % 50);
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", team},
        {"labels",
         {{"app", app},
          {"pod-template-hash", "5d9f7c6b8" + std::to_string(i % 10)},
          {"team", team}}},
        {"annotations", {{"kubectl.kubernetes.io/default-container", "app"}}}}},
      {"spec",
       {{"nodeName", "node-" + std::to_string(i % kNodes)},
        {"containers",
         Json::array({{{"name", "app"},
                       {"image", "registry.example.com/" + app + ":1.4." + std::to_string(i % 7)},
                       {"resources",
                        {{"requests",
                          {{"cpu", std::to_string(100 + 50 * (i % 8)) + "m"},
                           {"memory", std::to_string(128 * (1 + i % 4)) + "Mi"}}},
                         {"limits", {{"memory", std::to_string(256 * (1 + i % 4)) + "Mi"}}}}}}})},
        {"terminationGracePeriodSeconds", 30}}}};
}

std::string podName(const std::string& prefix, size_t i) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%06zu", i);
  return prefix + buf;
}

// Creates Pods prefix-[0, count) from kWriters threads; returns the failures and sets `lastAck`
// to when the last write was acknowledged.
size_t createPods(kube::Client& client, const std::string& prefix, size_t count,
                  Clock::time_point* lastAck = nullptr) {
  std::atomic<size_t> next{0};
  std::atomic<size_t> failures{0};
  std::mutex mu;
  Clock::time_point latest{};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < count; i = next++) {
        auto object = client.decode(podJson(podName(prefix, i), i));
        if (!object || !client.create(*object)) {
          ++failures;
          continue;
        }
        auto now = Clock::now();
        std::lock_guard lock(mu);
        latest = std::max(latest, now);
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  if (lastAck) {
    *lastAck = latest;
  }
  return failures.load();
}

// Counts added Pods whose name starts with a prefix, and wakes a waiter at a target.
class AddCounter {
 public:
  explicit AddCounter(std::string prefix) : prefix_(std::move(prefix)) {}
  kube::EventHandler handler() {
    return {[this](const nodewright::api::Object& o) {
              if (o.metadata().name.rfind(prefix_, 0) != 0) {
                return;
              }
              size_t seen = ++seen_;
              std::lock_guard lock(mu_);
              if (seen == target_) {
                reachedAt_ = Clock::now();
                cv_.notify_all();
              }
            },
            nullptr, nullptr};
  }
  void expect(size_t target) {
    std::lock_guard lock(mu_);
    target_ = target;
  }
  // When the target was reached, or nullopt after `timeout`.
  std::optional<Clock::time_point> wait(std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, timeout, [&] { return seen_.load() >= target_; })) {
      return std::nullopt;
    }
    return reachedAt_;
  }

 private:
  const std::string prefix_;
  std::atomic<size_t> seen_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  size_t target_ = 0;
  Clock::time_point reachedAt_{};
};

int fail(const std::string& what) {
  std::cerr << "informer_bench: " << what << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
  const size_t pods = countFromEnv("NW_BENCH_PODS", smoke ? 2000 : 50000);
  const size_t ingest = std::max<size_t>(1, pods / 10);  // 5,000 at full size
  if (pods == 0) {
    return fail("NW_BENCH_PODS must be positive");
  }

  std::string dir = (std::filesystem::temp_directory_path() / "nw-informer-bench-XXXXXX").string();
  if (!mkdtemp(dir.data())) {
    return fail("cannot create a temporary directory");
  }
  nodewright::core::SystemClock clock;
  apiserver::ApiServerOptions serverOptions;
  serverOptions.dataDir = dir;
  serverOptions.port = 0;
  // Loading is setup, not what is measured; the informer only reads. The ingest writes run
  // without fsync too, which keeps the writers from hiding the watch path.
  serverOptions.fsync = false;
  auto server = apiserver::startApiServer(serverOptions, clock);
  if (!server) {
    return fail(server.error().message());
  }
  std::cerr << "# embedded API server in this process, store fsync off\n";

  auto config = kube::loadKubeconfig((*server)->kubeconfigPath());
  if (!config) {
    return fail(config.error().message());
  }
  auto client = kube::Client::create(*config);
  if (!client) {
    return fail(client.error().message());
  }
  kube::Client& c = **client;
  const auto& podKind = kube::kindOf<nodewright::api::corev1::Pod>(c.registry());

  for (int n = 0; n < kNamespaces; ++n) {
    Json namespaceJson = {{"apiVersion", "v1"},
                          {"kind", "Namespace"},
                          {"metadata", {{"name", "team-" + std::to_string(n)}}}};
    auto ns = c.decode(namespaceJson);
    if (!ns || !c.create(*ns)) {
      return fail("cannot create namespace team-" + std::to_string(n));
    }
  }
  auto loadStart = Clock::now();
  if (size_t failed = createPods(c, "pod-", pods); failed != 0) {
    return fail(std::to_string(failed) + " pod creates failed");
  }
  double loadSeconds = secondsSince(loadStart);
  std::cerr << "# loaded " << pods << " pods in " << loadSeconds << " s ("
            << static_cast<double>(pods) / loadSeconds << " creates/s, " << kWriters
            << " client threads)\n";

  // Baseline: one full LIST first, so whatever the server and the client keep warm after
  // serving one (statement and page caches, connection buffers) is in the baseline rather than
  // counted against the informer's cache.
  if (!c.list(podKind, "")) {
    return fail("warm-up list failed");
  }
  settleMemory();
  size_t rssBefore = residentBytes();
  size_t heapBefore = heapInUse();

  // 1. Start to synced cache.
  AddCounter loaded("pod-");
  loaded.expect(pods);
  AddCounter ingested("ingest-");
  ingested.expect(ingest);
  kube::Informer informer(c, podKind);  // pages of 500 by default
  informer.addHandler(loaded.handler());
  informer.addHandler(ingested.handler());
  auto syncStart = Clock::now();
  informer.start();
  if (!informer.waitForSync(std::chrono::seconds(120))) {
    return fail("informer did not sync");
  }
  double syncSeconds = secondsSince(syncStart);
  if (informer.cache().size() != pods) {
    return fail("cache holds " + std::to_string(informer.cache().size()) + " pods");
  }
  if (!loaded.wait(std::chrono::seconds(10))) {
    return fail("handlers missed adds");
  }

  // 2. Memory of the synced cache.
  settleMemory();
  size_t rssAfter = residentBytes();
  size_t heapAfter = heapInUse();
  auto perPod = [&](size_t before, size_t after) {
    return static_cast<double>(after - std::min(after, before)) / static_cast<double>(pods);
  };

  // 3. Watch ingest while writers create more Pods.
  kube::ListOptions onePod;
  onePod.limit = 1;
  auto rvBefore = c.listPage(podKind, "", onePod);
  if (!rvBefore) {
    return fail("list for the resourceVersion failed");
  }
  Clock::time_point lastAck;
  auto ingestStart = Clock::now();
  if (size_t failed = createPods(c, "ingest-", ingest, &lastAck); failed != 0) {
    return fail(std::to_string(failed) + " ingest creates failed");
  }
  auto seenAll = ingested.wait(std::chrono::seconds(60));
  if (!seenAll) {
    return fail("the informer did not see every ingest write");
  }
  double ingestSeconds = secondsSince(ingestStart, *seenAll);
  double writeSeconds = secondsSince(ingestStart, lastAck);
  double lagMs =
      std::max(0.0, std::chrono::duration<double, std::milli>(*seenAll - lastAck).count());

  // 4. The same events replayed from the watch history: the watch path at full speed.
  kube::Cache replayCache;
  size_t replayed = 0;
  auto replayStart = Clock::now();
  kube::ListOptions watchOptions;
  watchOptions.resourceVersion = rvBefore->resourceVersion;
  watchOptions.allowWatchBookmarks = false;
  auto watched = c.watch(podKind, "", watchOptions, [&](kube::WatchEvent&& event) {
    if (event.type != kube::WatchEventType::Added || !event.object) {
      return true;
    }
    replayCache.upsert(*event.object);
    return ++replayed < ingest;
  });
  double replaySeconds = secondsSince(replayStart);
  if (!watched || replayed != ingest) {
    return fail("watch replay ended early");
  }

  std::string n = std::to_string(pods);
  figure("informer_sync_" + n + "_pods_seconds", syncSeconds, "s");
  figure("informer_sync_pods_per_second", static_cast<double>(pods) / syncSeconds, "pods/s");
  figure("informer_bytes_per_cached_pod", perPod(rssBefore, rssAfter), "bytes");
  figure("informer_heap_bytes_per_cached_pod", perPod(heapBefore, heapAfter), "bytes");
  figure("informer_rss_before_informer", static_cast<double>(rssBefore) / 1048576.0, "MiB");
  figure("informer_rss_after_sync", static_cast<double>(rssAfter) / 1048576.0, "MiB");
  figure("informer_watch_events_per_second", static_cast<double>(ingest) / ingestSeconds,
         "events/s");
  figure("informer_watch_writes_per_second", static_cast<double>(ingest) / writeSeconds,
         "writes/s");
  figure("informer_watch_lag_after_last_write_ms", lagMs, "ms");
  figure("informer_watch_replay_events_per_second", static_cast<double>(ingest) / replaySeconds,
         "events/s");
  std::cerr
      << "# watch_events: " << ingest << " creates by " << kWriters
      << " writers while the informer watched, first write to last cache add (bounded by "
         "the writers); replay: the same events re-read from the watch history into a cache\n";

  informer.stop();
  (*server)->stop();
  std::filesystem::remove_all(dir);
  return 0;
}
