#include "controllers/disruption/drift_controller.h"

#include <algorithm>

#include "api/karpenter/well_known.h"
#include "controllers/disruption/drift.h"
#include "controllers/nodeclaim/conditions.h"
#include "core/log.h"

namespace nodewright::controllers::disruption {
namespace {

using api::karpenter::NodeClaim;
using api::karpenter::NodePool;
using runtime::Result;

// Condition messages stay readable in `kubectl describe`; `drift explain` has the rest.
constexpr size_t kMaxMessage = 1024;

std::string poolOf(const NodeClaim& claim) {
  auto it = claim.metadata.labels.find(api::karpenter::kNodePoolLabel);
  return it == claim.metadata.labels.end() ? std::string() : it->second;
}

}  // namespace

DriftChecks checkDrift(const NodeClaim& claim, const NodePool& pool, cloud::CloudProvider& cloud,
                       const api::karpenter::HashPolicy& policy) {
  return checkDrift(claim, nodePoolContext(pool, policy), cloud, policy);
}

DriftChecks checkDrift(const NodeClaim& claim, const NodePoolDriftContext& pool,
                       cloud::CloudProvider& cloud, const api::karpenter::HashPolicy& policy) {
  DriftChecks out;
  out.checks = nodePoolDrift(claim, pool, policy);
  auto fromCloud = cloud.isDrifted(claim);
  if (!fromCloud) {
    out.cloudError = fromCloud.error();
    return out;
  }
  out.checks.insert(out.checks.end(), fromCloud->begin(), fromCloud->end());
  return out;
}

std::string driftMessage(const cloud::DriftCheck& check) {
  std::string message = check.name + ": " + cloud::describe(check);
  if (message.size() > kMaxMessage) {
    message = message.substr(0, kMaxMessage - 3) + "...";
  }
  return message;
}

DriftController::DriftController(kube::Client& client, cloud::CloudProvider& cloud,
                                 const core::Clock& clock, runtime::EventRecorder* events,
                                 runtime::Registry& metrics, DriftOptions options)
    : client_(client),
      cloud_(cloud),
      clock_(clock),
      events_(events),
      options_(std::move(options)),
      drifted_(metrics.counter("karpenter_nodeclaims_drifted_total",
                               "NodeClaims found drifted, by reason and NodePool.",
                               {"type", "nodepool"})) {}

runtime::Controller& DriftController::setup(runtime::Manager& manager,
                                            const std::vector<kube::Informer*>& nodeClasses) {
  kube::Informer& claimInformer = manager.informerFor<NodeClaim>();
  claims_ = &claimInformer.cache();
  pools_ = &manager.informerFor<NodePool>().cache();
  runtime::ControllerOptions controllerOptions;
  controllerOptions.workers = options_.workers;
  runtime::Controller& controller = manager.addController(kName, *this, controllerOptions);
  controller.watchFor(claimInformer);
  // Every claim matching `match` is checked again.
  auto claimsWhere = [this](auto match) {
    return [this, match](const api::Object& object) {
      std::vector<runtime::Request> out;
      for (const api::Object& claimObject : claims_->list()) {
        const auto* claim = claimObject.as<NodeClaim>();
        if (claim != nullptr && match(*claim, object)) {
          out.push_back({"", claim->metadata.name});
        }
      }
      return out;
    };
  };
  // Only a spec change (a new generation) can drift a pool's claims; status writes (the counter)
  // would otherwise re-check the whole pool on every launch.
  auto poolClaims = claimsWhere([](const NodeClaim& claim, const api::Object& pool) {
    return poolOf(claim) == pool.metadata().name;
  });
  controller.watchMapped(manager.informerFor<NodePool>(),
                         [this, poolClaims](const api::Object& pool) {
                           {
                             std::lock_guard lock(mu_);
                             auto& seen = generations_[pool.metadata().name];
                             if (seen == pool.metadata().generation) {
                               return std::vector<runtime::Request>{};
                             }
                             seen = pool.metadata().generation;
                           }
                           return poolClaims(pool);
                         });
  for (kube::Informer* informer : nodeClasses) {
    const std::string kind = informer->kind().kind;
    controller.watchMapped(
        *informer, claimsWhere([kind](const NodeClaim& claim, const api::Object& nodeClass) {
          return claim.spec.nodeClassRef.kind == kind &&
                 claim.spec.nodeClassRef.name == nodeClass.metadata().name;
        }));
  }
  return controller;
}

std::shared_ptr<const NodePoolDriftContext> DriftController::contextFor(
    const api::Object& poolObject) {
  const api::ObjectMeta& meta = poolObject.metadata();
  const std::string key = meta.uid + "/" + meta.resourceVersion;
  std::lock_guard lock(mu_);
  auto& entry = contexts_[meta.name];
  if (entry.first != key || !entry.second) {
    // The context points into its pool: one allocation owns both, so a reconcile still using
    // an older context keeps its pool alive.
    struct Holder {
      explicit Holder(const api::Object& object) : pool(object) {}
      api::Object pool;
      NodePoolDriftContext context;
    };
    auto holder = std::make_shared<Holder>(poolObject);
    holder->context = nodePoolContext(*holder->pool.as<NodePool>(), options_.hashPolicy);
    entry = {key, std::shared_ptr<const NodePoolDriftContext>(holder, &holder->context)};
  }
  return entry.second;
}

runtime::Outcome DriftController::reconcile(const runtime::Request& request,
                                            runtime::Context& context) {
  auto cached = claims_->get(request.key());
  const NodeClaim* claim = cached ? cached->as<NodeClaim>() : nullptr;
  if (claim == nullptr || claim->metadata.deletionTimestamp ||
      !nodeclaim::isTrue(claim->status.conditions, api::karpenter::kLaunched)) {
    return Result::done();
  }
  auto pooled = pools_->get(poolOf(*claim));
  const NodePool* pool = pooled ? pooled->as<NodePool>() : nullptr;
  if (pool == nullptr) {
    return Result::done();
  }
  DriftChecks result = checkDrift(*claim, *contextFor(*pooled), cloud_, options_.hashPolicy);
  const cloud::DriftCheck* drift = cloud::firstDrift(result.checks);
  if (drift == nullptr && result.cloudError) {
    // Not known either way: the condition stays as it is until the cloud can be asked.
    return core::fail(result.cloudError->wrap("checking drift"));
  }
  const std::string message = drift != nullptr ? driftMessage(*drift) : std::string();
  const auto* current =
      nodeclaim::findCondition(claim->status.conditions, api::karpenter::kDrifted);
  const bool undetermined = std::any_of(result.checks.begin(), result.checks.end(),
                                        [](const cloud::DriftCheck& c) { return c.undetermined; });
  if (drift == nullptr && undetermined) {
    // Stamped under another hash version: the condition stays as it is until the hash
    // controllers re-stamp the claim (a drifted one keeps its old hash, so it stays drifted).
    return Result::after(options_.recheck);
  }
  const bool unchanged = drift != nullptr
                             ? current != nullptr && current->status == nodeclaim::kTrue &&
                                   current->reason == drift->reason && current->message == message
                             : current == nullptr;
  if (unchanged) {
    return Result::after(options_.recheck);
  }
  const auto now = clock_.now();
  auto written = kube::updateStatusWithRetry(
      client_, kube::kindOf<NodeClaim>(client_.registry()), "", claim->metadata.name,
      [&](api::Object& object) {
        auto* target = object.as<NodeClaim>();
        if (target == nullptr || target->metadata.uid != claim->metadata.uid) {
          return false;
        }
        auto& conditions = target->status.conditions;
        if (drift == nullptr) {
          return std::erase_if(conditions, [](const api::Condition& c) {
                   return c.type == api::karpenter::kDrifted;
                 }) > 0;
        }
        nodeclaim::setCondition(conditions, api::karpenter::kDrifted, nodeclaim::kTrue,
                                drift->reason, message, target->metadata.generation, now);
        return true;
      });
  if (!written) {
    if (written.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return core::fail(written.error().toError().wrap("writing the Drifted condition"));
  }
  if (drift != nullptr && (current == nullptr || current->status != nodeclaim::kTrue)) {
    drifted_.with({drift->reason, pool->metadata.name}).inc();
    core::logInfo(
        context.log(), "nodeclaim drifted",
        {{"nodeclaim", claim->metadata.name}, {"reason", drift->reason}, {"detail", message}});
    if (events_ != nullptr) {
      events_->event(*cached, runtime::EventType::Normal, "Drifted", message);
    }
  }
  return Result::after(options_.recheck);
}

}  // namespace nodewright::controllers::disruption
