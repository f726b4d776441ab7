#pragma once

#include <chrono>
#include <optional>

#include "api/reflect/json.h"
#include "core/time.h"

// What the emulators' state files need from nlohmann beyond its own conversions: optionals
// (absent or null when unset), time points (microseconds since the epoch) and durations
// (microseconds), and a field-list macro for api::Json, which is nlohmann's ordered_json (the
// library's own NLOHMANN_DEFINE_TYPE_* macros only serve nlohmann::json in this version).
namespace nlohmann {

template <class T>
struct adl_serializer<std::optional<T>> {
  template <class BasicJson>
  static void to_json(BasicJson& j, const std::optional<T>& value) {
    if (value) {
      j = *value;
    } else {
      j = nullptr;
    }
  }
  template <class BasicJson>
  static void from_json(const BasicJson& j, std::optional<T>& value) {
    if (j.is_null()) {
      value.reset();
    } else {
      value = j.template get<T>();
    }
  }
};

template <>
struct adl_serializer<nodewright::core::TimePoint> {
  template <class BasicJson>
  static void to_json(BasicJson& j, const nodewright::core::TimePoint& t) {
    j = t.time_since_epoch().count();
  }
  template <class BasicJson>
  static void from_json(const BasicJson& j, nodewright::core::TimePoint& t) {
    t = nodewright::core::TimePoint(std::chrono::microseconds(j.template get<int64_t>()));
  }
};

template <>
struct adl_serializer<std::chrono::microseconds> {
  template <class BasicJson>
  static void to_json(BasicJson& j, const std::chrono::microseconds& d) {
    j = d.count();
  }
  template <class BasicJson>
  static void from_json(const BasicJson& j, std::chrono::microseconds& d) {
    d = std::chrono::microseconds(j.template get<int64_t>());
  }
};

}  // namespace nlohmann

// to_json and from_json of a struct's listed fields for api::Json, as file-local functions;
// use it in the struct's namespace (ADL finds them there), in a .cc file. Absent fields keep
// their default values, so a newer state file version can add fields; a field of the wrong JSON
// type throws nlohmann::json::type_error, which the state file's reader reports.
#define NW_STATE_FIELDS(Type, ...)                                                          \
  [[maybe_unused]] static void to_json(::nodewright::api::Json& nlohmann_json_j,            \
                                       const Type& nlohmann_json_t) {                       \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                \
  }                                                                                         \
  [[maybe_unused]] static void from_json(const ::nodewright::api::Json& nlohmann_json_j,    \
                                         Type& nlohmann_json_t) {                           \
    const Type nlohmann_json_default_obj{};                                                 \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__)) \
  }
