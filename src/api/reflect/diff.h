#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/schema.h"

// What drift hashing covers, made visible: the static fields of a value as JSON (what a node was
// launched with) and the static fields that differ between two values, by field path. Both
// follow the same rules as the hash (api/codec.h hashOf): dynamic and behavioral fields are left
// out, empty fields count as absent, set lists compare as sets and map lists by their keys, so
// a diff is empty exactly when the hashes agree.
namespace nodewright::api::reflect {

struct FieldDiff {
  // "spec.userData", "spec.template.metadata.labels[team]",
  // "spec.networkInterfaces[networkCardIndex=0,deviceIndex=1].description".
  std::string path;
  Json from;  // null when absent
  Json to;    // null when absent
};

// The static fields of `value`, recursively; empty fields are omitted.
Json staticJson(const TypeOps& type, const void* value);

// Static fields that differ, in field order. Structs recurse; maps report one entry per key;
// map lists match elements by their keys and recurse into matched pairs (an element present on
// one side only is one entry with the whole element); set and atomic lists that differ are one
// entry with both whole lists; scalars are one entry. An empty struct, map or map list counts as
// one with no entries, so its counterpart's entries are reported one by one; an absent optional
// is reported against the whole present value.
std::vector<FieldDiff> staticDiff(const TypeOps& type, const void* from, const void* to,
                                  const PathNode& path);

// "spec.userData: \"a\" -> \"b\"" (compact JSON; "<absent>" for null). Strings longer than
// `maxValue` characters are shortened with their length, so a large userData stays readable.
std::string describe(const FieldDiff& diff, size_t maxValue = 120);

}  // namespace nodewright::api::reflect

namespace nodewright::api {

using reflect::FieldDiff;

template <class T>
Json staticJson(const T& value) {
  return reflect::staticJson(reflect::opsFor<T>(), &value);
}

// `root` prefixes every path ("spec", "spec.template").
template <class T>
std::vector<FieldDiff> staticDiff(const T& from, const T& to, std::string_view root = {}) {
  reflect::PathNode path{nullptr, reflect::PathNode::Step::Root, root, 0};
  return reflect::staticDiff(reflect::opsFor<T>(), &from, &to, path);
}

}  // namespace nodewright::api
