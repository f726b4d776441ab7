#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api/reflect/schema.h"

// Generic operations over any described type, driven by its field metadata.
namespace nodewright::api::reflect {

// Schema constraints (required, enums, bounds, item counts, list-map key uniqueness) and every
// struct's cross-field validators, appending errors under `path`.
void validateValue(const TypeOps& type, const void* value, const FieldDesc* field,
                   const PathNode& path, FieldErrors& errors);

// Fills declared defaults into empty fields, then runs struct defaulters; recurses into
// present values only.
void applyDefaults(const TypeOps& type, void* value);

// OpenAPI v3 (structural) schema of a type; `field` supplies constraints and list semantics.
Json openApiSchema(const TypeOps& type, const FieldDesc* field = nullptr);

// A scalar position in a type, for tests and tooling that walk every field.
struct Leaf {
  std::string path;  // "spec.template.spec.taints[].key"; "[]" for list items, "[*]" for map values
  Drift drift;       // the least static class on the way down
  const FieldDesc* field;
  const TypeOps* type;
  std::vector<const FieldDesc*> steps;  // struct fields on the way; nullptr = a container step
};
std::vector<Leaf> leaves(const TypeOps& root);

// The leaf's storage in `root`, taking the first element of every container on the way, or
// nullptr when a container is empty.
void* resolveLeaf(const TypeOps& root, void* value, const Leaf& leaf);

}  // namespace nodewright::api::reflect
