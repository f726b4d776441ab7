#pragma once

#include <memory>
#include <optional>
#include <string>

#include "api/meta.h"
#include "api/registry.h"

namespace nodewright::api {

// A decoded object of any registered kind.
class Object {
 public:
  Object(const KindInfo* info, std::shared_ptr<void> data) : info_(info), data_(std::move(data)) {}

  const KindInfo& info() const { return *info_; }
  template <class T>
  T* as() const {
    return info_->type == &reflect::opsFor<T>() ? static_cast<T*>(data_.get()) : nullptr;
  }
  void* raw() { return data_.get(); }
  const void* raw() const { return data_.get(); }
  const ObjectMeta& metadata() const;
  Json toJson() const;

 private:
  const KindInfo* info_;
  std::shared_ptr<void> data_;
};

struct ObjectOptions {
  reflect::DecodeOptions decode;
  bool applyDefaults = true;
  bool validate = true;
  // Paths left out on purpose (documentation ellipses); no "Required value" is reported there.
  std::vector<std::string> elided;
  // metadata.name is required, as kube-apiserver requires it on create.
  bool requireName = true;
};

struct DecodedObject {
  std::optional<Object> object;  // set unless apiVersion/kind are unusable
  FieldErrors errors;
};

// Reads apiVersion and kind, decodes strictly, defaults and validates; every error at once.
DecodedObject decodeObject(const Json& document, const Registry& registry,
                           const ObjectOptions& options = {});

// The object's validation errors (schema plus cross-field), paths from the object root.
FieldErrors validateObject(const Object& object);

}  // namespace nodewright::api
