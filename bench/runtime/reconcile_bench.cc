// A controller with a no-op reconciler over 10,000 ConfigMaps in the embedded API server (in this
// process), with 4 workers and with 1:
//   - initial: the informer's LIST adds every key; reconciles/s from the first add to the last
//     reconcile, and the queue latency (add into the queue to the start of reconcile) p50/p99,
//   - steady: everything idle, all 10,000 keys added at once through queue().add(); the same.
// The queue latency is our own bookkeeping (the workqueue_queue_duration_seconds buckets are a
// decade wide); the controller still reports to a metrics registry, so its cost is included.
// Prints `name value unit` lines; notes go to stderr. NW_BENCH_OBJECTS=1000 (or `--smoke`)
// scales the run down for CI.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "api/core/secret.h"
#include "api/reflect/json.h"
#include "apiserver/api_server.h"
#include "core/clock.h"
#include "kube/client.h"
#include "kube/config.h"
#include "kube/informer.h"
#include "runtime/controller.h"
#include "runtime/metrics.h"
#include "runtime/reconciler.h"

namespace {

namespace kube = nodewright::kube;
namespace runtime = nodewright::runtime;
namespace apiserver = nodewright::apiserver;
using nodewright::api::Json;
using Clock = std::chrono::steady_clock;

constexpr int kWriters = 4;
constexpr const char* kPrefix = "cm-";

// Each figure is sampled once per repetition and printed as the median: the rounds take tens of
// milliseconds, so one sample is at the mercy of the scheduler on a small machine.
class Figures {
 public:
  void add(const std::string& name, double value, const std::string& unit) {
    for (auto& f : figures_) {
      if (f.name == name) {
        f.samples.push_back(value);
        return;
      }
    }
    figures_.push_back({name, unit, {value}});
  }
  void print() const {
    for (const auto& f : figures_) {
      std::vector<double> sorted = f.samples;
      std::sort(sorted.begin(), sorted.end());
      std::cout << f.name << " " << sorted[sorted.size() / 2] << " " << f.unit << std::endl;
    }
  }

 private:
  struct Figure {
    std::string name;
    std::string unit;
    std::vector<double> samples;
  };
  std::vector<Figure> figures_;
};

size_t countFromEnv(const char* name, size_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    return fallback;
  }
  return static_cast<size_t>(std::strtoull(value, nullptr, 10));
}

std::string objectName(size_t i) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%s%06zu", kPrefix, i);
  return buf;
}

int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * values.size()))];
}

// Counts reconciles and records, per object, the time from its add into the queue to the start
// of its reconcile. Objects are numbered by name, so the bookkeeping takes no lock.
class NoopReconciler : public runtime::Reconciler {
 public:
  explicit NoopReconciler(size_t objects)
      : addedAt_(objects), latencyNs_(objects), reconcileCounts_(objects) {}

  // Called just before `index` is added to the queue.
  void markAdded(size_t index) { addedAt_[index].store(nowNs(), std::memory_order_relaxed); }
  // Starts a round that ends when `target` reconciles happened.
  void expect(size_t target) {
    std::lock_guard lock(mu_);
    done_ = 0;
    target_ = target;
    for (auto& count : reconcileCounts_) {
      count.store(0, std::memory_order_relaxed);
    }
  }

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context&) override {
    int64_t start = nowNs();
    size_t index = std::strtoull(request.name.c_str() + std::strlen(kPrefix), nullptr, 10);
    latencyNs_[index] = start - addedAt_[index].load(std::memory_order_relaxed);
    reconcileCounts_[index].fetch_add(1, std::memory_order_relaxed);
    if (++done_ == target_) {
      std::lock_guard lock(mu_);
      finishedAt_ = Clock::now();
      cv_.notify_all();
    }
    return runtime::Result::done();
  }

  std::optional<Clock::time_point> wait(std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, timeout, [&] { return done_.load() >= target_; })) {
      return std::nullopt;
    }
    return finishedAt_;
  }
  std::vector<double> latenciesMs() const {
    std::vector<double> out;
    out.reserve(latencyNs_.size());
    for (int64_t ns : latencyNs_) {
      out.push_back(static_cast<double>(ns) / 1e6);
    }
    return out;
  }
  int64_t earliestAddNs() const {
    int64_t earliest = INT64_MAX;
    for (const auto& at : addedAt_) {
      earliest = std::min(earliest, at.load());
    }
    return earliest;
  }
  // Objects reconciled more than once in this round (there should be none).
  size_t repeated() const {
    size_t n = 0;
    for (const auto& count : reconcileCounts_) {
      n += count.load() > 1;
    }
    return n;
  }

 private:
  std::vector<std::atomic<int64_t>> addedAt_;
  std::vector<int64_t> latencyNs_;  // index i written by i's reconcile only
  std::vector<std::atomic<int>> reconcileCounts_;
  std::atomic<size_t> done_{0};
  std::atomic<size_t> target_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  Clock::time_point finishedAt_{};
};

int fail(const std::string& what) {
  std::cerr << "reconcile_bench: " << what << "\n";
  return 1;
}

void report(Figures& figures, const std::string& round, int workers, size_t objects, double seconds,
            const NoopReconciler& reconciler) {
  std::string suffix = "_" + round + "_" + std::to_string(workers) + "w";
  auto latencies = reconciler.latenciesMs();
  figures.add("reconcile_noop_per_second" + suffix, static_cast<double>(objects) / seconds,
              "reconciles/s");
  figures.add("reconcile_queue_latency_p50_ms" + suffix, percentile(latencies, 0.50), "ms");
  figures.add("reconcile_queue_latency_p99_ms" + suffix, percentile(latencies, 0.99), "ms");
}

// One controller with `workers` workers: the initial round from an informer's LIST, then the
// steady round of direct adds.
int runRounds(Figures& figures, kube::Client& client, size_t objects, int workers) {
  NoopReconciler reconciler(objects);
  runtime::Registry metrics;
  nodewright::core::SystemClock clock;
  runtime::ControllerOptions options;
  options.workers = workers;
  runtime::Controller controller("bench", reconciler, clock, options, &metrics);
  kube::Informer informer(client, kube::kindOf<nodewright::api::corev1::ConfigMap>());
  // Before the controller's handler, so the mark precedes the key's add into the queue.
  informer.addHandler(
      kube::EventHandler{[&](const nodewright::api::Object& o) {
                           reconciler.markAdded(std::strtoull(
                               o.metadata().name.c_str() + std::strlen(kPrefix), nullptr, 10));
                         },
                         nullptr, nullptr});
  controller.watchFor(informer);
  std::stop_source stop;
  controller.start(stop.get_token());

  // Initial: every key arrives from the informer's first LIST.
  reconciler.expect(objects);
  auto start = Clock::now();
  informer.start();
  auto finished = reconciler.wait(std::chrono::seconds(120));
  if (!finished) {
    return fail("initial round did not finish");
  }
  double fromStart = std::chrono::duration<double>(*finished - start).count();
  double fromFirstAdd =
      std::chrono::duration<double>(
          *finished - Clock::time_point(std::chrono::nanoseconds(reconciler.earliestAddNs())))
          .count();
  if (reconciler.repeated() != 0) {
    return fail("objects reconciled twice in the initial round");
  }
  report(figures, "initial", workers, objects, fromFirstAdd, reconciler);
  figures.add("reconcile_informer_start_to_all_done_seconds_" + std::to_string(workers) + "w",
              fromStart, "s");

  // Steady: idle, then every key at once.
  reconciler.expect(objects);
  start = Clock::now();
  for (size_t i = 0; i < objects; ++i) {
    reconciler.markAdded(i);
    controller.queue().add("default/" + objectName(i));
  }
  finished = reconciler.wait(std::chrono::seconds(120));
  if (!finished) {
    return fail("steady round did not finish");
  }
  if (reconciler.repeated() != 0) {
    return fail("objects reconciled twice in the steady round");
  }
  report(figures, "steady", workers, objects,
         std::chrono::duration<double>(*finished - start).count(), reconciler);

  informer.stop();
  stop.request_stop();
  controller.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
  const size_t objects = countFromEnv("NW_BENCH_OBJECTS", smoke ? 1000 : 10000);
  if (objects == 0) {
    return fail("NW_BENCH_OBJECTS must be positive");
  }

  std::string dir = (std::filesystem::temp_directory_path() / "nw-reconcile-bench-XXXXXX").string();
  if (!mkdtemp(dir.data())) {
    return fail("cannot create a temporary directory");
  }
  nodewright::core::SystemClock clock;
  apiserver::ApiServerOptions serverOptions;
  serverOptions.dataDir = dir;
  serverOptions.port = 0;
  serverOptions.fsync = false;  // loading is setup; the rounds only read
  auto server = apiserver::startApiServer(serverOptions, clock);
  if (!server) {
    return fail(server.error().message());
  }
  std::cerr << "# embedded API server in this process, store fsync off; no-op reconciler\n";

  auto config = kube::loadKubeconfig((*server)->kubeconfigPath());
  if (!config) {
    return fail(config.error().message());
  }
  auto client = kube::Client::create(*config);
  if (!client) {
    return fail(client.error().message());
  }
  kube::Client& c = **client;

  std::atomic<size_t> next{0};
  std::atomic<size_t> failures{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&] {
      for (size_t i = next++; i < objects; i = next++) {
        Json json = {{"apiVersion", "v1"},
                     {"kind", "ConfigMap"},
                     {"metadata",
                      {{"name", objectName(i)},
                       {"namespace", "default"},
                       {"labels", {{"app", "bench"}, {"shard", std::to_string(i % 16)}}}}},
                     {"data", {{"config.yaml", "replicas: " + std::to_string(i % 5)}}}};
        auto object = c.decode(json);
        if (!object || !c.create(*object)) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : writers) {
    t.join();
  }
  if (failures != 0) {
    return fail(std::to_string(failures.load()) + " creates failed");
  }

  // Each repetition is a fresh informer and controller; the medians are printed.
  const int repetitions = smoke ? 1 : 5;
  Figures figures;
  for (int workers : {4, 1}) {
    for (int r = 0; r < repetitions; ++r) {
      if (int rc = runRounds(figures, c, objects, workers); rc != 0) {
        return rc;
      }
    }
  }
  figures.print();
  std::cerr << "# median of " << repetitions
            << " runs; initial: first informer add to last reconcile; steady: first queue().add to "
               "last reconcile; latency: add into the queue to reconcile start\n";
  (*server)->stop();
  std::filesystem::remove_all(dir);
  return 0;
}
