#include "controllers/telemetry/state_metrics.h"

#include <algorithm>
#include <cctype>

#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/pod_requests.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/karpenter/well_known.h"
#include "api/karpenter/well_known_labels.h"
#include "controllers/provisioning/pending_pods.h"
#include "controllers/telemetry/karpenter.h"

namespace nodewright::controllers::telemetry {
namespace {

using api::corev1::Node;
using api::corev1::Pod;
using api::corev1::ResourceList;
using api::karpenter::NodeClaim;
using api::karpenter::NodePool;

std::string metricLabelOf(std::string_view key) {
  return resourceTypeLabel(key.substr(key.find('/') + 1));
}

runtime::Labels nodeLabels(const Node& node, bool managed) {
  runtime::Labels out{node.metadata.name, "", managed ? "true" : "false"};
  if (node.status.unknown.is_object()) {
    auto phase = node.status.unknown.find("phase");
    if (phase != node.status.unknown.end() && phase->is_string()) {
      out[1] = phase->get<std::string>();
    }
  }
  for (const std::string& key : api::karpenter::wellKnownLabels()) {
    out.push_back(labelValue(node.metadata, key));
  }
  return out;
}

runtime::Labels withResource(runtime::Labels labels, const std::string& resource) {
  labels.push_back(resourceTypeLabel(resource));
  return labels;
}

// CPU in cores (milli precision), anything else as an integer rounded up, as upstream reads
// quantities.
double valueOf(const std::string& resource, const core::Quantity& quantity) {
  if (resource == "cpu") {
    return static_cast<double>(quantity.milliValue()) / 1000.0;
  }
  return static_cast<double>(quantity.value());
}

void addInto(ResourceList& total, const ResourceList& more) {
  for (const auto& [name, quantity] : more) {
    total[name] += quantity;
  }
}

// Requests without kube-scheduler's "pods" slot, which Karpenter's pod requests do not count.
ResourceList requestsOf(const Pod& pod) {
  ResourceList out = api::corev1::podRequests(pod);
  out.erase("pods");
  return out;
}

// The containers' limits, or the largest init container's where that is larger, plus overhead.
ResourceList limitsOf(const Pod& pod) {
  ResourceList out;
  for (const auto& container : pod.spec.containers) {
    addInto(out, container.resources.limits);
  }
  for (const auto& init : pod.spec.initContainers) {
    for (const auto& [name, quantity] : init.resources.limits) {
      auto it = out.find(name);
      if (it == out.end() || it->second < quantity) {
        out[name] = quantity;
      }
    }
  }
  if (!out.empty()) {
    addInto(out, pod.spec.overhead);
  }
  return out;
}

bool terminal(const Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool conditionTrue(const Pod& pod, std::string_view type) {
  const auto* condition = api::corev1::findCondition(pod.status, type);
  return condition != nullptr && condition->status == "True";
}

double secondsSince(core::TimePoint now, const core::Time& then) {
  return std::chrono::duration<double>(now - then.point()).count();
}

std::string podKeyOf(const Pod& pod) {
  return pod.metadata.namespace_ + "/" + pod.metadata.name;
}

// Upstream's owner label: a self link built from the first owner reference.
std::string ownerLink(const Pod& pod) {
  if (pod.metadata.ownerReferences.empty()) {
    return "";
  }
  const auto& owner = pod.metadata.ownerReferences.front();
  std::string kind = owner.kind;
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return "/apis/" + owner.apiVersion + "/namespaces/" + pod.metadata.namespace_ + "/" + kind +
         "s/" + owner.name;
}

std::vector<runtime::Request> singleton(const api::Object&) {
  return {{"", StateMetricsController::kName}};
}

}  // namespace

const std::vector<std::string>& nodeMetricLabelNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out{"node_name", "phase", "managed"};
    for (const std::string& key : api::karpenter::wellKnownLabels()) {
      out.push_back(metricLabelOf(key));
    }
    return out;
  }();
  return names;
}

const std::vector<std::string>& podStateLabelNames() {
  static const std::vector<std::string> names{
      "name", "namespace",     "owner",         "node",  "scheduled", "nodepool", "zone",
      "arch", "capacity_type", "instance_type", "phase", "ready",     "managed"};
  return names;
}

namespace {

runtime::Family<runtime::Gauge>& nodeGauge(runtime::Registry& r, const char* name,
                                           const char* help) {
  runtime::Labels names = nodeMetricLabelNames();
  names.push_back("resource_type");
  return r.gauge(name, help, names);
}

}  // namespace

StateMetricsController::StateMetricsController(Caches caches, const core::Clock& clock,
                                               runtime::Registry& r)
    : caches_(caches),
      clock_(clock),
      allocatable_(nodeGauge(r, "karpenter_nodes_allocatable",
                             "Node allocatable are the resources allocatable by nodes.")),
      podRequests_(nodeGauge(r, "karpenter_nodes_total_pod_requests",
                             "Node total pod requests are the resources requested by pods bound "
                             "to nodes, including the DaemonSet pods.")),
      podLimits_(nodeGauge(r, "karpenter_nodes_total_pod_limits",
                           "Node total pod limits are the resources specified by pod limits, "
                           "including the DaemonSet pods.")),
      daemonRequests_(nodeGauge(r, "karpenter_nodes_total_daemon_requests",
                                "Node total daemon requests are the resource requested by "
                                "DaemonSet pods bound to nodes.")),
      daemonLimits_(nodeGauge(r, "karpenter_nodes_total_daemon_limits",
                              "Node total daemon limits are the resources specified by "
                              "DaemonSet pod limits.")),
      overhead_(nodeGauge(r, "karpenter_nodes_system_overhead",
                          "Node system daemon overhead are the resources reserved for system "
                          "overhead, the difference between the node's capacity and "
                          "allocatable values are reported by the status.")),
      lifetime_(r.gauge("karpenter_nodes_current_lifetime_seconds", "Node age in seconds",
                        nodeMetricLabelNames())),
      utilization_(r.gauge("karpenter_cluster_utilization_percent",
                           "Utilization of allocatable resources by pod requests",
                           {"resource_type"})),
      poolUsage_(r.gauge("karpenter_nodepools_usage",
                         "The amount of resources that have been provisioned for a nodepool. "
                         "Labeled by nodepool name and resource type.",
                         {"resource_type", "nodepool"})),
      poolLimit_(r.gauge("karpenter_nodepools_limit",
                         "Limits specified on the nodepool that restrict the quantity of "
                         "resources provisioned. Labeled by nodepool name and resource type.",
                         {"resource_type", "nodepool"})),
      podState_(r.gauge("karpenter_pods_state",
                        "Pod state is the current state of pods. This metric can be used several "
                        "ways as it is labeled by the pod name, namespace, owner, node, nodepool "
                        "name, zone, architecture, capacity type, instance type, pod phase, and "
                        "pod readiness.",
                        podStateLabelNames())),
      unstarted_(r.gauge("karpenter_pods_unstarted_time_seconds",
                         "The time from pod creation until the pod is running.",
                         {"name", "namespace"})),
      unbound_(r.gauge("karpenter_pods_unbound_time_seconds",
                       "The time from pod creation until the pod is bound.",
                       {"name", "namespace"})),
      startup_(r.summary("karpenter_pods_startup_duration_seconds",
                         "The time from pod creation until the pod is running.", {},
                         summaryObjectives())),
      bound_(r.histogram("karpenter_pods_bound_duration_seconds",
                         "The time from pod creation until the pod is bound.", {},
                         durationBuckets())),
      nodeCount_(
          r.gauge("karpenter_cluster_state_node_count", "Current count of nodes in cluster state")
              .get()),
      synced_(r.gauge("karpenter_cluster_state_synced",
                      "Returns 1 if cluster state is synced and 0 otherwise. Synced checks that "
                      "nodeclaims and nodes that are stored in the APIServer have the same "
                      "representation as Karpenter's cluster state")
                  .get()),
      unsyncedSeconds_(r.gauge("karpenter_cluster_state_unsynced_time_seconds",
                               "The time for which cluster state is not synced")
                           .get()) {}

void StateMetricsController::Series::set(const runtime::Labels& labels, double value) {
  family_.with(labels).set(value);
  current_.insert(labels);
}

void StateMetricsController::Series::endPass() {
  for (const auto& labels : previous_) {
    if (!current_.count(labels)) {
      family_.remove(labels);
    }
  }
  previous_ = std::move(current_);
  current_.clear();
}

runtime::Outcome StateMetricsController::reconcile(const runtime::Request&, runtime::Context&) {
  std::lock_guard lock(mu_);
  const core::TimePoint now = clock_.now();
  recordNodes(now);
  recordNodePools();
  recordPods(now);
  recordClusterState();
  for (Series* series :
       {&allocatable_, &podRequests_, &podLimits_, &daemonRequests_, &daemonLimits_, &overhead_,
        &lifetime_, &utilization_, &poolUsage_, &poolLimit_, &podState_, &unstarted_, &unbound_}) {
    series->endPass();
  }
  return runtime::Result::after(kResync);
}

void StateMetricsController::recordNodes(core::TimePoint now) {
  struct PodTotals {
    ResourceList requests, limits, daemonRequests, daemonLimits;
  };
  std::map<std::string, PodTotals> byNode;
  for (const api::Object& object : caches_.pods.list()) {
    const Pod* pod = object.as<Pod>();
    if (pod == nullptr || pod->spec.nodeName.empty() || terminal(*pod)) {
      continue;
    }
    PodTotals& totals = byNode[pod->spec.nodeName];
    const ResourceList requests = requestsOf(*pod);
    const ResourceList limits = limitsOf(*pod);
    addInto(totals.requests, requests);
    addInto(totals.limits, limits);
    if (provisioning::isDaemonSetPod(*pod)) {
      addInto(totals.daemonRequests, requests);
      addInto(totals.daemonLimits, limits);
    }
  }
  std::set<std::string> claimedProviderIds;
  for (const api::Object& object : caches_.nodeClaims.list()) {
    if (const NodeClaim* claim = object.as<NodeClaim>();
        claim != nullptr && !claim->status.providerID.empty()) {
      claimedProviderIds.insert(claim->status.providerID);
    }
  }
  ResourceList allocatableTotal;
  ResourceList requestedTotal;
  for (const api::Object& object : caches_.nodes.list()) {
    const Node* node = object.as<Node>();
    if (node == nullptr) {
      continue;
    }
    // Upstream's Managed(): a NodeClaim stands behind the node.
    const bool managed = claimedProviderIds.count(node->spec.providerID) > 0;
    const runtime::Labels labels = nodeLabels(*node, managed);
    const PodTotals& totals = byNode[node->metadata.name];
    ResourceList overhead;
    for (const auto& [name, capacity] : node->status.capacity) {
      auto allocatable = node->status.allocatable.find(name);
      overhead[name] =
          allocatable == node->status.allocatable.end() ? capacity : capacity - allocatable->second;
    }
    using Source = std::pair<Series*, const ResourceList*>;
    for (auto [series, list] :
         {Source{&allocatable_, &node->status.allocatable}, Source{&overhead_, &overhead},
          Source{&podRequests_, &totals.requests}, Source{&podLimits_, &totals.limits},
          Source{&daemonRequests_, &totals.daemonRequests},
          Source{&daemonLimits_, &totals.daemonLimits}}) {
      for (const auto& [name, quantity] : *list) {
        series->set(withResource(labels, name), valueOf(name, quantity));
      }
    }
    lifetime_.set(labels, secondsSince(now, node->metadata.creationTimestamp));
    addInto(allocatableTotal, node->status.allocatable);
    addInto(requestedTotal, totals.requests);
  }
  for (const auto& [name, allocatable] : allocatableTotal) {
    if (allocatable.value() == 0) {
      continue;
    }
    const double used = name == "cpu" ? static_cast<double>(requestedTotal[name].milliValue()) /
                                            static_cast<double>(allocatable.milliValue())
                                      : static_cast<double>(requestedTotal[name].value()) /
                                            static_cast<double>(allocatable.value());
    utilization_.set({resourceTypeLabel(name)}, 100 * used);
  }
}

void StateMetricsController::recordNodePools() {
  for (const api::Object& object : caches_.nodePools.list()) {
    const NodePool* pool = object.as<NodePool>();
    if (pool == nullptr) {
      continue;
    }
    for (const auto& [name, quantity] : pool->status.resources) {
      poolUsage_.set({resourceTypeLabel(name), pool->metadata.name}, valueOf(name, quantity));
    }
    for (const auto& [name, quantity] : pool->spec.limits) {
      poolLimit_.set({resourceTypeLabel(name), pool->metadata.name}, valueOf(name, quantity));
    }
  }
}

void StateMetricsController::recordPods(core::TimePoint now) {
  std::set<std::string> seen;
  for (const api::Object& object : caches_.pods.list()) {
    const Pod* pod = object.as<Pod>();
    if (pod == nullptr) {
      continue;
    }
    const std::string key = podKeyOf(*pod);
    seen.insert(key);
    std::optional<api::Object> nodeObject;
    if (!pod->spec.nodeName.empty()) {
      nodeObject = caches_.nodes.get(pod->spec.nodeName);
    }
    const Node* node = nodeObject ? nodeObject->as<Node>() : nullptr;
    auto nodeLabel = [&](const char* key) {
      return node == nullptr ? std::string() : labelValue(node->metadata, key);
    };
    const std::string pool = nodeLabel(api::karpenter::kNodePoolLabel);
    const bool ready = conditionTrue(*pod, "Ready");
    podState_.set(
        {pod->metadata.name, pod->metadata.namespace_, ownerLink(*pod), pod->spec.nodeName,
         pod->spec.nodeName.empty() ? "false" : "true", pool,
         nodeLabel("topology.kubernetes.io/zone"), nodeLabel("kubernetes.io/arch"),
         nodeLabel("karpenter.sh/capacity-type"), nodeLabel("node.kubernetes.io/instance-type"),
         pod->status.phase, ready ? "true" : "false", pool.empty() ? "false" : "true"},
        1);

    const runtime::Labels podLabels{pod->metadata.name, pod->metadata.namespace_};
    const double age = secondsSince(now, pod->metadata.creationTimestamp);
    // Startup: measured for pods seen Pending, once Ready (never for ones that ended first).
    if (pod->status.phase == "Pending") {
      unstarted_.set(podLabels, age);
      pending_.insert(key);
    } else if (pending_.count(key)) {
      const auto* condition = api::corev1::findCondition(pod->status, "Ready");
      if (ready) {
        startup_.get().observe(
            std::chrono::duration<double>(condition->lastTransitionTime.point() -
                                          pod->metadata.creationTimestamp.point())
                .count());
        pending_.erase(key);
      } else if (terminal(*pod)) {
        pending_.erase(key);
      } else {
        unstarted_.set(podLabels, age);
      }
    }
    // Binding: measured for pods seen unbound, from their PodScheduled transition.
    const auto* scheduled = api::corev1::findCondition(pod->status, "PodScheduled");
    const bool bound = scheduled != nullptr && scheduled->status == "True";
    if (pod->status.phase == "Pending" && !bound) {
      unbound_.set(podLabels, age);
      unscheduled_.insert(key);
    } else if (unscheduled_.count(key) && bound) {
      bound_.get().observe(std::chrono::duration<double>(scheduled->lastTransitionTime.point() -
                                                         pod->metadata.creationTimestamp.point())
                               .count());
      unscheduled_.erase(key);
    }
  }
  std::erase_if(pending_, [&](const std::string& key) { return !seen.count(key); });
  std::erase_if(unscheduled_, [&](const std::string& key) { return !seen.count(key); });
}

void StateMetricsController::recordClusterState() {
  // Cluster state is the informer caches; this runs only once they have synced.
  std::set<std::string> providerIds;
  for (const api::Object& object : caches_.nodes.list()) {
    if (const Node* node = object.as<Node>(); node != nullptr) {
      providerIds.insert(node->spec.providerID.empty() ? "node/" + node->metadata.name
                                                       : node->spec.providerID);
    }
  }
  // Launched claims whose node has not registered yet count too, as upstream's state nodes do.
  for (const api::Object& object : caches_.nodeClaims.list()) {
    if (const NodeClaim* claim = object.as<NodeClaim>();
        claim != nullptr && !claim->status.providerID.empty()) {
      providerIds.insert(claim->status.providerID);
    }
  }
  nodeCount_.set(static_cast<double>(providerIds.size()));
  synced_.set(1);
  unsyncedSeconds_.set(0);
}

runtime::Controller& StateMetricsController::setup(runtime::Manager& manager) {
  runtime::ControllerOptions options;
  options.workers = 1;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.watchMapped(manager.informerFor<Node>(), singleton);
  controller.watchMapped(manager.informerFor<Pod>(), singleton);
  controller.watchMapped(manager.informerFor<NodeClaim>(), singleton);
  controller.watchMapped(manager.informerFor<NodePool>(), singleton);
  // Once at start as well: an empty cluster sends no event, yet its state is synced and its
  // gauges must read 0 rather than stay unset.
  controller.enqueue({"", kName});
  return controller;
}

}  // namespace nodewright::controllers::telemetry
