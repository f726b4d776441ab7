#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"
#include "core/error.h"

namespace nodewright::emulators {

// Reads one JSON object of an engine configuration (faults, latencies), recording every problem
// with its field path ("errors.RunInstances[0].probability: ...") instead of stopping at the
// first, and rejecting unknown keys so a misspelt field is not silently ignored.
class ConfigFields {
 public:
  // Records a type error when `value` is not an object (then every read finds nothing).
  ConfigFields(const api::Json& value, api::FieldPath path, api::FieldErrors& errors);

  // The field's value, or null when absent; marks the name as known.
  const api::Json* field(std::string_view name);
  std::optional<std::string> string(std::string_view name);
  std::optional<double> number(std::string_view name);
  std::optional<int64_t> integer(std::string_view name);
  std::optional<bool> boolean(std::string_view name);
  // Go duration syntax ("30s", "1m30s"); negative durations are rejected.
  std::optional<std::chrono::microseconds> duration(std::string_view name);

  api::FieldPath path(std::string_view name) const { return path_.child(name); }
  void error(std::string_view name, std::string message);
  // Records every key that no read asked for.
  void rejectUnknown();

 private:
  const api::Json* object_ = nullptr;
  api::FieldPath path_;
  api::FieldErrors& errors_;
  std::set<std::string, std::less<>> known_;
};

// A duration value (a Go duration string) at `path`.
std::optional<std::chrono::microseconds> readDuration(const api::Json& value,
                                                      const api::FieldPath& path,
                                                      api::FieldErrors& errors);
std::string renderDuration(std::chrono::microseconds d);

// All errors as one Invalid error, "path: message; path: message".
core::Error invalidConfig(const api::FieldErrors& errors);

}  // namespace nodewright::emulators
