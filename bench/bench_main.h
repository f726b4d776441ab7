#pragma once

// Shared main for nodewright benchmarks: runs Google Benchmark, then prints every figure as one
// `name value unit` line (DESIGN.md). `--smoke` runs each benchmark once, briefly, for CI.
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace nodewright::bench {

// Collects the counters each benchmark reports so they can be printed plainly at the end.
class FigureReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      for (const auto& [name, counter] : run.counters) {
        figures_.push_back(run.benchmark_name() + "/" + name + " " +
                           std::to_string(static_cast<double>(counter)) + " " + unitOf(name));
      }
    }
  }
  void printFigures(std::ostream& out) const {
    for (const std::string& line : figures_) {
      out << line << "\n";
    }
  }

 private:
  // Counter names carry their unit: "objects_per_second" -> "objects/s", "ns_per_object" ->
  // "ns/object".
  static std::string unitOf(const std::string& name) {
    const std::string perSecond = "_per_second";
    if (name.size() > perSecond.size() &&
        name.compare(name.size() - perSecond.size(), perSecond.size(), perSecond) == 0) {
      return name.substr(0, name.size() - perSecond.size()) + "/s";
    }
    auto per = name.find("_per_");
    if (per != std::string::npos) {
      return name.substr(0, per) + "/" + name.substr(per + 5);
    }
    return name;
  }

  std::vector<std::string> figures_;
};

inline int benchMain(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  static char smokeTime[] = "--benchmark_min_time=0.01";
  for (auto& a : args) {
    if (std::strcmp(a, "--smoke") == 0) {
      a = smokeTime;
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  FigureReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.printFigures(std::cout);
  benchmark::Shutdown();
  return 0;
}

}  // namespace nodewright::bench
