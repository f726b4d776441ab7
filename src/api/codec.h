#pragma once

#include <cstdint>
#include <string>

#include "api/reflect/operations.h"
#include "api/reflect/schema.h"

// Typed entry points to the metadata-driven operations.
namespace nodewright::api {

using reflect::DecodeOptions;
using reflect::HashOptions;

// Strict decode of `in` into `out`; every problem is returned, none stops the walk.
template <class T>
FieldErrors decodeJson(const Json& in, T& out, const DecodeOptions& options = {}) {
  FieldErrors errors;
  reflect::DecodeContext ctx{options, errors};
  reflect::opsFor<T>().decode(in, &out, reflect::PathNode{}, ctx);
  return errors;
}

template <class T>
Json toJson(const T& value) {
  return reflect::opsFor<T>().encode(&value);
}

// Schema constraints plus cross-field rules; `root` prefixes every path ("spec").
template <class T>
FieldErrors validateValue(const T& value, std::string_view root = {}) {
  FieldErrors errors;
  reflect::PathNode path{nullptr, reflect::PathNode::Step::Root, root, 0};
  reflect::validateValue(reflect::opsFor<T>(), &value, nullptr, path, errors);
  return errors;
}

template <class T>
void applyDefaults(T& value) {
  reflect::applyDefaults(reflect::opsFor<T>(), &value);
}

// Deterministic and independent of the order of set-like lists and maps. With staticOnly
// (the default), dynamic and behavioral fields do not take part.
template <class T>
uint64_t hashOf(const T& value, const HashOptions& options = {}) {
  core::Hasher hasher;
  reflect::opsFor<T>().hash(&value, nullptr, options, hasher);
  return hasher.value();
}

// The decimal form Karpenter writes to hash annotations.
inline std::string hashString(uint64_t hash) {
  return std::to_string(hash);
}

}  // namespace nodewright::api
