// ARM attributes as JSON, and the emulator's and the model's parts of the state file. A field added
// to ArmResource or OperationRecord must be added here, or a restart forgets it.
#include "emulators/arm/state.h"

#include <exception>
#include <stdexcept>

#include "emulators/arm/emulator.h"
#include "emulators/arm/model.h"
#include "emulators/engine/json_codec.h"

namespace nodewright::emulators::arm {
namespace {

std::string typeName(const ResourceType* type) {
  return type == nullptr ? std::string() : type->name;
}

// Types are code, not data: the file names them and a restore looks them up.
const ResourceType* typeNamed(const api::Json& j) {
  const std::string name = j.at("type").get<std::string>();
  const ResourceType* type = findType(name);
  if (type == nullptr) {
    throw std::invalid_argument("unknown resource type " + name);
  }
  return type;
}

AttributeCodec resourceCodec() {
  return {[](const Attributes& a) -> std::optional<api::Json> {
            const auto* r = dynamic_cast<const ArmResource*>(&a);
            if (r == nullptr) {
              return std::nullopt;
            }
            return api::Json{{"id", r->id},
                             {"type", typeName(r->type)},
                             {"parentKey", r->parentKey},
                             {"location", r->location},
                             {"body", r->body},
                             {"refs", r->refs},
                             {"operationId", r->operationId},
                             {"nextInstance", r->nextInstance}};
          },
          [](const api::Json& j) -> core::Result<AttributesPtr> {
            auto r = std::make_shared<ArmResource>();
            r->id = j.at("id").get<std::string>();
            r->type = typeNamed(j);
            r->parentKey = j.value("parentKey", std::string());
            r->location = j.value("location", std::string());
            r->body = j.value("body", api::Json::object());
            r->refs = j.value("refs", std::vector<std::string>());
            r->operationId = j.value("operationId", std::string());
            r->nextInstance = j.value("nextInstance", int64_t{0});
            return AttributesPtr(std::move(r));
          }};
}

AttributeCodec operationCodec() {
  return {[](const Attributes& a) -> std::optional<api::Json> {
            const auto* op = dynamic_cast<const OperationRecord*>(&a);
            if (op == nullptr) {
              return std::nullopt;
            }
            return api::Json{{"subscription", op->subscription},
                             {"nameSpace", op->nameSpace},
                             {"location", op->location},
                             {"verb", op->verb},
                             {"resourceKey", op->resourceKey},
                             {"type", typeName(op->type)},
                             {"apiVersion", op->apiVersion},
                             {"started", op->started},
                             {"due", op->due},
                             {"errorCode", op->errorCode},
                             {"errorMessage", op->errorMessage}};
          },
          [](const api::Json& j) -> core::Result<AttributesPtr> {
            auto op = std::make_shared<OperationRecord>();
            op->subscription = j.at("subscription").get<std::string>();
            op->nameSpace = j.value("nameSpace", std::string());
            op->location = j.value("location", std::string());
            op->verb = j.at("verb").get<std::string>();
            op->resourceKey = j.at("resourceKey").get<std::string>();
            op->type = typeNamed(j);
            op->apiVersion = j.value("apiVersion", std::string());
            op->started = j.at("started").get<core::TimePoint>();
            op->due = j.at("due").get<core::TimePoint>();
            op->errorCode = j.value("errorCode", std::string());
            op->errorMessage = j.value("errorMessage", std::string());
            return AttributesPtr(std::move(op));
          }};
}

}  // namespace

const AttributeCodecs& armAttributeCodecs() {
  static const AttributeCodecs codecs = [] {
    AttributeCodecs out;
    for (const ResourceType& type : resourceTypes()) {
      out.emplace(type.key(), resourceCodec());
    }
    out.emplace(std::string(kOperationTable), operationCodec());
    return out;
  }();
  return codecs;
}

core::Result<api::Json> ArmModel::saveState() {
  StoreContents contents;
  api::Json out;
  {
    // Writes hold this lock from their checks to their last change: the copy is of whole
    // writes only.
    std::lock_guard lock(writeMu_);
    contents = engine_.store().contents();
    out["nextPublicIp"] = nextPublicIp_;
    out["operationOrder"] = operationOrder_;
  }
  auto store = encodeStore(contents, armAttributeCodecs());
  if (!store) {
    return core::fail(store.error());
  }
  out["store"] = std::move(*store);
  return out;
}

core::Status ArmModel::restoreState(const api::Json& state) {
  uint32_t nextPublicIp = 0;
  std::deque<std::string> order;
  try {
    nextPublicIp = state.value("nextPublicIp", uint32_t{0});
    order = state.value("operationOrder", std::deque<std::string>());
  } catch (const std::exception& e) {
    return core::fail(core::Error::invalid(e.what()));
  }
  if (!state.contains("store")) {
    return core::fail(core::Error::invalid("no store"));
  }
  auto contents = decodeStore(state["store"], armAttributeCodecs());
  if (!contents) {
    return core::fail(contents.error());
  }
  for (const Resource& r : contents->resources) {
    const bool operation = r.type == kOperationTable;
    const bool typed =
        operation ? r.as<OperationRecord>() != nullptr : r.as<ArmResource>() != nullptr;
    if (!typed || (!operation && r.as<ArmResource>()->type->key() != r.type)) {
      return core::fail(
          core::Error::invalid(r.type + " " + r.id + ": attributes missing or of another type"));
    }
  }
  std::lock_guard lock(writeMu_);
  if (auto restored = engine_.store().restore(std::move(*contents)); !restored) {
    return core::fail(restored.error());
  }
  nextPublicIp_ = nextPublicIp;
  operationOrder_ = std::move(order);
  children_.clear();
  users_.clear();
  for (const ResourceType& type : resourceTypes()) {
    for (const Resource& r : engine_.store().list(type.key())) {
      if (!r.live()) {
        continue;
      }
      const Entry entry(r.type, r.id);
      children_[data(r).parentKey].insert(entry);
      for (const std::string& ref : data(r).refs) {
        users_[ref].insert(entry);
      }
    }
  }
  indexedSinceSweep_ = 0;
  return core::ok();
}

core::Result<api::Json> ArmEmulator::saveState() {
  // The time first: every stored time point is at or before it.
  const core::TimePoint now = engine_.time().now();
  auto model = model_.saveState();
  if (!model) {
    return core::fail(model.error());
  }
  api::Json document{{"format", kArmStateFormat}, {"version", kArmStateVersion}, {"savedAt", now}};
  for (auto& [key, value] : model->items()) {
    document[key] = std::move(value);
  }
  return document;
}

core::Status ArmEmulator::restoreState(const api::Json& state) {
  core::TimePoint savedAt;
  try {
    savedAt = state.at("savedAt").get<core::TimePoint>();
  } catch (const std::exception& e) {
    return core::fail(core::Error::invalid(e.what()));
  }
  if (auto restored = model_.restoreState(state); !restored) {
    return core::fail(restored.error());
  }
  engine_.continueFrom(savedAt);
  return core::ok();
}

}  // namespace nodewright::emulators::arm
