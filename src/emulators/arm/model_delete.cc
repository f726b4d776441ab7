// DELETE: what goes with a resource (its children; everything in a group), what refuses to go
// (a resource another one still references, even from another group), and the asynchronous
// removal.
#include <algorithm>

#include <fmt/format.h>

#include "emulators/arm/model.h"

namespace nodewright::emulators::arm {

api::Json* capacityOf(api::Json& body) {
  auto sku = body.find("sku");
  if (sku == body.end() || !sku->is_object()) {
    return nullptr;
  }
  auto capacity = sku->find("capacity");
  return capacity != sku->end() && capacity->is_number_integer() ? &*capacity : nullptr;
}

Reply ArmModel::remove(const ResourcePath& path, const RequestContext& ctx) {
  const ResourceType& type = *path.type;
  std::lock_guard lock(writeMu_);
  auto existing = find(type, path.key());
  if (!existing) {
    if (&type == &resourceGroupType()) {
      return notFound(path);
    }
    Reply gone;
    gone.status = 204;
    return gone;
  }
  const ArmResource& resource = data(*existing);
  Reply reply;
  reply.status = 202;
  if (existing->state == "Deleting") {
    // Already going: the same operation again, as ARM answers a repeated DELETE.
    if (!addAsyncHeaders(reply, resource.operationId, true, ctx)) {
      return internalError("a resource being deleted has no operation");
    }
    return reply;
  }
  // A child waits for its parent's operation, as its writes do: an inline child (a subnet, a
  // scale set's instance) shares that operation, and deleting it would cut the parent's short.
  std::optional<Resource> parent;
  if (!type.parent.empty()) {
    auto parentPath = parseResourcePath(path.parentId);
    parent = parentPath ? find(*parentPath->type, parentPath->key()) : std::nullopt;
    if (parent && isBusy(parent->state)) {
      return errorReply(anotherOperation(*parent, ctx));
    }
  }
  std::vector<Resource> doomed = descendants(path.key());
  doomed.insert(doomed.begin(), *existing);
  // A group too: ARM refuses to delete one whose subnet a NIC in another group uses.
  if (auto unused = checkNotInUse(doomed); !unused) {
    return errorReply(unused.error());
  }
  if (type.syncDelete) {
    if (ctx.failure) {
      return errorReply(armError(400, ctx.failure->code, ctx.failure->message));
    }
    Reply done;
    done.status = 200;
    if (!type.provisioningState) {
      done.body = render(*existing);
    }
    for (const Resource& r : doomed) {
      (void)engine_.store().remove(r.type, r.id);
    }
    return done;
  }
  const core::TimePoint due = engine_.dueAfter(deleteOp(type));
  const std::string operationId = startOperation(path, resource, "DELETE", due, ctx);
  const Transition next = deletion(due, ctx.failure.has_value());
  // An injected failure leaves the children alone: only the resource ends Failed.
  const size_t count = ctx.failure ? 1 : doomed.size();
  for (size_t i = 0; i < count; ++i) {
    const Resource& r = doomed[i];
    if (r.state == "Deleting") {
      // Its own delete is overtaken: it goes with this one, never after its group.
      finishDeleteWith(r, due);
    } else if (isBusy(r.state)) {
      cancelOperation(r);
    }
    auto updated = std::make_shared<ArmResource>(data(r));
    updated->operationId = operationId;
    (void)engine_.store().update(r.type, r.id, [&](Resource& x) { x.attributes = updated; });
    (void)engine_.store().transition(r.type, r.id, "Deleting", next);
  }
  if (type.createdByParent && !ctx.failure && parent) {
    // A scale set runs one instance fewer once one of its instances is deleted.
    auto updated = std::make_shared<ArmResource>(data(*parent));
    api::Json* capacity = capacityOf(updated->body);
    if (capacity != nullptr) {
      *capacity = std::max<int64_t>(0, capacity->get<int64_t>() - 1);
    }
    (void)engine_.store().update(parent->type, parent->id,
                                 [&](Resource& x) { x.attributes = updated; });
  }
  if (!addAsyncHeaders(reply, operationId, true, ctx)) {
    return internalError("the operation of a delete is not stored");
  }
  return reply;
}

}  // namespace nodewright::emulators::arm
