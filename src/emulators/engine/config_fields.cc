#include "emulators/engine/config_fields.h"

#include <limits>

#include "core/duration.h"

namespace nodewright::emulators {

using api::FieldPath;
using api::Json;
namespace fielderr = api::fielderr;

ConfigFields::ConfigFields(const Json& value, FieldPath path, api::FieldErrors& errors)
    : path_(std::move(path)), errors_(errors) {
  if (value.is_object()) {
    object_ = &value;
  } else if (!value.is_null()) {
    errors_.push_back({path_.str(), fielderr::wrongType(value, "object")});
  }
}

const Json* ConfigFields::field(std::string_view name) {
  known_.emplace(name);
  if (object_ == nullptr) {
    return nullptr;
  }
  auto it = object_->find(name);
  if (it == object_->end() || it->is_null()) {
    return nullptr;
  }
  return &*it;
}

std::optional<std::string> ConfigFields::string(std::string_view name) {
  const Json* v = field(name);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_string()) {
    error(name, fielderr::wrongType(*v, "string"));
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<double> ConfigFields::number(std::string_view name) {
  const Json* v = field(name);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_number()) {
    error(name, fielderr::wrongType(*v, "number"));
    return std::nullopt;
  }
  return v->get<double>();
}

std::optional<int64_t> ConfigFields::integer(std::string_view name) {
  const Json* v = field(name);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (v->is_number_unsigned() &&
      v->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    error(name, fielderr::invalid(*v, "too large"));
    return std::nullopt;
  }
  if (!v->is_number_integer()) {
    error(name, fielderr::wrongType(*v, "integer"));
    return std::nullopt;
  }
  return v->get<int64_t>();
}

std::optional<bool> ConfigFields::boolean(std::string_view name) {
  const Json* v = field(name);
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_boolean()) {
    error(name, fielderr::wrongType(*v, "boolean"));
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<std::chrono::microseconds> ConfigFields::duration(std::string_view name) {
  const Json* v = field(name);
  if (v == nullptr) {
    return std::nullopt;
  }
  return readDuration(*v, path(name), errors_);
}

void ConfigFields::error(std::string_view name, std::string message) {
  errors_.push_back({path(name).str(), std::move(message)});
}

void ConfigFields::rejectUnknown() {
  if (object_ == nullptr) {
    return;
  }
  for (const auto& [key, value] : object_->items()) {
    if (!known_.contains(key)) {
      errors_.push_back({path(key).str(), fielderr::unknownField()});
    }
  }
}

std::optional<std::chrono::microseconds> readDuration(const Json& value, const FieldPath& path,
                                                      api::FieldErrors& errors) {
  if (!value.is_string()) {
    errors.push_back({path.str(), fielderr::invalid(value, "must be a duration such as \"30s\"")});
    return std::nullopt;
  }
  auto parsed = core::Duration::parse(value.get<std::string>());
  if (!parsed || parsed->isNever()) {
    errors.push_back({path.str(), fielderr::invalid(value, "must be a duration such as \"30s\"")});
    return std::nullopt;
  }
  if (parsed->value().count() < 0) {
    errors.push_back({path.str(), fielderr::invalid(value, "must not be negative")});
    return std::nullopt;
  }
  return std::chrono::duration_cast<std::chrono::microseconds>(parsed->value());
}

std::string renderDuration(std::chrono::microseconds d) {
  return core::Duration(d).toString();
}

core::Error invalidConfig(const api::FieldErrors& errors) {
  std::string out;
  for (const api::FieldError& e : errors) {
    if (!out.empty()) {
      out += "; ";
    }
    out += e.toString();
  }
  return core::Error::invalid(out);
}

}  // namespace nodewright::emulators
