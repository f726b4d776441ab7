#include "api/reflect/field_errors.h"

namespace nodewright::api {
namespace fielderr {
namespace {

std::string render(const Json& value) {
  if (value.is_string()) {
    return "\"" + value.get<std::string>() + "\"";
  }
  return dumpJson(value);
}

}  // namespace

std::string required() {
  return "Required value";
}

std::string invalid(const Json& value, std::string_view detail) {
  std::string out = "Invalid value: " + render(value);
  if (!detail.empty()) {
    out += ": ";
    out += detail;
  }
  return out;
}

std::string unsupported(const Json& value, const std::vector<std::string>& supported) {
  std::string out = "Unsupported value: " + render(value) + ": supported values: ";
  for (size_t i = 0; i < supported.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += "\"" + supported[i] + "\"";
  }
  return out;
}

std::string duplicate(const Json& value) {
  return "Duplicate value: " + render(value);
}

std::string forbidden(std::string_view detail) {
  return "Forbidden: " + std::string(detail);
}

std::string tooMany(size_t actual, size_t max) {
  return "Too many: " + std::to_string(actual) + ": must have at most " + std::to_string(max) +
         " items";
}

std::string unknownField() {
  return "field not declared in schema";
}

std::string wrongType(const Json& value, std::string_view type) {
  return invalid(value, "must be of type " + std::string(type));
}

}  // namespace fielderr

FieldPath FieldPath::child(std::string_view name) const {
  FieldPath out(path_);
  if (!out.path_.empty()) {
    out.path_ += '.';
  }
  out.path_ += name;
  return out;
}

FieldPath FieldPath::index(size_t i) const {
  FieldPath out(path_);
  out.path_ += '[';
  out.path_ += std::to_string(i);
  out.path_ += ']';
  return out;
}

FieldPath FieldPath::key(std::string_view key) const {
  FieldPath out(path_);
  out.path_ += '[';
  out.path_ += key;
  out.path_ += ']';
  return out;
}

}  // namespace nodewright::api
