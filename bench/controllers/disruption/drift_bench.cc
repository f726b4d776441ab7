// Seed 002's drift check at fleet size: 10,000 launched NodeClaims spread over 10 NodePools and
// 10 EC2NodeClasses (three network interfaces each, per-interface selectors on one), every
// check the drift controller makes: the NodePool's static hash and requirements, the node
// class's static hash, and the dynamic checks (AMI, subnet, security groups, each interface's)
// against the node classes' cached resolution (their status). One pool and one node class have
// changed since launch, so a tenth of the claims drift by hash and their fields are diffed.
// The per-pool and per-class contexts (hashes, id sets) are built inside the timed region.
// Prints, on one thread and then on the machine's cores (up to the controller's 4 workers),
//   drift nodeclaims=N milliseconds=X threads=T drifted=D
// (the best of 5 runs). `--smoke` runs 1,000 claims once.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "api/karpenter/hashing.h"
#include "cloud/aws/drift/node_class_drift.h"
#include "controllers/disruption/drift.h"

namespace {

namespace karpenter = nodewright::api::karpenter;
namespace aws = nodewright::cloud::aws;
namespace disruption = nodewright::controllers::disruption;
using nodewright::cloud::DriftCheck;

constexpr int kGroups = 10;

std::string id(const char* prefix, int group, int i) {
  return std::string(prefix) + "-" + std::to_string(group) + "x" + std::to_string(i);
}

karpenter::NodePool pool(int group) {
  karpenter::NodePool p;
  p.metadata.name = "pool-" + std::to_string(group);
  auto& t = p.spec.template_;
  t.metadata.labels = {{"team", "t" + std::to_string(group)}, {"tier", "backend"}};
  t.spec.taints = {{"dedicated", "t" + std::to_string(group), "NoSchedule", std::nullopt}};
  t.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", "class-" + std::to_string(group)};
  t.spec.expireAfter = nodewright::core::Duration(std::chrono::hours(720));
  t.spec.requirements = {
      {"node.kubernetes.io/instance-type", "In", {"m5.large", "m5.xlarge", "c5.large"}, {}},
      {"karpenter.sh/capacity-type", "In", {"on-demand", "spot"}, {}},
      {"kubernetes.io/arch", "In", {"amd64"}, {}}};
  return p;
}

karpenter::EC2NodeClass nodeClass(int group) {
  karpenter::EC2NodeClass c;
  c.metadata.name = "class-" + std::to_string(group);
  c.spec.amiFamily = "AL2023";
  c.spec.userData = std::string(512, 'u');
  c.spec.tags = {{"team", "t" + std::to_string(group)}, {"cost-center", "42"}};
  c.spec.role = "KarpenterNodeRole";
  for (int i = 0; i < 3; ++i) {
    karpenter::NetworkInterface n;
    n.deviceIndex = i;
    n.networkCardIndex = 0;
    n.interfaceType = "interface";
    n.description = "eni-" + std::to_string(i);
    n.deleteOnTermination = true;
    if (i == 2) {
      karpenter::SubnetSelectorTerm own;
      own.tags = {{"tier", "storage"}};
      n.subnetSelectorTerms = {own};
    }
    c.spec.networkInterfaces.push_back(n);
  }
  for (int i = 0; i < 3; ++i) {
    c.status.subnets.push_back({id("subnet", group, i), "us-east-1a", "use1-az1"});
  }
  c.status.securityGroups = {{id("sg", group, 0), "nodes"}, {id("sg", group, 1), "cluster"}};
  karpenter::AMIStatus ami;
  ami.id = id("ami", group, 0);
  ami.requirements = {{"kubernetes.io/arch", "In", {"amd64"}}};
  c.status.amis = {ami};
  karpenter::NetworkInterfaceStatus storage;
  storage.networkCardIndex = 0;
  storage.deviceIndex = 2;
  storage.subnets = {{id("subnet-storage", group, 0), "us-east-1a", "use1-az1"}};
  c.status.networkInterfaces = {storage};
  return c;
}

struct Fleet {
  std::vector<karpenter::NodePool> pools;
  std::vector<karpenter::EC2NodeClass> classes;
  std::vector<karpenter::NodeClaim> claims;
  std::vector<aws::InstanceFacts> instances;
};

Fleet fleet(int n, const karpenter::HashPolicy& policy) {
  Fleet f;
  for (int g = 0; g < kGroups; ++g) {
    f.pools.push_back(pool(g));
    f.classes.push_back(nodeClass(g));
  }
  for (int i = 0; i < n; ++i) {
    const int g = i % kGroups;
    karpenter::NodeClaim claim;
    claim.metadata.name = "claim-" + std::to_string(i);
    claim.metadata.labels = {{"karpenter.sh/nodepool", f.pools[g].metadata.name},
                             {"node.kubernetes.io/instance-type", "m5.large"},
                             {"karpenter.sh/capacity-type", "on-demand"},
                             {"kubernetes.io/arch", "amd64"},
                             {"topology.kubernetes.io/zone", "us-east-1a"},
                             {"team", "t" + std::to_string(g)}};
    karpenter::stampNodePool(f.pools[g], policy, claim.metadata.annotations);
    karpenter::stampNodeClass(f.classes[g], policy, claim.metadata.annotations);
    claim.status.imageID = id("ami", g, 0);
    f.claims.push_back(std::move(claim));
    aws::InstanceFacts facts;
    facts.instanceId = "i-" + std::to_string(i);
    facts.imageId = id("ami", g, 0);
    facts.subnetId = id("subnet", g, i % 3);
    facts.securityGroupIds = {id("sg", g, 1), id("sg", g, 0)};
    for (int d = 0; d < 3; ++d) {
      aws::InterfaceFacts eni;
      eni.deviceIndex = d;
      eni.subnetId = d == 2 ? id("subnet-storage", g, 0) : facts.subnetId;
      eni.securityGroupIds = facts.securityGroupIds;
      facts.networkInterfaces.push_back(eni);
    }
    f.instances.push_back(std::move(facts));
  }
  // Changed since launch: one pool's labels and one node class's userData.
  f.pools[3].spec.template_.metadata.labels["tier"] = "frontend";
  f.classes[7].spec.userData = std::string(512, 'v');
  return f;
}

// Every claim checked on `threads` threads, as the drift controller's workers check claims
// concurrently; returns how many drifted. The contexts are shared, read-only.
size_t checkAll(const Fleet& f, const karpenter::HashPolicy& policy, unsigned threads) {
  std::vector<disruption::NodePoolDriftContext> pools;
  std::vector<aws::NodeClassDriftContext> classes;
  for (int g = 0; g < kGroups; ++g) {
    pools.push_back(disruption::nodePoolContext(f.pools[g], policy));
    classes.push_back(aws::nodeClassDriftContext(f.classes[g], policy));
  }
  std::vector<size_t> drifted(threads, 0);
  auto work = [&](unsigned t) {
    for (size_t i = t; i < f.claims.size(); i += threads) {
      const int g = static_cast<int>(i % kGroups);
      std::vector<DriftCheck> checks = disruption::nodePoolDrift(f.claims[i], pools[g], policy);
      if (nodewright::cloud::firstDrift(checks) == nullptr) {
        checks = aws::nodeClassDrift(f.claims[i], classes[g], f.instances[i], policy);
      }
      drifted[t] += nodewright::cloud::firstDrift(checks) != nullptr ? 1 : 0;
    }
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) {
    workers.emplace_back(work, t);
  }
  work(0);
  for (auto& w : workers) {
    w.join();
  }
  size_t total = 0;
  for (size_t d : drifted) {
    total += d;
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
  const int n = smoke ? 1000 : 10000;
  const int runs = smoke ? 1 : 5;
  const karpenter::HashPolicy& policy = karpenter::defaultHashPolicy();
  const Fleet f = fleet(n, policy);
  // One thread, then as many as the machine has (the drift controller runs 4 workers).
  const unsigned cores = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  size_t drifted = 0;
  for (unsigned threads : {1u, cores}) {
    double best = 1e18;
    for (int r = 0; r < runs; ++r) {
      const auto start = std::chrono::steady_clock::now();
      drifted = checkAll(f, policy, threads);
      const auto end = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double, std::milli>(end - start).count());
    }
    std::printf("drift nodeclaims=%d milliseconds=%.2f threads=%u drifted=%zu\n", n, best, threads,
                drifted);
  }
  // Exactly the claims of the changed pool and node class drift.
  const size_t expected = static_cast<size_t>(2 * (n / kGroups));
  if (drifted != expected) {
    std::fprintf(stderr, "drift: expected %zu drifted claims, found %zu\n", expected, drifted);
    return 1;
  }
  return 0;
}
