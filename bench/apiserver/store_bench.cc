// Storage of the embedded API server under the load of a busy cluster (issue 3 goals: 5,000
// durable writes/s from 8 writers on 2 cores, p99 write-to-watch delay <= 5 ms).
// Figures: <bench>/writes_per_second, p50_ms_per_write, p99_ms_per_write, p99_ms_per_event,
// bytes_per_object and MiB_per_10k_objects.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <thread>

#include "apiserver/storage/store.h"
#include "bench/bench_main.h"

namespace nodewright::bench {
namespace {

using api::Json;
using apiserver::storage::Event;
using apiserver::storage::openSqliteStore;
using apiserver::storage::Store;
using apiserver::storage::StoreOptions;
using apiserver::storage::WriteOp;
using Clock = std::chrono::steady_clock;

constexpr int kWriters = 8;
constexpr int kWatchers = 20;
constexpr int kWritesPerWriter = 1000;
constexpr int kKeysPerWriter = 250;  // writes cycle over these: creates, then status updates
constexpr const char* kStartAnnotation = "bench.nodewright.dev/start-ns";

// A NodeClaim as the provisioner writes it, about 2 KB of JSON.
Json nodeClaim(const std::string& name, int64_t startNs) {
  Json claim = {
      {"apiVersion", "karpenter.sh/v1"},
      {"kind", "NodeClaim"},
      {"metadata",
       {{"name", name},
        {"uid", "3f0c9a52-8d1e-4f57-9a7b-" + std::to_string(100000000000 + startNs % 1000000)},
        {"generation", 1},
        {"creationTimestamp", "2026-11-21T09:00:00Z"},
        {"labels",
         {{"karpenter.sh/nodepool", "default"},
          {"karpenter.sh/capacity-type", "spot"},
          {"node.kubernetes.io/instance-type", "m5.xlarge"},
          {"topology.kubernetes.io/zone", "us-east-1a"},
          {"kubernetes.io/arch", "amd64"}}},
        {"annotations",
         {{"karpenter.sh/nodepool-hash", "6821555240594823858"},
          {"karpenter.sh/nodepool-hash-version", "v3"},
          {"karpenter.k8s.aws/ec2nodeclass-hash", "15535182697325354914"},
          {kStartAnnotation, std::to_string(startNs)}}},
        {"finalizers", {"karpenter.sh/termination"}},
        {"ownerReferences", Json::array({{{"apiVersion", "karpenter.sh/v1"},
                                          {"kind", "NodePool"},
                                          {"name", "default"},
                                          {"uid", "5b4e1c9e-0d2a-4c55-b1c3-6f1f0e3a9d21"},
                                          {"blockOwnerDeletion", true}}})}}},
      {"spec",
       {{"nodeClassRef",
         {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}},
        {"requirements",
         Json::array(
             {{{"key", "node.kubernetes.io/instance-type"},
               {"operator", "In"},
               {"values", {"m5.xlarge", "m5a.xlarge", "m6i.xlarge"}}},
              {{"key", "karpenter.sh/capacity-type"},
               {"operator", "In"},
               {"values", {"spot", "on-demand"}}},
              {{"key", "topology.kubernetes.io/zone"},
               {"operator", "In"},
               {"values", {"us-east-1a", "us-east-1b"}}},
              {{"key", "karpenter.k8s.aws/instance-cpu"}, {"operator", "Gt"}, {"values", {"1"}}}})},
        {"taints",
         Json::array({{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}})},
        {"resources", {{"requests", {{"cpu", "2150m"}, {"memory", "6Gi"}, {"pods", "17"}}}}},
        {"expireAfter", "720h"}}},
      {"status",
       {{"providerID", "aws:///us-east-1a/i-0a1b2c3d4e5f60718"},
        {"nodeName", "ip-10-0-117-42.ec2.internal"},
        {"imageID", "ami-0123456789abcdef0"},
        {"capacity",
         {{"cpu", "4"}, {"memory", "15155Mi"}, {"pods", "58"}, {"ephemeral-storage", "20Gi"}}},
        {"allocatable",
         {{"cpu", "3920m"}, {"memory", "14162Mi"}, {"pods", "58"}, {"ephemeral-storage", "17Gi"}}},
        {"conditions", Json::array({{{"type", "Launched"},
                                     {"status", "True"},
                                     {"lastTransitionTime", "2026-11-21T09:00:00Z"},
                                     {"reason", "Launched"},
                                     {"message", ""}},
                                    {{"type", "Registered"},
                                     {"status", "True"},
                                     {"lastTransitionTime", "2026-11-21T09:01:00Z"},
                                     {"reason", "Registered"},
                                     {"message", ""}},
                                    {{"type", "Initialized"},
                                     {"status", "True"},
                                     {"lastTransitionTime", "2026-11-21T09:01:30Z"},
                                     {"reason", "Initialized"},
                                     {"message", ""}},
                                    {{"type", "Ready"},
                                     {"status", "True"},
                                     {"lastTransitionTime", "2026-11-21T09:02:00Z"},
                                     {"reason", "Ready"},
                                     {"message", ""}}})}}}};
  return claim;
}

// Clients copy a prepared object, as a server would decode one, rather than build it field by
// field: nlohmann's initializer lists would cost more than the store itself.
Json claimFor(const std::string& name, int64_t startNs) {
  static const Json kTemplate = nodeClaim("template", 0);
  Json claim = kTemplate;
  claim["metadata"]["name"] = name;
  claim["metadata"]["annotations"][kStartAnnotation] = std::to_string(startNs);
  return claim;
}

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

size_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0;
  size_t resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

double percentile(std::vector<double>& values, double p) {
  if (values.empty()) {
    return 0;
  }
  size_t index = std::min(values.size() - 1, static_cast<size_t>(p * values.size()));
  std::nth_element(values.begin(), values.begin() + index, values.end());
  return values[index];
}

// A store in a fresh directory, removed afterwards.
class BenchStore {
 public:
  explicit BenchStore(const StoreOptions& options) {
    static int counter = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("nw-store-bench-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
    auto store = openSqliteStore((dir_ / "store.db").string(), options);
    if (store) {
      store_ = std::move(*store);
    } else {
      error_ = store.error().message();
    }
  }
  ~BenchStore() {
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  Store* get() { return store_.get(); }
  const std::string& error() const { return error_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<Store> store_;
  std::string error_;
};

std::string claimKey(int writer, int index) {
  return "nodeclaims.karpenter.sh//default-" + std::to_string(writer) + "-" + std::to_string(index);
}

// Runs kWriters threads of kWritesPerWriter unconditional puts; returns each write's latency
// in milliseconds, or an error message.
std::string runWriters(Store& store, int round, std::vector<double>& latenciesMs) {
  std::vector<std::vector<double>> perWriter(kWriters);
  std::vector<std::string> errors(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      perWriter[w].reserve(kWritesPerWriter);
      for (int i = 0; i < kWritesPerWriter; ++i) {
        int index = (round * kWritesPerWriter + i) % kKeysPerWriter;
        std::string key = claimKey(w, index);
        const int64_t start = nowNs();
        WriteOp op;
        op.key = key;
        op.object = claimFor(key, start);
        auto written = store.write(std::move(op));
        if (!written) {
          errors[w] = written.error().message();
          return;
        }
        perWriter[w].push_back(static_cast<double>(nowNs() - start) / 1e6);
      }
    });
  }
  for (auto& writer : writers) {
    writer.join();
  }
  for (int w = 0; w < kWriters; ++w) {
    if (!errors[w].empty()) {
      return errors[w];
    }
    latenciesMs.insert(latenciesMs.end(), perWriter[w].begin(), perWriter[w].end());
  }
  return "";
}

std::string putAll(Store& store, const std::vector<Json>& claims) {
  for (size_t i = 0; i < claims.size(); ++i) {
    WriteOp op;
    op.key = claimKey(0, static_cast<int>(i));
    op.object = claims[i];
    if (auto written = store.write(std::move(op)); !written) {
      return written.error().message();
    }
  }
  return "";
}

// Resident memory the store adds per object (the parsed object, its JSON text, the map entry),
// and per event the history retains for an update (the replaced version stays alive). Measured
// first, so memory freed by other runs does not mask it.
void residentMemory10kObjects(benchmark::State& state) {
  constexpr int kObjects = 10000;
  std::vector<Json> claims;
  for (int i = 0; i < kObjects; ++i) {
    claims.push_back(nodeClaim(claimKey(0, i), i));
  }
  size_t textBytes = 0;
  double objectsBytes = 0;
  double historyBytes = 0;
  for (auto _ : state) {
    BenchStore store(StoreOptions{.fsync = false});
    if (store.get() == nullptr) {
      state.SkipWithError(store.error().c_str());
      return;
    }
    const size_t before = residentBytes();
    if (std::string error = putAll(*store.get(), claims); !error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    const size_t created = residentBytes();
    if (std::string error = putAll(*store.get(), claims); !error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    objectsBytes = static_cast<double>(created - before);
    historyBytes = static_cast<double>(residentBytes() - created);
    textBytes = store.get()->get(claimKey(0, 0))->text->size();
  }
  state.counters["bytes_per_object"] = objectsBytes / kObjects;
  state.counters["MiB_per_10k_objects"] = objectsBytes / (1024.0 * 1024.0);
  state.counters["MiB_per_10k_history_events"] = historyBytes / (1024.0 * 1024.0);
  state.counters["json_bytes_per_object"] = static_cast<double>(textBytes);
}
BENCHMARK(residentMemory10kObjects)->Unit(benchmark::kMillisecond)->Iterations(1);

void writes8Writers(benchmark::State& state, bool fsync) {
  BenchStore store(StoreOptions{.fsync = fsync});
  if (store.get() == nullptr) {
    state.SkipWithError(store.error().c_str());
    return;
  }
  std::vector<double> latenciesMs;
  int round = 0;
  for (auto _ : state) {
    if (std::string error = runWriters(*store.get(), round++, latenciesMs); !error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
  }
  state.counters["writes_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kWriters * kWritesPerWriter),
                         benchmark::Counter::kIsRate);
  state.counters["p50_ms_per_write"] = percentile(latenciesMs, 0.50);
  state.counters["p99_ms_per_write"] = percentile(latenciesMs, 0.99);
}

void durableWrites8Writers(benchmark::State& state) {
  writes8Writers(state, true);
}
BENCHMARK(durableWrites8Writers)->Unit(benchmark::kMillisecond)->UseRealTime();

// Without fsync (survives kill -9, not power loss): the CPU-bound ceiling of the store.
void unsyncedWrites8Writers(benchmark::State& state) {
  writes8Writers(state, false);
}
BENCHMARK(unsyncedWrites8Writers)->Unit(benchmark::kMillisecond)->UseRealTime();

// The delay from a writer calling write() to each of 20 watchers receiving the event, which
// includes queueing, the durable commit and the wake-up.
void writeToWatchDelay20Watchers(benchmark::State& state) {
  BenchStore store(StoreOptions{});
  if (store.get() == nullptr) {
    state.SkipWithError(store.error().c_str());
    return;
  }
  std::vector<double> delaysMs;
  std::vector<double> latenciesMs;
  int round = 0;
  for (auto _ : state) {
    std::atomic<int64_t> lastRevision{std::numeric_limits<int64_t>::max()};
    std::vector<std::vector<double>> perWatcher(kWatchers);
    std::vector<std::string> errors(kWatchers);
    std::vector<std::thread> watchers;
    const int64_t from = store.get()->revision();
    for (int w = 0; w < kWatchers; ++w) {
      auto watch = store.get()->watch("nodeclaims.karpenter.sh/", from);
      if (!watch) {
        state.SkipWithError(watch.error().message().c_str());
        return;
      }
      watchers.emplace_back([&, w, watch = std::move(*watch)] {
        while (watch->cursor() < lastRevision.load()) {
          auto events = watch->next(std::chrono::milliseconds(50));
          if (!events) {
            errors[w] = events.error().message();
            return;
          }
          const int64_t received = nowNs();
          for (const Event& event : *events) {
            const Json& annotations = (*event.stored->object)["metadata"]["annotations"];
            int64_t start = std::stoll(annotations[kStartAnnotation].get<std::string>());
            perWatcher[w].push_back(static_cast<double>(received - start) / 1e6);
          }
        }
      });
    }
    std::string error = runWriters(*store.get(), round++, latenciesMs);
    lastRevision.store(store.get()->revision());
    for (auto& watcher : watchers) {
      watcher.join();
    }
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
    for (int w = 0; w < kWatchers; ++w) {
      if (!errors[w].empty()) {
        state.SkipWithError(errors[w].c_str());
        return;
      }
      delaysMs.insert(delaysMs.end(), perWatcher[w].begin(), perWatcher[w].end());
    }
  }
  state.counters["writes_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations() * kWriters * kWritesPerWriter),
                         benchmark::Counter::kIsRate);
  state.counters["p50_ms_per_event"] = percentile(delaysMs, 0.50);
  state.counters["p99_ms_per_event"] = percentile(delaysMs, 0.99);
  state.counters["p99_ms_per_write"] = percentile(latenciesMs, 0.99);
}
BENCHMARK(writeToWatchDelay20Watchers)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace nodewright::bench

int main(int argc, char** argv) {
  return nodewright::bench::benchMain(argc, argv);
}
