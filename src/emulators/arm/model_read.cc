// GET, HEAD and lists of resources, the operation-status endpoints, and the protocol headers.
#include <algorithm>

#include <fmt/format.h>

#include "core/text.h"
#include "emulators/arm/model.h"

namespace nodewright::emulators::arm {
namespace {

using api::Json;

// The longest Retry-After the emulator asks for, whatever remains of an operation.
constexpr std::chrono::seconds kMaxRetryAfter{10};

// The status the Location URL answers for an operation that failed.
int failureStatus(const std::string& code) {
  return code.find("Internal") != std::string::npos ? 500 : 400;
}

}  // namespace

bool isBusy(std::string_view state) {
  return state == "Creating" || state == "Updating" || state == "Deleting";
}

std::optional<Resource> ArmModel::find(const ResourceType& type, const std::string& key) {
  auto r = engine_.store().get(type.key(), key);
  if (!r) {
    return std::nullopt;
  }
  return std::move(*r);
}

Reply ArmModel::get(const ResourcePath& path) {
  auto r = find(*path.type, path.key());
  if (!r) {
    return notFound(path);
  }
  return jsonReply(200, render(*r));
}

Reply ArmModel::head(const ResourcePath& path) {
  Reply reply;
  reply.status = find(*path.type, path.key()) ? 204 : 404;
  return reply;
}

Reply ArmModel::list(const ResourcePath& path) {
  if (!path.resourceGroup.empty() && path.type != &resourceGroupType() &&
      !find(resourceGroupType(), core::lowerAscii(path.groupId()))) {
    return notFound(*parseResourcePath(path.groupId()));
  }
  if (!path.type->parent.empty()) {
    auto parent = parseResourcePath(path.parentId);
    if (parent && !find(*parent->type, parent->key())) {
      return notFound(*parent);
    }
  }
  const std::string parentKey = path.parentKey();
  Json value = Json::array();
  for (const Resource& r : engine_.store().list(path.type->key(), [&](const Resource& x) {
         return x.as<ArmResource>()->parentKey == parentKey;
       })) {
    value.push_back(render(r));
  }
  return jsonReply(200, {{"value", std::move(value)}});
}

Json ArmModel::render(const Resource& r) {
  const ArmResource& d = data(r);
  Json out = d.body;
  if (d.type->provisioningState) {
    out["properties"]["provisioningState"] = r.state;
  }
  const std::string prefix = r.id + "/";
  for (const ResourceType* childType : childTypes(*d.type)) {
    if (childType->inlineField.empty()) {
      continue;
    }
    Json items = Json::array();
    for (const Resource& c : engine_.store().list(
             childType->key(), [&](const Resource& x) { return x.id.starts_with(prefix); })) {
      items.push_back(render(c));
    }
    out["properties"][childType->inlineField] = std::move(items);
  }
  return out;
}

Reply ArmModel::notFound(const ResourcePath& path) {
  const ResourceType& groupType = resourceGroupType();
  const bool groupMissing =
      path.type == &groupType ||
      (!path.resourceGroup.empty() && !find(groupType, core::lowerAscii(path.groupId())));
  if (groupMissing) {
    return errorReply(
        armError(404, "ResourceGroupNotFound",
                 fmt::format("Resource group '{}' could not be found.", path.resourceGroup)));
  }
  if (!path.type->parent.empty()) {
    auto parent = parseResourcePath(path.parentId);
    if (parent && !find(*parent->type, parent->key())) {
      return errorReply(armError(404, "ParentResourceNotFound",
                                 fmt::format("Can not perform requested operation on nested "
                                             "resource. Parent resource '{}' not found.",
                                             parent->name)));
    }
  }
  const size_t providers = path.id.find("/providers/");
  const std::string what =
      providers == std::string::npos ? path.id : path.id.substr(providers + 11);
  return errorReply(armError(404, "ResourceNotFound",
                             fmt::format("The Resource '{}' under resource group '{}' was not "
                                         "found. For more details please go to "
                                         "https://aka.ms/ARMResourceNotFoundFix",
                                         what, path.resourceGroup)));
}

ArmError ArmModel::anotherOperation(const Resource& r, const RequestContext& ctx) {
  const std::string& opId = data(r).operationId;
  auto op = engine_.store().get(std::string(kOperationTable), opId);
  const std::string url =
      op ? operationUrl(*op->as<OperationRecord>(), opId, false, ctx) : std::string();
  return armError(409, "AnotherOperationInProgress",
                  fmt::format("Another operation on this or dependent resource is in progress. "
                              "To retrieve status of the operation use uri: {}",
                              url));
}

std::string ArmModel::operationUrl(const OperationRecord& op, const std::string& id, bool result,
                                   const RequestContext& ctx) const {
  return fmt::format("{}/subscriptions/{}/providers/{}/locations/{}/{}/{}?api-version={}",
                     ctx.baseUrl, op.subscription, op.nameSpace, op.location,
                     result ? "operationResults" : "operations", id,
                     op.apiVersion.empty() ? ctx.apiVersion : op.apiVersion);
}

std::string ArmModel::retryAfter(core::TimePoint due) const {
  const auto left =
      std::chrono::duration_cast<std::chrono::microseconds>(due - engine_.time().now());
  return retryAfterSeconds(std::min<std::chrono::microseconds>(left, kMaxRetryAfter));
}

bool ArmModel::addAsyncHeaders(Reply& reply, const std::string& operationId, bool withLocation,
                               const RequestContext& ctx) {
  auto op = engine_.store().get(std::string(kOperationTable), operationId);
  if (operationId.empty() || !op) {
    return false;
  }
  const OperationRecord& rec = *op->as<OperationRecord>();
  reply.headers.emplace_back("Azure-AsyncOperation", operationUrl(rec, operationId, false, ctx));
  if (withLocation) {
    reply.headers.emplace_back("Location", operationUrl(rec, operationId, true, ctx));
  }
  reply.headers.emplace_back("Retry-After", retryAfter(rec.due));
  return true;
}

Reply ArmModel::operationStatus(std::string_view subscription, std::string_view operationId) {
  auto op = engine_.store().get(std::string(kOperationTable), core::lowerAscii(operationId));
  if (!op || !core::equalsIgnoreCase(op->as<OperationRecord>()->subscription, subscription)) {
    return errorReply(armError(404, "OperationNotFound",
                               fmt::format("The operation '{}' could not be found.", operationId)));
  }
  const OperationRecord& rec = *op->as<OperationRecord>();
  Json body = {{"id", fmt::format("/subscriptions/{}/providers/{}/locations/{}/operations/{}",
                                  rec.subscription, rec.nameSpace, rec.location, op->id)},
               {"name", op->id},
               {"status", op->state},
               {"startTime", armTime(rec.started)}};
  if (op->deleted) {
    body["endTime"] = armTime(*op->deleted);
  }
  if (op->state == "Failed" || op->state == "Canceled") {
    body["error"] = {{"code", rec.errorCode}, {"message", rec.errorMessage}};
  }
  Reply reply = jsonReply(200, std::move(body));
  if (op->state == "InProgress") {
    reply.headers.emplace_back("Retry-After", retryAfter(rec.due));
  }
  return reply;
}

Reply ArmModel::operationResult(std::string_view subscription, std::string_view operationId,
                                const RequestContext& ctx) {
  auto op = engine_.store().get(std::string(kOperationTable), core::lowerAscii(operationId));
  if (!op || !core::equalsIgnoreCase(op->as<OperationRecord>()->subscription, subscription)) {
    return errorReply(armError(404, "OperationNotFound",
                               fmt::format("The operation '{}' could not be found.", operationId)));
  }
  const OperationRecord& rec = *op->as<OperationRecord>();
  Reply reply;
  if (op->state == "InProgress") {
    reply.status = 202;
    reply.headers.emplace_back("Location", operationUrl(rec, op->id, true, ctx));
    reply.headers.emplace_back("Retry-After", retryAfter(rec.due));
    return reply;
  }
  if (op->state == "Succeeded") {
    auto resource = rec.verb == "DELETE" ? std::nullopt : find(*rec.type, rec.resourceKey);
    if (!resource) {
      reply.status = 204;
      return reply;
    }
    return jsonReply(200, render(*resource));
  }
  return errorReply(armError(op->state == "Canceled" ? 409 : failureStatus(rec.errorCode),
                             rec.errorCode, rec.errorMessage));
}

size_t ArmModel::operationsInFlight() {
  return engine_.store().liveCount(kOperationTable);
}

}  // namespace nodewright::emulators::arm
