#include "apiserver/storage/write_plan.h"

#include <memory>
#include <utility>

namespace nodewright::apiserver::storage {
namespace {

core::Error conflict(std::string message) {
  return core::Error(core::Code::Conflict, std::move(message));
}

core::Status checkExisting(const WriteOp& op, const StoredPtr& current) {
  if (op.expectRevision == WriteOp::kMustNotExist) {
    return core::fail(conflict(op.key + " already exists"));
  }
  if (op.expectRevision != WriteOp::kAny && op.expectRevision != current->revision) {
    return core::fail(conflict(op.key + " has revision " + std::to_string(current->revision) +
                               ", expected " + std::to_string(op.expectRevision)));
  }
  return core::ok();
}

core::Result<PlannedWrite> planPut(WriteOp op, const StoredPtr& current, int64_t revision) {
  if (!op.object.is_object()) {
    return core::fail(core::Error::invalid(op.key + ": object must be a JSON object"));
  }
  auto metadata = op.object.find("metadata");
  if (metadata != op.object.end() && !metadata->is_object() && !metadata->is_null()) {
    return core::fail(core::Error::invalid(op.key + ": metadata must be an object"));
  }
  if (current == nullptr) {
    // An update (expected revision) of a missing object is NotFound, as in kube-apiserver.
    if (op.expectRevision > 0) {
      return core::fail(core::Error::notFound(op.key + " not found"));
    }
  } else if (auto ok = checkExisting(op, current); !ok) {
    return core::fail(ok.error());
  }
  PlannedWrite plan;
  plan.type = current == nullptr ? EventType::Added : EventType::Modified;
  plan.previous = current;
  plan.stored = stampStored(std::move(op.key), revision, std::move(op.object));
  return plan;
}

core::Result<PlannedWrite> planDelete(const WriteOp& op, const StoredPtr& current,
                                      int64_t revision) {
  if (current == nullptr) {
    return core::fail(core::Error::notFound(op.key + " not found"));
  }
  if (auto ok = checkExisting(op, current); !ok) {
    return core::fail(ok.error());
  }
  PlannedWrite plan;
  plan.type = EventType::Deleted;
  plan.previous = current;
  plan.stored = stampStored(op.key, revision, *current->object);
  return plan;
}

}  // namespace

core::Result<PlannedWrite> planWrite(WriteOp op, const StoredPtr& current, int64_t revision) {
  if (op.key.empty()) {
    return core::fail(core::Error::invalid("empty storage key"));
  }
  if (op.expectRevision < WriteOp::kAny) {
    return core::fail(core::Error::invalid(op.key + ": bad expected revision " +
                                           std::to_string(op.expectRevision)));
  }
  try {
    if (op.kind == WriteOp::Kind::Delete) {
      return planDelete(op, current, revision);
    }
    return planPut(std::move(op), current, revision);
  } catch (const std::exception& e) {  // nlohmann's, on an object shape checked above
    return core::fail(core::Error::internal(std::string("preparing write: ") + e.what()));
  }
}

StoredPtr stampStored(std::string key, int64_t revision, api::Json object) {
  object["metadata"]["resourceVersion"] = std::to_string(revision);
  auto stored = std::make_shared<Stored>();
  stored->key = std::move(key);
  stored->revision = revision;
  stored->text = std::make_shared<const std::string>(api::dumpJson(object));
  stored->object = std::make_shared<const api::Json>(std::move(object));
  return stored;
}

}  // namespace nodewright::apiserver::storage
