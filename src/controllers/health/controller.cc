#include "controllers/health/controller.h"

#include <algorithm>
#include <cctype>

#include "api/karpenter/well_known.h"
#include "cloud/well_known_labels.h"
#include "controllers/nodeclaim/conditions.h"
#include "controllers/nodeclaim/well_known.h"
#include "controllers/telemetry/karpenter.h"
#include "core/log.h"
#include "runtime/api_outcome.h"

namespace nodewright::controllers::health {
namespace {

using runtime::Outcome;
using runtime::Result;

// Upstream's event message of a blocked repair.
constexpr const char* kBlockedEventMessage =
    "more than 20% nodes are unhealthy in the nodepool";

template <class T>
std::optional<T> typed(const std::optional<api::Object>& object) {
  if (!object) {
    return std::nullopt;
  }
  const T* value = object->as<T>();
  return value == nullptr ? std::nullopt : std::optional<T>(*value);
}

std::vector<RepairPolicy> scaled(std::vector<RepairPolicy> policies, double timeScale) {
  for (RepairPolicy& p : policies) {
    p.toleration = std::chrono::seconds(
        static_cast<int64_t>(static_cast<double>(p.toleration.count()) / timeScale));
  }
  return policies;
}

// "ready_false" for Ready False: upstream's snake-cased condition label.
std::string conditionLabel(const RepairPolicy& policy) {
  std::string out;
  for (char c : policy.conditionType + policy.conditionStatus) {
    if (std::isupper(static_cast<unsigned char>(c)) != 0) {
      if (!out.empty()) {
        out += '_';
      }
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

RepairController::RepairController(kube::Client& client, const core::Clock& clock,
                                   runtime::EventRecorder* events, runtime::Registry& metrics,
                                   Options options)
    : client_(client),
      clock_(clock),
      events_(events),
      policies_(scaled(std::move(options.policies), options.timeScale)),
      blockedRecheck_(std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double>(options.blockedRecheck) / options.timeScale)),
      disrupted_(metrics.counter(
          "karpenter_nodeclaims_disrupted_total",
          "Number of nodeclaims disrupted in total by Karpenter. Labeled by reason the nodeclaim "
          "was disrupted and the owning nodepool.",
          {"reason", "nodepool", "capacity_type"})),
      unhealthyDisrupted_(metrics.counter(
          "karpenter_nodeclaims_unhealthy_disrupted_total",
          "Number of unhealthy nodeclaims disrupted in total by Karpenter. Labeled by condition "
          "on the node was disrupted, the owning nodepool, and the image ID.",
          {"condition", "nodepool", "capacity_type", "image_id"})) {}

Outcome RepairController::reconcile(const runtime::Request& request, runtime::Context& context) {
  NW_CHECK(nodes_ != nullptr && claims_ != nullptr && pools_ != nullptr);
  auto node = typed<Node>(nodes_->get(request.name));
  if (!node || node->metadata.deletionTimestamp) {
    return Result::done();
  }
  auto claim = claimOf(*node);
  if (!claim || claim->metadata.deletionTimestamp) {
    return Result::done();  // not Karpenter's, or already going
  }
  const std::vector<Node> peers = peersOf(*claim);
  const core::TimePoint now = clock_.now();
  const Decision decision = decide(*node, peers, policies_, now);
  const std::string pool = telemetry::labelValue(claim->metadata, api::karpenter::kNodePoolLabel);
  switch (decision.verdict) {
    case Verdict::Healthy:
    case Verdict::Tolerated: {
      size_t unhealthy = 0;
      for (const Node& peer : peers) {
        unhealthy += unhealthyCondition(peer, policies_) ? 1 : 0;
      }
      if (!pool.empty() && repairAllowed(unhealthy, peers.size())) {
        if (auto set = setPoolCondition(pool, true, "", context); !set) {
          return core::fail(set.error());
        }
      }
      if (decision.verdict == Verdict::Healthy) {
        return Result::done();
      }
      return Result::after(decision.unhealthy->repairAt - now);
    }
    case Verdict::Blocked:
      return block(*node, *claim, decision, context);
    case Verdict::Repair:
      return repair(*node, *claim, decision, context);
  }
  return Result::done();
}

std::optional<api::karpenter::NodeClaim> RepairController::claimOf(const Node& node) const {
  if (node.spec.providerID.empty()) {
    return std::nullopt;
  }
  for (const api::Object& object : claims_->byIndex(kube::kByProviderId, node.spec.providerID)) {
    if (const NodeClaim* claim = object.as<NodeClaim>()) {
      return *claim;
    }
  }
  return std::nullopt;
}

std::vector<api::corev1::Node> RepairController::peersOf(const NodeClaim& claim) const {
  const auto it = claim.metadata.labels.find(api::karpenter::kNodePoolLabel);
  std::vector<Node> out;
  for (const api::Object& object : nodes_->list()) {
    const Node* node = object.as<Node>();
    if (node == nullptr) {
      continue;
    }
    if (it != claim.metadata.labels.end()) {
      const auto label = node->metadata.labels.find(api::karpenter::kNodePoolLabel);
      if (label == node->metadata.labels.end() || label->second != it->second) {
        continue;
      }
    }
    out.push_back(*node);
  }
  return out;
}

Outcome RepairController::block(const Node& node, const NodeClaim& claim, const Decision& decision,
                                runtime::Context& context) {
  const std::string pool = telemetry::labelValue(claim.metadata, api::karpenter::kNodePoolLabel);
  core::logInfo(context.log(), "node repair blocked",
                {{"node", node.metadata.name},
                 {"nodeclaim", claim.metadata.name},
                 {"nodepool", pool},
                 {"reason", decision.message}});
  if (!context.leading()) {
    return Result::after(blockedRecheck_);
  }
  std::optional<NodePool> nodePool;
  if (!pool.empty()) {
    nodePool = typed<NodePool>(pools_->get(pool));
    if (auto set = setPoolCondition(pool, false, decision.message, context); !set) {
      return core::fail(set.error());
    }
  }
  event(node, claim, nodePool,
        pool.empty() ? "more than 20% nodes are unhealthy in the cluster" : kBlockedEventMessage);
  return Result::after(blockedRecheck_);
}

Outcome RepairController::repair(const Node& node, const NodeClaim& claim,
                                 const Decision& decision, runtime::Context& context) {
  if (!context.leading()) {
    return Result::done();
  }
  const std::string uid = claim.metadata.uid;
  const core::TimePoint now = clock_.now();
  // The drain's deadline is now: an unhealthy node's pods are deleted rather than waited for.
  auto annotated = kube::updateWithRetry(
      client_, kube::kindOf<NodeClaim>(client_.registry()), "", claim.metadata.name,
      [&](api::Object& object) {
        NodeClaim* stored = object.as<NodeClaim>();
        if (stored == nullptr || stored->metadata.uid != uid) {
          return false;
        }
        auto& annotations = stored->metadata.annotations;
        auto it = annotations.find(nodeclaim::kTerminationTimestampAnnotation);
        if (it != annotations.end()) {
          if (auto at = core::Time::parse(it->second); at && at->point() <= now) {
            return false;
          }
        }
        annotations[nodeclaim::kTerminationTimestampAnnotation] =
            core::Time(std::chrono::time_point_cast<std::chrono::seconds>(now)).toString();
        return true;
      });
  if (!annotated) {
    if (annotated.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return runtime::apiFailure(annotated.error(), "annotating nodeclaim " + claim.metadata.name);
  }
  kube::DeleteOptions options;
  options.preconditionUid = uid;
  auto removed = kube::Typed<NodeClaim>(client_).remove("", claim.metadata.name, options);
  if (!removed) {
    if (removed.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return runtime::apiFailure(removed.error(), "deleting nodeclaim " + claim.metadata.name);
  }
  const std::string pool = telemetry::labelValue(claim.metadata, api::karpenter::kNodePoolLabel);
  const std::string capacityType =
      telemetry::labelValue(node.metadata, cloud::labels::kCapacityType);
  core::logInfo(context.log(), "deleting unhealthy node",
                {{"node", node.metadata.name},
                 {"nodeclaim", claim.metadata.name},
                 {"condition", decision.unhealthy->policy.conditionType},
                 {"status", decision.unhealthy->policy.conditionStatus},
                 {"since", core::Time(decision.unhealthy->since).toString()}});
  disrupted_.with({"unhealthy", pool, capacityType}).inc();
  unhealthyDisrupted_
      .with({conditionLabel(decision.unhealthy->policy), pool, capacityType, claim.status.imageID})
      .inc();
  return Result::done();
}

core::Status RepairController::setPoolCondition(const std::string& pool, bool allowed,
                                                const std::string& message,
                                                runtime::Context& context) {
  const std::string status = allowed ? nodeclaim::kTrue : nodeclaim::kFalse;
  const std::string reason = allowed ? kWithinLimitReason : kNodeRepairBlockedReason;
  auto says = [&](const NodePool& p) {
    const api::Condition* c = nodeclaim::findCondition(p.status.conditions, kNodeRepairCondition);
    if (c == nullptr) {
      return false;
    }
    return c->status == status && c->reason == reason && c->message == message;
  };
  auto cached = typed<NodePool>(pools_->get(pool));
  if (!cached || says(*cached) || !context.leading()) {
    return core::ok();
  }
  auto written = kube::updateStatusWithRetry(
      client_, kube::kindOf<NodePool>(client_.registry()), "", pool, [&](api::Object& object) {
        NodePool* stored = object.as<NodePool>();
        if (stored == nullptr || says(*stored)) {
          return false;
        }
        nodeclaim::setCondition(stored->status.conditions, kNodeRepairCondition, status, reason,
                                message, stored->metadata.generation, clock_.now());
        return true;
      });
  if (!written && !written.error().is(kube::Reason::NotFound)) {
    return core::fail(
        written.error().toError().wrap("writing the repair condition of NodePool " + pool));
  }
  return core::ok();
}

void RepairController::event(const Node& node, const NodeClaim& claim,
                             const std::optional<NodePool>& pool, const std::string& message) {
  if (events_ == nullptr) {
    return;
  }
  const auto type = runtime::EventType::Warning;
  events_->event(api::Object(&kube::kindOf<Node>(client_.registry()), std::make_shared<Node>(node)),
                 type, kNodeRepairBlockedReason, message);
  events_->event(
      api::Object(&kube::kindOf<NodeClaim>(client_.registry()), std::make_shared<NodeClaim>(claim)),
      type, kNodeRepairBlockedReason, message);
  if (pool) {
    events_->event(
        api::Object(&kube::kindOf<NodePool>(client_.registry()), std::make_shared<NodePool>(*pool)),
        type, kNodeRepairBlockedReason, message);
  }
}

runtime::Controller& RepairController::setup(runtime::Manager& manager) {
  kube::Informer& nodes = manager.informerFor<Node>();
  kube::Informer& claims = manager.informerFor<NodeClaim>();
  kube::Informer& pools = manager.informerFor<NodePool>();
  nodes_ = &nodes.cache();
  claims_ = &claims.cache();
  pools_ = &pools.cache();
  runtime::ControllerOptions options;
  options.workers = 2;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.watchFor(nodes);
  // A claim that gains its provider ID (or loses its deletion) brings its Node back.
  controller.watchMapped(claims, [this](const api::Object& object) {
    std::vector<runtime::Request> out;
    const NodeClaim* claim = object.as<NodeClaim>();
    if (claim == nullptr || claim->status.providerID.empty()) {
      return out;
    }
    for (const api::Object& node : nodes_->byIndex(kube::kByProviderId, claim->status.providerID)) {
      out.push_back({"", node.metadata().name});
    }
    return out;
  });
  return controller;
}

}  // namespace nodewright::controllers::health
