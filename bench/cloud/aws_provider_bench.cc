// The AWS provider against the project's EC2 emulator, over HTTP with SigV4:
//   BM_FilterAndRank   1,400 instance types (../shared/data) against a node class with four
//                      network interfaces: the compatibility filter and the offering ranking a
//                      NodeClaim goes through, from the provider's cache (us per NodeClaim), and
//                      the rebuild after a pool ran out of capacity (ms)
//   BM_ScaleUp         NodeClaims launched per second by 16 threads with the emulator's
//                      throttling on (EC2's published buckets), and the RequestLimitExceeded
//                      answers it sent: the client's rate limiter must keep that at 0.
//                      NW_BENCH_NODES claims (default 500; 60 with --smoke).
#include <atomic>
#include <cstdlib>
#include <thread>

#include "bench/bench_main.h"
#include "cloud/aws/stack.h"
#include "cloud/candidates.h"
#include "core/clock.h"
#include "emulators/ec2/emulator.h"
#include "support/cloud/aws/provider_fixture.h"

namespace nodewright::bench {
namespace {

using cloud::aws::AwsStack;
using namespace cloud::aws::testing;

bool smoke = false;

core::SystemClock& clock() {
  static core::SystemClock c;
  return c;
}

// An emulator and a provider stack, as ProviderTest builds them, kept for the process.
struct Rig {
  std::unique_ptr<emulators::ec2::Ec2Server> server;
  std::unique_ptr<aws::Transport> transport;
  std::unique_ptr<AwsStack> stack;
  std::map<std::string, api::karpenter::EC2NodeClass> nodeClasses;
};

std::unique_ptr<Rig> makeRig(double timeScale) {
  auto rig = std::make_unique<Rig>();
  emulators::ec2::Ec2EmulatorOptions options;
  options.catalog = sharedCatalog();
  options.engine.timeScale = timeScale;  // throttling reads emulated time: 1 keeps EC2's rates
  for (auto& subnet : options.world.vpcs.at(0).subnets) {
    subnet.availableIps = 1'000'000;
  }
  auto server = emulators::ec2::Ec2Server::start(clock(), std::move(options), "127.0.0.1", 0);
  if (!server) {
    std::fprintf(stderr, "emulator: %s\n", server.error().message().c_str());
    std::exit(1);
  }
  rig->server = std::move(*server);
  rig->transport = aws::makeCurlTransport();
  cloud::aws::AwsStackOptions stack;
  stack.ec2Endpoint = rig->server->url();
  stack.ssmEndpoint = rig->server->url();
  stack.credentials = [] {
    return aws::ApiResult<aws::sigv4::Credentials>(
        aws::sigv4::Credentials{"nodewright", "nodewright", ""});
  };
  stack.cluster.name = "nodewright";
  stack.cluster.endpoint = "https://127.0.0.1:6443";
  stack.cluster.serviceCidr = "10.100.0.0/16";
  Rig* raw = rig.get();
  stack.nodeClasses = [raw](const std::string& name) -> core::Result<api::karpenter::EC2NodeClass> {
    return raw->nodeClasses.at(name);
  };
  auto created = AwsStack::create(clock(), *rig->transport, std::move(stack));
  if (!created) {
    std::fprintf(stderr, "stack: %s\n", created.error().message().c_str());
    std::exit(1);
  }
  rig->stack = std::move(*created);
  auto nc = discoveryNodeClass("four-enis");
  for (int i = 0; i < 4; ++i) {
    nc.spec.networkInterfaces.push_back(networkInterface(i));
  }
  rig->nodeClasses[nc.metadata.name] = nc;
  return rig;
}

void BM_FilterAndRank(benchmark::State& state) {
  static auto rig = makeRig(1e6);
  const auto& nc = rig->nodeClasses.at("four-enis");
  auto resolved = rig->stack->resolver().resolve(nc);
  if (!resolved) {
    state.SkipWithError(resolved.error().message().c_str());
    return;
  }
  const std::vector<std::string> zones = {"us-east-1a", "us-east-1b", "us-east-1c"};
  auto& types = rig->stack->instanceTypes();
  auto claim = nodeClaim("bench", "four-enis", {}, {"spot", "on-demand"});
  claim.spec.resources.requests["cpu"] = *core::Quantity::parse("3");
  size_t compatible = 0;
  size_t launchable = 0;
  for (auto _ : state) {
    auto shared = types.listShared(nc, std::nullopt, zones);
    auto candidates = cloud::launchableTypes((*shared)->compatible, claim);
    compatible = (*shared)->compatible.size();
    launchable = candidates.types.size();
    benchmark::DoNotOptimize(candidates);
  }
  state.counters["us_per_nodeclaim"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 1e-6,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["types_compatible"] = static_cast<double>(compatible);
  state.counters["types_launchable"] = static_cast<double>(launchable);

  // The rebuild a capacity error forces: every type filtered and priced again.
  const int rebuilds = smoke ? 2 : 10;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < rebuilds; ++i) {
    rig->stack->unavailableOfferings().markUnavailable("m5.xlarge", "us-east-1a", "spot", "bench");
    benchmark::DoNotOptimize(types.listShared(nc, std::nullopt, zones));
  }
  state.counters["ms_per_rebuild"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
      rebuilds;
}
BENCHMARK(BM_FilterAndRank)->Unit(benchmark::kMicrosecond);

void BM_ScaleUp(benchmark::State& state) {
  const char* env = std::getenv("NW_BENCH_NODES");
  const int nodes = env != nullptr ? std::atoi(env) : smoke ? 60 : 500;
  for (auto _ : state) {
    auto rig = makeRig(1);
    std::atomic<int> next{0};
    std::atomic<int> launched{0};
    std::atomic<int> failed{0};
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int w = 0; w < 16; ++w) {
      workers.emplace_back([&] {
        for (int i = next++; i < nodes; i = next++) {
          auto claim = nodeClaim("scale-" + std::to_string(i), "four-enis",
                                 {"m5.xlarge", "m5.2xlarge", "c5.xlarge", "c5.2xlarge"});
          auto machine = rig->stack->provider().create(claim);
          (machine ? launched : failed)++;
          if (!machine && failed == 1) {
            std::fprintf(stderr, "launch failed: %s\n", machine.error().message().c_str());
          }
        }
      });
    }
    for (auto& w : workers) {
      w.join();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto& engine = rig->server->emulator().engine();
    const api::Json stats = engine.stats().toJson(engine.store());
    double throttled = 0;
    for (const auto& [action, counts] : stats["requests"].items()) {
      if (counts.contains("errors") && counts["errors"].contains("RequestLimitExceeded")) {
        throttled += counts["errors"]["RequestLimitExceeded"].get<double>();
      }
    }
    state.counters["nodes"] = nodes;
    state.counters["launched"] = launched.load();
    state.counters["failed"] = failed.load();
    state.counters["launches_per_second"] = launched.load() / seconds;
    state.counters["RequestLimitExceeded"] = throttled;
  }
}
BENCHMARK(BM_ScaleUp)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace nodewright::bench

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    nodewright::bench::smoke = nodewright::bench::smoke || std::string(argv[i]) == "--smoke";
  }
  return nodewright::bench::benchMain(argc, argv);
}
