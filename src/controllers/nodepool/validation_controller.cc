#include "controllers/nodepool/validation_controller.h"

#include <vector>

#include "api/karpenter/runtime_validation.h"
#include "controllers/nodeclaim/conditions.h"
#include "runtime/api_outcome.h"

namespace nodewright::controllers::nodepool {
namespace {

using api::karpenter::NodePool;
using runtime::Outcome;
using runtime::Result;

struct Verdict {
  std::string status;
  std::string reason;
  std::string message;
};

Verdict verdictOf(const NodePool& pool) {
  std::vector<std::string> problems = api::karpenter::runtimeValidate(pool);
  if (problems.empty()) {
    return {nodeclaim::kTrue, kValidationSucceeded, ""};
  }
  std::string message;
  for (const std::string& p : problems) {
    message += (message.empty() ? "" : "; ") + p;
  }
  return {nodeclaim::kFalse, kValidationFailedReason, message};
}

bool reports(const NodePool& pool, const Verdict& verdict) {
  const api::Condition* c = nodeclaim::findCondition(pool.status.conditions, kValidationSucceeded);
  return c != nullptr && c->status == verdict.status && c->reason == verdict.reason &&
         c->message == verdict.message && c->observedGeneration == pool.metadata.generation;
}

}  // namespace

ValidationController::ValidationController(kube::Client& client, const kube::Cache& pools)
    : client_(client), pools_(pools) {}

Outcome ValidationController::reconcile(const runtime::Request& request,
                                        runtime::Context& context) {
  auto cached = pools_.get(request.name);
  const NodePool* pool = cached ? cached->as<NodePool>() : nullptr;
  if (pool == nullptr || reports(*pool, verdictOf(*pool))) {
    return Result::done();
  }
  auto written = kube::updateStatusWithRetry(
      client_, kube::kindOf<NodePool>(client_.registry()), "", request.name,
      [&](api::Object& object) {
        NodePool* stored = object.as<NodePool>();
        const Verdict verdict = verdictOf(*stored);
        if (reports(*stored, verdict) || !context.leading()) {
          return false;
        }
        nodeclaim::setCondition(stored->status.conditions, kValidationSucceeded, verdict.status,
                                verdict.reason, verdict.message, stored->metadata.generation,
                                context.clock().now());
        return true;
      });
  if (!written) {
    if (written.error().is(kube::Reason::NotFound)) {
      return Result::done();
    }
    return runtime::apiFailure(written.error(), "writing the status of NodePool " + request.name);
  }
  return Result::done();
}

runtime::Controller& ValidationController::setup(runtime::Manager& manager) {
  runtime::ControllerOptions options;
  options.workers = 10;
  runtime::Controller& controller = manager.addController(kName, *this, options);
  controller.watchFor(manager.informerFor<NodePool>());
  return controller;
}

}  // namespace nodewright::controllers::nodepool
