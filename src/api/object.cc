#include "api/object.h"

#include <algorithm>

#include "api/reflect/operations.h"

namespace nodewright::api {
namespace {

bool isUnder(const std::string& path, const std::string& prefix) {
  return path == prefix ||
         (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
          (path[prefix.size()] == '.' || path[prefix.size()] == '['));
}

bool coveredBy(const std::string& path, const std::vector<std::string>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return isUnder(path, p); });
}

}  // namespace

const ObjectMeta& Object::metadata() const {
  const reflect::FieldDesc* f = info_->type->structSchema().find("metadata");
  return *static_cast<const ObjectMeta*>(f->cget(data_.get()));
}

Json Object::toJson() const {
  return info_->type->encode(data_.get());
}

FieldErrors validateObject(const Object& object) {
  FieldErrors errors;
  reflect::validateValue(*object.info().type, object.raw(), nullptr, reflect::PathNode{}, errors);
  return errors;
}

DecodedObject decodeObject(const Json& document, const Registry& registry,
                           const ObjectOptions& options) {
  DecodedObject out;
  if (!document.is_object()) {
    out.errors.push_back({"", fielderr::wrongType(document, "object")});
    return out;
  }
  auto text = [&](const char* key) -> std::string {
    auto it = document.find(key);
    return it != document.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string apiVersion = text("apiVersion");
  std::string kind = text("kind");
  if (apiVersion.empty()) {
    out.errors.push_back({"apiVersion", fielderr::required()});
  }
  if (kind.empty()) {
    out.errors.push_back({"kind", fielderr::required()});
  }
  if (!out.errors.empty()) {
    return out;
  }
  const KindInfo* info = registry.find(apiVersion, kind);
  if (info == nullptr) {
    out.errors.push_back(
        {"kind",
         fielderr::invalid(Json(kind), "no kind \"" + kind + "\" is registered for version \"" +
                                           apiVersion + "\"")});
    return out;
  }
  Object object(info, info->make());
  reflect::DecodeContext ctx{options.decode, out.errors};
  info->type->decode(document, object.raw(), reflect::PathNode{}, ctx);
  if (options.applyDefaults) {
    reflect::applyDefaults(*info->type, object.raw());
  }
  if (options.validate) {
    // Fields that failed to decode are left empty; report them once, not again as missing.
    std::vector<std::string> skip = options.elided;
    for (const FieldError& e : out.errors) {
      skip.push_back(e.path);
    }
    for (FieldError& e : validateObject(object)) {
      if (!coveredBy(e.path, skip)) {
        out.errors.push_back(std::move(e));
      }
    }
    if (options.requireName && object.metadata().name.empty() &&
        object.metadata().generateName.empty() && !coveredBy("metadata.name", options.elided)) {
      out.errors.push_back({"metadata.name", fielderr::required()});
    }
  }
  out.object = std::move(object);
  return out;
}

}  // namespace nodewright::api
