// EC2 emulator benchmarks over HTTP with SigV4, as the AWS provider will call it:
//   BM_CreateFleetThenDescribe   instances launched per second by instant CreateFleet calls, each
//                                followed by DescribeInstances of what it launched (throttling
//                                off, as a benchmark of the emulator rather than of AWS's limits)
//   BM_LiveInstances             resident memory per 10,000 live instances, and a store of
//                                NW_BENCH_INSTANCES (default 20,000) paged through by
//                                DescribeInstances
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_main.h"
#include "core/clock.h"
#include "emulators/ec2/emulator.h"
#include "support/emulators/query_client.h"

namespace nodewright::bench {
namespace {

using emulators::ec2::Ec2EmulatorOptions;
using emulators::ec2::Ec2Server;
using emulators::testing::QueryClient;
using emulators::testing::WireResponse;

core::SystemClock& clock() {
  static core::SystemClock c;
  return c;
}

// Throttling off, instances running at once, and subnets with room for every launch.
Ec2EmulatorOptions benchOptions() {
  Ec2EmulatorOptions options;
  options.engine.faults.throttling = false;
  options.engine.timeScale = 1e6;
  for (auto& subnet : options.world.vpcs.at(0).subnets) {
    subnet.availableIps = 10'000'000;
  }
  return options;
}

int64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * 4096;
}

int envInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

aws::ParamPairs fleetParams(int capacity) {
  aws::ParamPairs p = {
      {"Type", "instant"},
      {"TargetCapacitySpecification.TotalTargetCapacity", std::to_string(capacity)},
      {"TargetCapacitySpecification.DefaultTargetCapacityType", "on-demand"},
      {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName", "bench"},
      {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version", "$Latest"},
  };
  int n = 1;
  for (const char* type : {"m5.large", "m6i.large", "c5.large"}) {
    for (const char* subnet :
         {"subnet-0e2c4a6f8b1d3000a", "subnet-0e2c4a6f8b1d3000b", "subnet-0e2c4a6f8b1d3000c"}) {
      const std::string prefix = fmt::format("LaunchTemplateConfigs.1.Overrides.{}.", n++);
      p.emplace_back(prefix + "InstanceType", type);
      p.emplace_back(prefix + "SubnetId", subnet);
    }
  }
  return p;
}

// A server with the launch template the fleets use.
struct Fixture {
  std::unique_ptr<Ec2Server> server;
  std::unique_ptr<QueryClient> client;

  Fixture() {
    server = std::move(*Ec2Server::start(clock(), benchOptions()));
    client = std::make_unique<QueryClient>(server->url(), clock());
    auto created = client->call("CreateLaunchTemplate",
                                {{"LaunchTemplateName", "bench"},
                                 {"LaunchTemplateData.ImageId", imageId()},
                                 {"LaunchTemplateData.SecurityGroupId.1", "sg-0e2c4a6f8b1d30001"},
                                 {"LaunchTemplateData.MetadataOptions.HttpTokens", "required"}});
    if (!created || created->status != 200) {
      throw std::runtime_error("CreateLaunchTemplate failed");
    }
  }

  std::string imageId() {
    const auto& params = server->emulator().world().ssmParameters;
    return params.at(
        "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/"
        "recommended/image_id");
  }

  // Launches `capacity` instances in one fleet and returns their ids.
  std::vector<std::string> launch(int capacity) {
    auto fleet = client->call("CreateFleet", fleetParams(capacity));
    if (!fleet || fleet->status != 200) {
      throw std::runtime_error("CreateFleet failed: " + (fleet ? fleet->body : ""));
    }
    return fleet->itemTexts("instanceIds");
  }
};

void BM_CreateFleetThenDescribe(benchmark::State& state) {
  Fixture f;
  const int capacity = static_cast<int>(state.range(0));
  int64_t launched = 0;
  for (auto _ : state) {
    std::vector<std::string> ids = f.launch(capacity);
    aws::ParamPairs describe;
    for (size_t i = 0; i < ids.size(); ++i) {
      describe.emplace_back(fmt::format("InstanceId.{}", i + 1), ids[i]);
    }
    auto described = f.client->call("DescribeInstances", describe);
    if (!described || described->status != 200 || described->itemTexts("instancesSet").empty()) {
      state.SkipWithError("DescribeInstances failed");
      break;
    }
    launched += static_cast<int64_t>(ids.size());
  }
  state.counters["instances_per_second"] =
      benchmark::Counter(static_cast<double>(launched), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CreateFleetThenDescribe)
    ->Arg(1)
    ->Arg(10)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_LiveInstances(benchmark::State& state) {
  const int total = envInt("NW_BENCH_INSTANCES", 20000);
  for (auto _ : state) {
    Fixture f;
    const int64_t before = residentBytes();
    int launched = 0;
    while (launched < total) {
      launched += static_cast<int>(f.launch(std::min(100, total - launched)).size());
    }
    const int64_t after = residentBytes();
    const auto start = std::chrono::steady_clock::now();
    int described = 0;
    std::string token;
    do {
      aws::ParamPairs page = {{"MaxResults", "1000"}};
      if (!token.empty()) {
        page.emplace_back("NextToken", token);
      }
      auto r = f.client->call("DescribeInstances", page);
      if (!r || r->status != 200) {
        state.SkipWithError("DescribeInstances failed");
        return;
      }
      described += static_cast<int>(r->itemTexts("instancesSet").size());
      token = r->firstText("nextToken");
    } while (!token.empty());
    const double describeSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (described != total) {
      state.SkipWithError(fmt::format("described {} of {}", described, total).c_str());
      return;
    }
    state.counters["live_instances"] = total;
    state.counters["bytes_per_instance"] = static_cast<double>(after - before) / total;
    state.counters["MiB_per_10k_instances"] =
        static_cast<double>(after - before) / total * 10000 / (1024.0 * 1024.0);
    state.counters["ms_per_describe_all"] = describeSeconds * 1000;
  }
}
BENCHMARK(BM_LiveInstances)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace nodewright::bench

int main(int argc, char** argv) {
  return nodewright::bench::benchMain(argc, argv);
}
