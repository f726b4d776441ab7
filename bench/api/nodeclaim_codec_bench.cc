// Decode + validate and drift-hash throughput for NodeClaims (issue 2 benchmarks).
// Figures: <bench>/objects_per_second and <bench>/ns_per_object.
#include <fstream>
#include <random>

#include "api/codec.h"
#include "api/karpenter/nodeclaim.h"
#include "api/object.h"
#include "bench/bench_main.h"

namespace nodewright::bench {
namespace {

using api::Json;

constexpr size_t kObjects = 10000;

std::vector<std::string> instanceTypeNames() {
  std::ifstream in(std::string(NW_SHARED_DIR) + "/data/aws-instance-types.json");
  std::vector<std::string> names;
  if (in) {
    Json all = Json::parse(in, nullptr, false);
    if (all.is_array()) {
      for (const Json& t : all) {
        names.push_back(t.value("name", ""));
      }
    }
  }
  if (names.empty()) {
    names = {"m5.large", "c6i.xlarge", "r7g.2xlarge"};
  }
  return names;
}

// Realistic NodeClaims as the provisioner writes them, varied so caches do not flatter us.
std::vector<std::string> nodeClaimDocuments() {
  std::vector<std::string> names = instanceTypeNames();
  std::mt19937 rng(42);
  std::vector<std::string> docs;
  docs.reserve(kObjects);
  const char* zones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
  for (size_t i = 0; i < kObjects; ++i) {
    const std::string& type = names[rng() % names.size()];
    Json claim = {
        {"apiVersion", "karpenter.sh/v1"},
        {"kind", "NodeClaim"},
        {"metadata",
         {{"name", "default-" + std::to_string(i)},
          {"labels", {{"karpenter.sh/nodepool", "default"}, {"team", "t" + std::to_string(i % 7)}}},
          {"annotations", {{"karpenter.sh/nodepool-hash", "6821555240594823858"}}},
          {"finalizers", {"karpenter.sh/termination"}}}},
        {"spec",
         {{"nodeClassRef",
           {{"group", "karpenter.k8s.aws"}, {"kind", "EC2NodeClass"}, {"name", "default"}}},
          {"requirements", Json::array({{{"key", "node.kubernetes.io/instance-type"},
                                         {"operator", "In"},
                                         {"values", {type}}},
                                        {{"key", "karpenter.sh/capacity-type"},
                                         {"operator", "In"},
                                         {"values", {"spot", "on-demand"}}},
                                        {{"key", "topology.kubernetes.io/zone"},
                                         {"operator", "In"},
                                         {"values", {zones[i % 3]}}},
                                        {{"key", "karpenter.k8s.aws/instance-cpu"},
                                         {"operator", "Gt"},
                                         {"values", {"1"}}}})},
          {"taints",
           Json::array({{{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}}})},
          {"resources",
           {{"requests",
             {{"cpu", std::to_string(100 + i % 900) + "m"}, {"memory", "1Gi"}, {"pods", "3"}}}}},
          {"expireAfter", "720h"}}},
        {"status",
         {{"providerID", "aws:///us-east-1a/i-" + std::to_string(1000000000 + i)},
          {"nodeName", "ip-10-0-" + std::to_string(i % 250) + "-1.ec2.internal"},
          {"imageID", "ami-0123456789abcdef0"},
          {"capacity", {{"cpu", "4"}, {"memory", "15155Mi"}, {"pods", "58"}}},
          {"allocatable", {{"cpu", "3920m"}, {"memory", "14162Mi"}, {"pods", "58"}}},
          {"conditions", Json::array({{{"type", "Launched"},
                                       {"status", "True"},
                                       {"lastTransitionTime", "2026-11-21T09:00:00Z"},
                                       {"reason", "Launched"}},
                                      {{"type", "Registered"},
                                       {"status", "True"},
                                       {"lastTransitionTime", "2026-11-21T09:01:00Z"},
                                       {"reason", "Registered"}},
                                      {{"type", "Ready"},
                                       {"status", "True"},
                                       {"lastTransitionTime", "2026-11-21T09:02:00Z"},
                                       {"reason", "Ready"}}})}}}};
    docs.push_back(claim.dump());
  }
  return docs;
}

void decodeAndValidate10kNodeClaims(benchmark::State& state) {
  static const std::vector<std::string> docs = nodeClaimDocuments();
  size_t invalid = 0;
  for (auto _ : state) {
    for (const std::string& text : docs) {
      api::DecodedObject decoded = api::decodeObject(Json::parse(text), api::builtinRegistry());
      invalid += decoded.errors.empty() ? 0 : 1;
      benchmark::DoNotOptimize(decoded);
    }
  }
  if (invalid != 0) {
    state.SkipWithError("generated NodeClaims did not validate");
  }
  // Rates are divided by the measured time when reported.
  state.counters["objects_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations() * docs.size()), benchmark::Counter::kIsRate);
}
BENCHMARK(decodeAndValidate10kNodeClaims)->Unit(benchmark::kMillisecond);

void hash10kNodeClaims(benchmark::State& state) {
  static const std::vector<api::karpenter::NodeClaim> claims = [] {
    std::vector<api::karpenter::NodeClaim> out;
    for (const std::string& text : nodeClaimDocuments()) {
      api::karpenter::NodeClaim claim;
      (void)api::decodeJson(Json::parse(text), claim);
      out.push_back(std::move(claim));
    }
    return out;
  }();
  uint64_t sink = 0;
  for (auto _ : state) {
    for (const auto& claim : claims) {
      sink ^= api::hashOf(claim.spec);
    }
  }
  benchmark::DoNotOptimize(sink);
  // Inverted rate: seconds per object, scaled to nanoseconds by counting objects per 1e-9.
  state.counters["ns_per_object"] =
      benchmark::Counter(static_cast<double>(state.iterations() * claims.size()) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(hash10kNodeClaims)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nodewright::bench

int main(int argc, char** argv) {
  return nodewright::bench::benchMain(argc, argv);
}
