// Writes that passed their checks: stored with their provisioningState, and the operation
// record that reports on them.

#include "core/log.h"
#include "emulators/arm/model.h"

namespace nodewright::emulators::arm {
namespace {

// How long finished operations stay readable, in emulated time.
constexpr std::chrono::hours kOperationRetention{24};
// How many operation ids trimOperations() looks at per call: the oldest are nearly always
// finished, so a few steps keep the cap without scanning the whole history.
constexpr size_t kTrimSteps = 64;

}  // namespace

Transition deletion(core::TimePoint due, bool failed) {
  Transition t;
  t.to = failed ? "Failed" : "Deleted";
  t.at = due;
  if (!failed) {
    t.keepFor = std::chrono::microseconds(0);
  }
  return t;
}

Reply internalError(std::string_view what) {
  core::logError("arm: internal error", {{"error", what}});
  return errorReply(
      armError(500, "InternalServerError", "The server encountered an internal error."));
}

ArmModel::ArmModel(Engine& engine, const SkuCatalog& skus, size_t maxRetainedOperations)
    : engine_(engine), skus_(skus), maxRetainedOperations_(maxRetainedOperations) {}

std::chrono::microseconds ArmModel::operationRetention() const {
  return engine_.time().toReal(kOperationRetention);
}

Reply ArmModel::write(std::vector<Prepared> items, std::string_view verb, const RequestContext& ctx,
                      std::string_view op, bool sync) {
  Prepared& main = items.front();
  const ResourceType& type = *main.path.type;
  const bool scaleSet = type.name == "Microsoft.Compute/virtualMachineScaleSets";
  const int status = main.existing || verb == "PATCH" ? 200 : 201;
  if (sync) {
    if (ctx.failure) {
      return errorReply(armError(400, ctx.failure->code, ctx.failure->message));
    }
    for (const Prepared& item : items) {
      if (item.remove) {
        (void)engine_.store().remove(item.existing->type, item.existing->id);
      } else {
        store(item, "Succeeded", std::nullopt);
      }
    }
    return jsonReply(status, render(*find(type, main.path.key())));
  }
  const core::TimePoint due = engine_.dueAfter(op);
  const std::string operationId = startOperation(main.path, *main.resource, verb, due, ctx);
  Transition next;
  next.to = ctx.failure ? "Failed" : "Succeeded";
  next.at = due;
  for (Prepared& item : items) {
    item.resource->operationId = operationId;
  }
  // Planned before the first change: nothing below can fail half-way.
  InstancePlan instances = scaleSet ? planInstances(main) : InstancePlan{};
  for (const Prepared& item : items) {
    if (item.remove) {
      (void)engine_.store().update(item.existing->type, item.existing->id,
                                   [&](Resource& r) { r.attributes = item.resource; });
      (void)engine_.store().transition(item.existing->type, item.existing->id, "Deleting",
                                       deletion(due, ctx.failure.has_value()));
    } else {
      store(item, item.existing ? "Updating" : "Creating", next);
    }
  }
  applyInstances(instances, next, ctx);
  Reply reply = jsonReply(status, render(*find(type, main.path.key())));
  if (!addAsyncHeaders(reply, operationId, false, ctx)) {
    return internalError("the operation of a write is not stored");
  }
  return reply;
}

void ArmModel::store(const Prepared& item, std::string state, std::optional<Transition> next) {
  const std::string table = item.path.type->key();
  const std::string key = item.path.key();
  index(item);
  if (item.existing) {
    (void)engine_.store().update(table, key, [&](Resource& r) { r.attributes = item.resource; });
    (void)engine_.store().transition(table, key, std::move(state), std::move(next));
    return;
  }
  NewResource spec;
  spec.type = table;
  spec.id = key;
  spec.state = std::move(state);
  spec.next = std::move(next);
  spec.attributes = item.resource;
  (void)engine_.store().create(std::move(spec));
}

std::string ArmModel::startOperation(const ResourcePath& path, const ArmResource& resource,
                                     std::string_view verb, core::TimePoint due,
                                     const RequestContext& ctx) {
  auto op = std::make_shared<OperationRecord>();
  op->subscription = path.subscription;
  op->nameSpace = path.type->nameSpace();
  op->location = resource.location;
  op->verb = std::string(verb);
  op->resourceKey = path.key();
  op->type = path.type;
  op->apiVersion = ctx.apiVersion;
  op->started = engine_.time().now();
  op->due = due;
  if (ctx.failure) {
    op->errorCode = ctx.failure->code;
    op->errorMessage = ctx.failure->message;
  }
  NewResource spec;
  spec.type = std::string(kOperationTable);
  spec.id = newUuid();
  spec.state = "InProgress";
  Transition done;
  done.to = ctx.failure ? "Failed" : "Succeeded";
  done.at = due;
  done.keepFor = operationRetention();
  spec.next = done;
  spec.attributes = std::move(op);
  const std::string id = spec.id;
  (void)engine_.store().create(std::move(spec));
  operationOrder_.push_back(id);
  trimOperations();
  return id;
}

void ArmModel::trimOperations() {
  const std::string table(kOperationTable);
  auto it = operationOrder_.begin();
  for (size_t step = 0; operationOrder_.size() > maxRetainedOperations_ &&
                        it != operationOrder_.end() && step < kTrimSteps;
       ++step) {
    auto op = engine_.store().get(table, *it);
    if (op && op->live()) {
      ++it;  // still running: never forgotten
      continue;
    }
    if (op) {
      (void)engine_.store().remove(table, *it);
    }
    it = operationOrder_.erase(it);
  }
}

void ArmModel::cancelOperation(const Resource& r) {
  const std::string& id = data(r).operationId;
  if (id.empty()) {
    return;
  }
  const std::string table(kOperationTable);
  auto op = engine_.store().get(table, id);
  // An inline child shares its parent's operation: deleting the child does not cancel it.
  if (!op || !op->live() || op->as<OperationRecord>()->verb == "DELETE" ||
      op->as<OperationRecord>()->resourceKey != r.id) {
    return;
  }
  auto canceled = std::make_shared<OperationRecord>(*op->as<OperationRecord>());
  canceled->errorCode = "Canceled";
  canceled->errorMessage = "Operation was canceled: the resource is being deleted.";
  (void)engine_.store().update(table, id, [&](Resource& x) { x.attributes = canceled; });
  (void)engine_.store().retire(table, id, "Canceled", operationRetention());
}

void ArmModel::finishDeleteWith(const Resource& r, core::TimePoint due) {
  const std::string& id = data(r).operationId;
  if (id.empty()) {
    return;
  }
  const std::string table(kOperationTable);
  auto op = engine_.store().get(table, id);
  if (!op || !op->live() || op->as<OperationRecord>()->resourceKey != r.id) {
    return;
  }
  // The resource goes with its parent, so its own delete succeeds then, whatever it would
  // have done on its own.
  auto rec = std::make_shared<OperationRecord>(*op->as<OperationRecord>());
  rec->due = due;
  rec->errorCode.clear();
  rec->errorMessage.clear();
  Transition done;
  done.to = "Succeeded";
  done.at = due;
  done.keepFor = operationRetention();
  (void)engine_.store().update(table, id, [&](Resource& x) { x.attributes = rec; });
  (void)engine_.store().transition(table, id, "InProgress", done);
}

}  // namespace nodewright::emulators::arm
