#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "api/reflect/json.h"
#include "core/error.h"

namespace nodewright::api {

// kube-apiserver's JSON decoder (sigs.k8s.io/json) refuses nesting deeper than this; so does
// go-yaml for YAML. Everything downstream of a decoder (copies, dumps, the reflect walk,
// pruning, patches, tables) recurses once per level, so the limit is also what keeps a
// request from overflowing a server thread's stack.
inline constexpr size_t kMaxNestingDepth = 10000;

// Byte offset of the first '[' or '{' (outside strings) that opens level limit + 1, or nullopt.
// Linear and allocation-free: it runs before any value is built.
std::optional<size_t> findExcessiveNesting(std::string_view json, size_t limit = kMaxNestingDepth);

// Strict JSON (one value, nothing after it) nested at most kMaxNestingDepth deep, in time
// linear in the number of object members. A repeated key keeps its first position and takes
// the last value, as Json::parse. The error says which rule the text broke: "exceeded max depth
// of 10000" or "invalid JSON".
core::Result<Json> parseJson(std::string_view text);

}  // namespace nodewright::api
