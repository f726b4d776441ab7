#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"

namespace nodewright::api {

// One validation failure, rendered like apimachinery's field.Error:
// "spec.networkInterfaces[1].deviceIndex: Duplicate value: 1".
struct FieldError {
  std::string path;
  std::string message;

  std::string toString() const { return path.empty() ? message : path + ": " + message; }
  bool operator==(const FieldError&) const = default;
};

using FieldErrors = std::vector<FieldError>;

// Builders for the apimachinery message shapes.
namespace fielderr {
std::string required();
std::string invalid(const Json& value, std::string_view detail);
std::string unsupported(const Json& value, const std::vector<std::string>& supported);
std::string duplicate(const Json& value);
std::string forbidden(std::string_view detail);
std::string tooMany(size_t actual, size_t max);
std::string unknownField();
std::string wrongType(const Json& value, std::string_view type);
}  // namespace fielderr

// A dotted path under construction, ".spec.template" style without the leading dot.
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string root) : path_(std::move(root)) {}

  FieldPath child(std::string_view name) const;
  FieldPath index(size_t i) const;
  FieldPath key(std::string_view key) const;
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

}  // namespace nodewright::api
