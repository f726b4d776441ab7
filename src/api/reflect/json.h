#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nodewright::api {

// Objects keep their keys in declaration order so encoded manifests read like the upstream ones.
using Json = nlohmann::ordered_json;

// Compact text of a value. Invalid UTF-8 in strings (possible from YAML input) is replaced
// rather than thrown, so rendering an error or hashing never fails.
inline std::string dumpJson(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace nodewright::api
