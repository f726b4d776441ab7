#include "cmd/up/demo.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "api/karpenter/well_known.h"
#include "cloud/aws/pricing/ondemand_prices.h"
#include "cmd/up/cluster_view.h"

namespace nodewright::cmd::up {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr const char* kNodePool = "demo";
constexpr const char* kWorkloadSelector = "app=demo-inflate";
constexpr int kWorkloadReplicas = 9;
constexpr const char* kAzureCluster = "prod-westeurope";
constexpr int kAzureMachines = 20;

std::string seconds(Clock::time_point since) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since);
  return fmt::format("{:.0f} s", static_cast<double>(ms.count()) / 1000.0);
}

std::string label(const api::Json& object, const std::string& key) {
  const api::Json& labels = object["metadata"].value("labels", api::Json::object());
  return labels.value(key, "");
}

double onDemandPrice(std::string_view instanceType) {
  auto prices = cloud::aws::builtinOnDemandPrices();
  auto it = std::lower_bound(prices.begin(), prices.end(), instanceType,
                             [](const auto& p, std::string_view t) { return p.instanceType < t; });
  return it != prices.end() && it->instanceType == instanceType ? it->usdPerHour : 0.0;
}

// "1 subnet", "3 subnets"
std::string count(size_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

// "3 × c6i.xlarge, 1 × m6i.large"
std::string describeTypes(const std::map<std::string, int>& types) {
  std::vector<std::string> parts;
  for (const auto& [type, n] : types) {
    parts.push_back(fmt::format("{} × {}", n, type));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

void summarizeNodes(kube::Client& client, DemoSummary& summary) {
  for (const api::Json& node :
       listJson(client, "nodes", "", std::string("karpenter.sh/nodepool=") + kNodePool)) {
    if (!conditionTrue(node, "Ready") || node["metadata"].contains("deletionTimestamp")) {
      continue;
    }
    const std::string type = label(node, "node.kubernetes.io/instance-type");
    ++summary.nodes;
    ++summary.instanceTypes[type];
    summary.costPerHour += onDemandPrice(type);
  }
}

// The hourly bill of the demo pool's Ready nodes.
double poolCost(kube::Client& client) {
  DemoSummary nodes;
  summarizeNodes(client, nodes);
  return nodes.costPerHour;
}

class Story {
 public:
  Story(kube::Client& client, const DemoOptions& options, std::stop_token stop)
      : client_(client), options_(options), stop_(std::move(stop)) {}

 protected:
  core::Result<std::vector<std::string>> apply(const std::string& relative) {
    auto applied = applyFile(client_, options_.examplesDir / relative);
    if (applied) {
      options_.narrate(
          fmt::format("demo: applied examples/{}: {}", relative, fmt::join(*applied, ", ")));
    }
    return applied;
  }
  core::Status await(std::string_view what, const std::function<bool()>& done) {
    return awaitCondition(what, options_.stepTimeout, stop_, done);
  }
  void say(const std::string& line) { options_.narrate("demo: " + line); }

  kube::Client& client_;
  const DemoOptions& options_;
  std::stop_token stop_;
};

// Pods to nodes, then a node-class change that drifts them.
class KarpenterStory : public Story {
 public:
  using Story::Story;

  core::Status run(DemoSummary& summary) {
    const auto started = Clock::now();
    if (auto a = apply("demo/nodepool.yaml"); !a) {
      return core::fail(a.error());
    }
    if (auto r = await("EC2NodeClass demo to be Ready", [&] { return nodeClassReady(); }); !r) {
      return r;
    }
    if (auto a = apply("demo/workload.yaml"); !a) {
      return core::fail(a.error());
    }
    say(
        fmt::format("{} pods of 1 CPU spread over 3 zones are pending; the provisioner batches "
                    "them and launches NodeClaims",
                    kWorkloadReplicas));
    if (auto r = await("the workload's nodes", [&] { return settled(); }); !r) {
      return r;
    }
    std::map<std::string, int> types;
    std::set<std::string> launched;
    for (const api::Json& claim : claims()) {
      launched.insert(claim["metadata"]["name"].get<std::string>());
      ++types[label(claim, "node.kubernetes.io/instance-type")];
    }
    say(fmt::format("{} NodeClaims Ready ({}); {}/{} pods running after {}", launched.size(),
                    describeTypes(types), kWorkloadReplicas, kWorkloadReplicas, seconds(started)));

    const auto drifting = Clock::now();
    if (auto a = apply("demo/nodeclass-change.yaml"); !a) {
      return core::fail(a.error());
    }
    std::string why;
    if (auto r = await("the nodes to drift", [&] { return driftSeen(launched, why); }); !r) {
      return r;
    }
    say(fmt::format("{} NodeClaims drifted ({}); replacing them within the pool's budget",
                    launched.size(), why.empty() ? "already replaced" : why));
    if (auto r = await("the drifted nodes to be replaced", [&] { return replaced(launched); });
        !r) {
      return r;
    }
    summary.driftReplacements = static_cast<int>(launched.size());
    say(fmt::format("drift rolled through after {}: {} nodes replaced, {}/{} pods running",
                    seconds(drifting), launched.size(), kWorkloadReplicas, kWorkloadReplicas));
    return consolidate(summary);
  }

 private:
  std::vector<api::Json> claims() {
    return listJson(client_, "nodeclaims", "", std::string("karpenter.sh/nodepool=") + kNodePool);
  }

  // The drift replacements were sized node by node; consolidation (WhenEmptyOrUnderutilized,
  // the v1 default) repacks the pool, one decision per pass, each re-validated 15 s after it
  // was made. The demo narrates each decision and waits until the pool's bill is no higher
  // than provisioning the same pods from nothing would give.
  core::Status consolidate(DemoSummary& summary) {
    const auto started = Clock::now();
    summary.costBeforeConsolidation = poolCost(client_);
    std::optional<double> fresh = freshCost();
    if (fresh) {
      say(fmt::format("consolidation: the pool costs ${:.4f}/h; provisioning its {} pods from "
                      "nothing would cost ${:.4f}/h",
                      summary.costBeforeConsolidation, kWorkloadReplicas, *fresh));
    }
    auto done = [&] {
      narrateConsolidations(summary);
      return settled() && idle() && (!fresh || poolCost(client_) <= *fresh + 1e-9);
    };
    if (auto r = awaitCondition("consolidation", options_.consolidationTimeout, stop_, done); !r) {
      if (stop_.stop_requested()) {
        return r;
      }
      say(fmt::format("consolidation stopped short after {}: ${:.4f}/h", seconds(started),
                      poolCost(client_)));
    } else {
      say(fmt::format("consolidation settled after {}: {} decisions, ${:.4f}/h -> ${:.4f}/h",
                      seconds(started), summary.consolidations, summary.costBeforeConsolidation,
                      poolCost(client_)));
    }
    // Priced again over the pods as they are placed now, for the summary.
    summary.freshCostPerHour = freshCost().value_or(-1);
    return {};
  }

  std::optional<double> freshCost() {
    if (!options_.freshCost) {
      return std::nullopt;
    }
    auto cost = options_.freshCost();
    if (!cost) {
      say("cannot price fresh provisioning: " + cost.error().message());
      return std::nullopt;
    }
    return cost->perHour;
  }

  // One line per consolidation decision the controller started, from its DisruptionLaunching
  // events (drift's carry the reason Drifted).
  void narrateConsolidations(DemoSummary& summary) {
    for (const api::Json& event : listJson(client_, "events")) {
      const std::string name = event["metadata"].value("name", "");
      const std::string message = event.value("message", "");
      if (event.value("reason", "") != "DisruptionLaunching" ||
          event.value("involvedObject", api::Json::object()).value("kind", "") != "NodeClaim" ||
          (message.find("(Underutilized") == std::string::npos &&
           message.find("(Empty") == std::string::npos) ||
          !narrated_.insert(name).second) {
        continue;
      }
      ++summary.consolidations;
      say("consolidating: " + message);
    }
  }

  // No NodeClaim of the pool carries a disruption command.
  bool idle() {
    std::vector<api::Json> all = claims();
    return std::none_of(all.begin(), all.end(), [](const api::Json& c) {
      return c["metadata"].value("annotations", api::Json::object())
          .contains(api::karpenter::kDisruptionAnnotation);
    });
  }

  bool nodeClassReady() {
    for (const api::Json& c : listJson(client_, "ec2nodeclasses")) {
      if (c["metadata"].value("name", "") == kNodePool && conditionTrue(c, "Ready")) {
        const api::Json& status = c["status"];
        say(fmt::format(
            "EC2NodeClass demo is Ready: {}, {}, {}",
            count(status.value("subnets", api::Json::array()).size(), "subnet"),
            count(status.value("securityGroups", api::Json::array()).size(), "security group"),
            count(status.value("amis", api::Json::array()).size(), "AMI")));
        return true;
      }
    }
    return false;
  }

  // Every claim of the pool Ready and every pod of the workload running.
  bool settled() {
    std::vector<api::Json> all = claims();
    if (all.empty() || !std::all_of(all.begin(), all.end(), [](const api::Json& c) {
          return conditionTrue(c, "Ready") && !c["metadata"].contains("deletionTimestamp");
        })) {
      return false;
    }
    int running = 0;
    for (const api::Json& pod : listJson(client_, "pods", "default", kWorkloadSelector)) {
      if (pod.value("status", api::Json::object()).value("phase", "") == "Running" &&
          !pod["metadata"].contains("deletionTimestamp")) {
        ++running;
      }
    }
    return running == kWorkloadReplicas;
  }

  bool driftSeen(const std::set<std::string>& launched, std::string& why) {
    size_t present = 0;
    for (const api::Json& claim : claims()) {
      if (!launched.contains(claim["metadata"]["name"].get<std::string>())) {
        continue;
      }
      ++present;
      if (conditionTrue(claim, "Drifted")) {
        why = conditionMessage(claim, "Drifted");
        return true;
      }
    }
    return present == 0;
  }

  bool replaced(const std::set<std::string>& launched) {
    for (const api::Json& claim : claims()) {
      if (launched.contains(claim["metadata"]["name"].get<std::string>())) {
        return false;
      }
    }
    return settled();
  }

  std::set<std::string> narrated_;  // consolidation events already told
};

// A Cluster API cluster on Azure: its services, then 20 machines at once.
class AzureStory : public Story {
 public:
  using Story::Story;

  core::Status run(DemoSummary& summary) {
    const auto started = Clock::now();
    if (auto a = apply("demo/capz-bootstrap.yaml"); !a) {
      return core::fail(a.error());
    }
    if (auto a = apply("capz/cluster.yaml"); !a) {
      return core::fail(a.error());
    }
    if (auto r = await("AzureCluster prod-westeurope to be Ready", [&] { return clusterReady(); });
        !r) {
      return r;
    }
    say(
        fmt::format("AzureCluster {} Ready after {}: {} services, each created as a future in "
                    "status.longRunningOperationStates",
                    kAzureCluster, seconds(started), services_));
    int creating = 0;
    if (auto r =
            await("20 AzureMachines to be ready", [&] { return machinesReady(summary, creating); });
        !r) {
      return r;
    }
    say(fmt::format("{}/{} AzureMachines ready after {} (at most {} VMs were creating at once)",
                    summary.azureMachinesReady, kAzureMachines, seconds(started), maxCreating_));
    return {};
  }

 private:
  bool clusterReady() {
    for (const api::Json& c : listJson(client_, "azureclusters", "default")) {
      if (c["metadata"].value("name", "") == kAzureCluster && conditionTrue(c, "Ready")) {
        services_ = 0;
        for (const api::Json& cond : c["status"].value("conditions", api::Json::array())) {
          const std::string type = cond.value("type", "");
          services_ += type != "Ready" && type.ends_with("Ready") ? 1 : 0;
        }
        return true;
      }
    }
    return false;
  }

  bool machinesReady(DemoSummary& summary, int& creating) {
    std::vector<api::Json> machines =
        listJson(client_, "azuremachines", "default",
                 std::string("cluster.x-k8s.io/cluster-name=") + kAzureCluster);
    int ready = 0;
    creating = 0;
    for (const api::Json& m : machines) {
      const api::Json status = m.value("status", api::Json::object());
      ready += status.value("ready", false) ? 1 : 0;
      creating += status.value("longRunningOperationStates", api::Json::array()).empty() ? 0 : 1;
    }
    maxCreating_ = std::max(maxCreating_, creating);
    summary.azureMachinesReady = ready;
    return ready >= kAzureMachines;
  }

  int services_ = 0;
  int maxCreating_ = 0;
};

}  // namespace

core::Result<DemoSummary> runDemo(kube::Client& client, const DemoOptions& options,
                                  std::stop_token stop) {
  const auto started = Clock::now();
  DemoSummary summary;
  std::optional<core::Error> azureFailed;
  std::jthread azure;
  if (options.azureOperationsCompleted) {
    azure = std::jthread([&] {
      if (auto ran = AzureStory(client, options, stop).run(summary); !ran) {
        azureFailed = ran.error();
      }
    });
  }
  // Both stories write disjoint fields of the summary.
  core::Status karpenter = KarpenterStory(client, options, stop).run(summary);
  if (azure.joinable()) {
    azure.join();
  }
  if (!karpenter) {
    return core::fail(karpenter.error());
  }
  if (azureFailed) {
    return core::fail(*azureFailed);
  }
  summarizeNodes(client, summary);
  if (options.azureOperationsCompleted) {
    summary.azureOperations = options.azureOperationsCompleted();
  }
  summary.took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  return summary;
}

std::vector<std::string> summaryLines(const DemoSummary& s) {
  const auto secs = s.took.count() / 1000;
  return {
      "demo summary:",
      fmt::format("  nodes           {} Ready ({})", s.nodes, describeTypes(s.instanceTypes)),
      fmt::format("  cost per hour   ${:.4f} (on-demand, us-east-1)", s.costPerHour),
      fmt::format("  drift           {} nodes replaced after the EC2NodeClass change",
                  s.driftReplacements),
      fmt::format("  consolidation   {} decisions: ${:.4f}/h -> ${:.4f}/h; fresh provisioning of "
                  "the same pods: {}",
                  s.consolidations, s.costBeforeConsolidation, s.costPerHour,
                  s.freshCostPerHour < 0 ? std::string("unknown")
                                         : fmt::format("${:.4f}/h", s.freshCostPerHour)),
      fmt::format("  azure           {} machines ready, {} long-running operations completed",
                  s.azureMachinesReady, s.azureOperations),
      fmt::format("demo complete in {}m{:02}s: {} nodes, ${:.2f}/h, {} drift replacements, {} "
                  "Azure operations completed",
                  secs / 60, secs % 60, s.nodes, s.costPerHour, s.driftReplacements,
                  s.azureOperations),
  };
}

}  // namespace nodewright::cmd::up
