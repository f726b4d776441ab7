#pragma once

#include <nlohmann/json.hpp>

namespace nodewright::api {

// Objects keep their keys in declaration order so encoded manifests read like the upstream ones.
using Json = nlohmann::ordered_json;

}  // namespace nodewright::api
