// The futures engine's own cost per reconcile, against a cloud that answers instantly (so
// only the engine is measured: future lookup and rewrite, outcome, metrics, adaptive
// bookkeeping, logging calls at a disabled level):
//   - resume: a future is present and its operation is still running (the common reconcile
//     while a VM is created): one poll, the future rewritten, NotDone;
//   - resume_done: the parked operation has finished: one poll, the future removed, Done;
//   - up_to_date: no future, GET and parameters say nothing to do;
//   - begin_park: GET, PUT, parked at once by a Retry-After past the window (not a sample for
//     the adaptive timeout, which only counts parks at the window's end);
//   - adaptive_update: recording one finished operation into a full 1,024-sample window of
//     varied durations (the Kaplan-Meier estimate is recomputed on every sample).
// The object's status holds 8 other futures, and tokens are the size of a serialized ARM
// poller. Prints `name value unit` (median of 5 rounds); `--smoke` runs briefly for CI.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "core/clock.h"
#include "lro/engine.h"
#include "runtime/metrics.h"

namespace {

namespace lro = nodewright::lro;
using nodewright::api::Json;
using std::chrono::milliseconds;

const std::string kToken = [] {
  std::string t = R"({"type":"AsyncOperation","method":"PUT","operationUrl":"https://management.)"
                  R"(azure.com/subscriptions/00000000-0000-0000-0000-000000000000/providers/)"
                  R"(Microsoft.Compute/locations/westeurope/operations/)";
  t += std::string(36, 'a');
  t += R"(?api-version=2024-03-01","finalState":"","resourceId":"/subscriptions/0000/)"
       R"(resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm-0"})";
  return t;
}();

// Answers at once with a fixed state.
class InstantCloud final : public lro::Operations {
 public:
  lro::OpStatus pollStatus = lro::OpStatus::InProgress;
  Json existing;

  lro::CallResult<Json> get(const lro::ResourceRef&, milliseconds) override {
    if (existing.is_null()) {
      lro::CallError e;
      e.kind = lro::CallError::Kind::NotFound;
      return tl::unexpected(e);
    }
    return existing;
  }
  lro::CallResult<lro::OpState> begin(lro::Verb, const lro::ResourceRef&, const Json&,
                                      milliseconds) override {
    return running();
  }
  lro::CallResult<lro::OpState> poll(const std::string&, milliseconds) override {
    if (pollStatus == lro::OpStatus::InProgress) {
      return running();
    }
    lro::OpState s;
    s.status = pollStatus;
    s.result = result_;
    return s;
  }

 private:
  lro::OpState running() const {
    lro::OpState s;
    s.resumeToken = kToken;
    s.retryAfter = std::chrono::seconds(10);
    return s;
  }
  Json result_ = Json{{"name", "vm-0"}, {"properties", {{"provisioningState", "Succeeded"}}}};
};

class Spec final : public lro::ResourceSpec {
 public:
  bool upToDate = false;
  lro::ResourceRef resource() const override {
    lro::ResourceRef r;
    r.id =
        "/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/"
        "vm-0";
    r.resourceGroup = "rg";
    r.serviceName = "virtualmachine";
    r.name = "vm-0";
    return r;
  }
  nodewright::core::Result<std::optional<Json>> parameters(const Json&) const override {
    if (upToDate) {
      return std::optional<Json>();
    }
    return std::optional<Json>(Json{{"location", "westeurope"}});
  }
};

lro::OperationRecords otherFutures() {
  lro::OperationRecords futures;
  for (int i = 0; i < 8; ++i) {
    lro::ResourceRef r;
    r.resourceGroup = "rg";
    r.serviceName = "disks";
    r.name = "disk-" + std::to_string(i);
    futures.push_back({lro::operationKey(r, lro::Verb::Put), kToken});
  }
  return futures;
}

// Median over rounds of the mean µs per call of `body`.
double measure(int rounds, int iterations, const std::function<void()>& body) {
  std::vector<double> samples;
  for (int r = 0; r < rounds; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
      body();
    }
    std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    samples.push_back(took.count() / iterations);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    smoke = smoke || std::strcmp(argv[i], "--smoke") == 0;
  }
  const int iterations = smoke ? 2000 : 100000;
  const int rounds = 5;
  InstantCloud cloud;
  nodewright::runtime::Registry metrics;
  lro::Engine engine(cloud, nodewright::core::systemClock(), lro::EngineOptions{}, &metrics);
  Spec spec;
  const lro::OperationRecords base = otherFutures();
  const lro::Deadline none = lro::Deadline::none();
  volatile int sink = 0;

  lro::OperationRecords parked = base;
  parked.push_back({lro::operationKey(spec.resource(), lro::Verb::Put), kToken});
  cloud.pollStatus = lro::OpStatus::InProgress;
  double resume = measure(rounds, iterations, [&] {
    sink = sink + static_cast<int>(engine.createOrUpdate(spec, parked, none).kind);
  });

  cloud.pollStatus = lro::OpStatus::Succeeded;
  lro::OperationRecords futures;
  double resumeDone = measure(rounds, iterations, [&] {
    futures = parked;  // the status as read for this reconcile
    sink = sink + static_cast<int>(engine.createOrUpdate(spec, futures, none).kind);
  });
  double copyOnly = measure(rounds, iterations, [&] {
    futures = parked;
    sink = sink + static_cast<int>(futures.size());
  });

  cloud.existing = Json{{"name", "vm-0"}, {"properties", {{"provisioningState", "Succeeded"}}}};
  spec.upToDate = true;
  double upToDate = measure(rounds, iterations, [&] {
    sink = sink + static_cast<int>(engine.createOrUpdate(spec, futures, none).kind);
  });

  spec.upToDate = false;
  double beginPark = measure(rounds, iterations / 10, [&] {
    futures = base;
    sink = sink + static_cast<int>(engine.createOrUpdate(spec, futures, none).kind);
  });

  lro::AdaptiveTimeouts adaptive(lro::AdaptiveOptions{}, milliseconds(2000), &metrics);
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> quick(std::log(800000.0), 0.5);
  auto draw = [&] { return std::chrono::microseconds(static_cast<int64_t>(quick(rng))); };
  for (int i = 0; i < 1024; ++i) {
    adaptive.finished("virtualmachine", lro::Verb::Put, draw());
  }
  double adaptiveUpdate = measure(rounds, iterations / 10, [&] {
    adaptive.finished("virtualmachine", lro::Verb::Put, draw());
  });

  std::cout << "lro_engine_resume_overhead_us " << resume << " us\n";
  std::cout << "lro_engine_resume_done_overhead_us " << std::max(0.0, resumeDone - copyOnly)
            << " us\n";
  std::cout << "lro_engine_up_to_date_overhead_us " << upToDate << " us\n";
  std::cout << "lro_engine_begin_park_overhead_us " << std::max(0.0, beginPark - copyOnly)
            << " us\n";
  std::cout << "lro_adaptive_update_us " << adaptiveUpdate << " us\n";
  return sink == -1 ? 1 : 0;
}
