#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "api/reflect/json.h"

// Tolerant reads of stored objects for the table printers: a missing member, or one of another
// type, reads as the Go zero value the typed printers would have seen.
namespace nodewright::apiserver::table {

inline const api::Json* member(const api::Json& object,
                               std::initializer_list<std::string_view> path) {
  const api::Json* current = &object;
  for (std::string_view key : path) {
    if (!current->is_object()) {
      return nullptr;
    }
    auto it = current->find(key);
    if (it == current->end()) {
      return nullptr;
    }
    current = &*it;
  }
  return current;
}

inline std::string stringAt(const api::Json& object, std::initializer_list<std::string_view> path) {
  const api::Json* value = member(object, path);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

inline int64_t intAt(const api::Json& object, std::initializer_list<std::string_view> path) {
  const api::Json* value = member(object, path);
  if (value == nullptr || !value->is_number()) {
    return 0;
  }
  return value->is_number_float() ? static_cast<int64_t>(value->get<double>())
                                  : value->get<int64_t>();
}

inline bool boolAt(const api::Json& object, std::initializer_list<std::string_view> path) {
  const api::Json* value = member(object, path);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

// The array at `path`, or an empty one.
inline const api::Json& arrayAt(const api::Json& object,
                                std::initializer_list<std::string_view> path) {
  static const api::Json kEmpty = api::Json::array();
  const api::Json* value = member(object, path);
  return value != nullptr && value->is_array() ? *value : kEmpty;
}

// The number of members of the object at `path` (secret data, config map data).
inline int64_t sizeAt(const api::Json& object, std::initializer_list<std::string_view> path) {
  const api::Json* value = member(object, path);
  return value != nullptr && value->is_object() ? static_cast<int64_t>(value->size()) : 0;
}

}  // namespace nodewright::apiserver::table
