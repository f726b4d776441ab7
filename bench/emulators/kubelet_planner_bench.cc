// The node agent's binder planner at the size the 500-pod end-to-end run needs: the scheduling
// benchmark's five shares (plain, zone spread, hostname spread, zone self-affinity, hostname
// anti-affinity) over nodes of 16 CPUs in three zones. One iteration builds a Planner and places
// every pod (hostname anti-affinity needs a node per fifth of the pods). Prints, per size,
//   plannerPass/<pods>/<nodes>/pods_per_second   placements per second
//   plannerPass/<pods>/<nodes>/ms_per_pass       one full pass, in milliseconds
// The pass fails the benchmark if any pod stays unplaced.
#include <string>
#include <vector>

#include "bench/bench_main.h"
#include "emulators/kubelet/planner.h"
#include "emulators/kubelet/planner_scenario.h"

namespace nodewright::bench {
namespace {

namespace kubelet = emulators::kubelet;

void plannerPass(benchmark::State& state) {
  const auto scenario = kubelet::testing::fiveSharesScenario(static_cast<int>(state.range(0)),
                                                             static_cast<int>(state.range(1)));
  std::vector<const api::corev1::Node*> nodes;
  for (const auto& node : scenario.nodes) {
    nodes.push_back(&node);
  }
  size_t unplaced = 0;
  for (auto _ : state) {
    kubelet::Planner planner(nodes, {});
    for (const auto& pod : scenario.pods) {
      auto placement = planner.place(pod);
      unplaced += placement.node ? 0 : 1;
      benchmark::DoNotOptimize(placement);
    }
  }
  if (unplaced != 0) {
    state.SkipWithError("a pod found no node");
  }
  const double pods = static_cast<double>(state.iterations() * scenario.pods.size());
  state.counters["pods_per_second"] = benchmark::Counter(pods, benchmark::Counter::kIsRate);
  // Inverted rate: seconds per pass, scaled to milliseconds.
  state.counters["ms_per_pass"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 1e-3,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(plannerPass)->Args({500, 100})->Args({2500, 500})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nodewright::bench

int main(int argc, char** argv) {
  return nodewright::bench::benchMain(argc, argv);
}
