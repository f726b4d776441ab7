#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"
#include "core/hash.h"

// Field metadata for the resource model. Every API struct describes its fields once (name,
// documentation, drift class, constraints); strict decoding, encoding, schema validation,
// defaulting, drift hashing, CRD schemas and `explain` are all derived from that description,
// so a field added to a struct cannot be forgotten by any of them.
namespace nodewright::api::reflect {

// How a field takes part in drift (seed 002): static fields drift by hash, dynamic fields
// (selectors) drift by resolving them again, behavioral fields never drift.
enum class Drift { Static, Dynamic, Behavioral };

// How a list is compared: in order, as a set (order-independent), or as a map keyed by some of
// its element fields (sorted by those keys; x-kubernetes-list-type: map).
enum class ListType { Atomic, Set, Map };

enum class TypeKind {
  String,
  Bool,
  Int32,
  Int64,
  Number,
  Quantity,
  Duration,
  Time,
  IntOrString,
  Any,
  Optional,
  Array,
  Map,
  Struct,
};

struct StructSchema;
struct FieldDesc;

// A path built on the stack while walking; rendered only when an error needs it.
struct PathNode {
  enum class Step { Root, Field, Index, Key };
  const PathNode* parent = nullptr;
  Step step = Step::Root;
  std::string_view name;
  size_t index = 0;

  PathNode field(std::string_view n) const { return PathNode{this, Step::Field, n, 0}; }
  PathNode at(size_t i) const { return PathNode{this, Step::Index, {}, i}; }
  PathNode key(std::string_view k) const { return PathNode{this, Step::Key, k, 0}; }
  std::string render() const;
};

struct DecodeOptions {
  // Unknown fields are errors (like kube-apiserver's fieldValidation=Strict).
  bool strict = true;
};

struct DecodeContext {
  const DecodeOptions& options;
  FieldErrors& errors;
  void error(const PathNode& path, std::string message) {
    errors.push_back(FieldError{path.render(), std::move(message)});
  }
};

struct HashOptions {
  // Only static fields take part (drift hashing). Off: every field.
  bool staticOnly = true;
};

// Type-erased operations for one C++ type. Built once per type by opsFor<T>().
struct TypeOps {
  TypeKind kind;
  const char* typeName;  // OpenAPI-ish name for explain: "string", "[]Taint", ...
  void (*decode)(const Json& in, void* out, const PathNode& path, DecodeContext& ctx);
  Json (*encode)(const void* value);
  bool (*isEmpty)(const void* value);
  void (*hash)(const void* value, const FieldDesc* field, const HashOptions& opts,
               core::Hasher& hasher);
  // Fills a deterministic sample value; different variants give different values.
  void (*sample)(void* value, const FieldDesc* field, int variant);
  // Containers: the element type and iteration (Optional: 0 or 1 element).
  const TypeOps* (*elem)();
  size_t (*size)(const void* value);
  void (*forEach)(
      const void* value,
      const std::function<void(std::string_view key, size_t index, const void* elem)>& fn);
  void (*forEachMutable)(
      void* value, const std::function<void(std::string_view key, size_t index, void* elem)>& fn);
  // Struct kind only.
  const StructSchema& (*structSchema)();
};

// One field of a struct: its JSON name, documentation, drift class and constraints.
struct FieldDesc {
  std::string name;
  std::string doc;
  const TypeOps* type = nullptr;
  void* (*get)(void* owner) = nullptr;
  const void* (*cget)(const void* owner) = nullptr;

  bool required = false;
  Drift drift = Drift::Static;
  ListType listType = ListType::Atomic;
  std::vector<std::string> listMapKeys;
  // Constraints on the scalar leaf (for lists and maps: on each element).
  std::vector<std::string> enumValues;
  std::optional<int64_t> minimum;
  std::optional<int64_t> maximum;
  std::optional<size_t> minItems;
  std::optional<size_t> maxItems;
  std::optional<size_t> maxLength;
  std::string pattern;  // documented in the CRD schema; enforced by the struct's validator
  std::string format;
  std::optional<Json> defaultValue;
  // May hold secrets (userData): drift snapshots, diffs and messages show a fingerprint of the
  // value, never the value.
  bool sensitive = false;
};

using StructValidator = std::function<void(const void* value, const FieldPath& path, FieldErrors&)>;
using StructDefaulter = std::function<void(void* value)>;

struct StructSchema {
  std::string name;
  std::string doc;
  std::vector<FieldDesc> fields;
  std::unordered_map<std::string, size_t> byName;
  // Where a struct keeps fields it does not model (core kinds we only partly model); absent means
  // unknown fields are rejected in strict mode.
  void* (*unknown)(void* owner) = nullptr;
  const void* (*cunknown)(const void* owner) = nullptr;
  std::vector<StructValidator> validators;
  std::vector<StructDefaulter> defaulters;
  // Field names that are recognised only to be refused, with the reason (e.g. fixed IPs).
  std::unordered_map<std::string, std::string> forbidden;

  const FieldDesc* find(std::string_view name) const;
};

// describe(Tag<T>) is found by argument-dependent lookup in T's namespace.
template <class T>
struct Tag {};

template <class T>
concept Described = requires {
  { describe(Tag<T>{}) } -> std::same_as<const StructSchema&>;
};

template <class M>
struct MemberTraits;
template <class C, class M>
struct MemberTraits<M C::*> {
  using Owner = C;
  using Type = M;
};

template <class T>
const TypeOps& opsFor();

// Builds a StructSchema; modifiers (required(), behavioral(), ...) apply to the last field.
template <class T>
class StructBuilder {
 public:
  StructBuilder(std::string name, std::string doc) {
    schema_.name = std::move(name);
    schema_.doc = std::move(doc);
  }

  template <auto Member>
  StructBuilder& field(std::string name, std::string doc) {
    using M = typename MemberTraits<decltype(Member)>::Type;
    static_assert(std::is_same_v<typename MemberTraits<decltype(Member)>::Owner, T>);
    FieldDesc f;
    f.name = std::move(name);
    f.doc = std::move(doc);
    f.type = &opsFor<M>();
    f.get = [](void* owner) -> void* { return &(static_cast<T*>(owner)->*Member); };
    f.cget = [](const void* owner) -> const void* {
      return &(static_cast<const T*>(owner)->*Member);
    };
    schema_.fields.push_back(std::move(f));
    return *this;
  }

  StructBuilder& required() {
    return set([](FieldDesc& f) { f.required = true; });
  }
  StructBuilder& behavioral() {
    return set([](FieldDesc& f) { f.drift = Drift::Behavioral; });
  }
  StructBuilder& dynamic() {
    return set([](FieldDesc& f) { f.drift = Drift::Dynamic; });
  }
  StructBuilder& setList() {
    return set([](FieldDesc& f) { f.listType = ListType::Set; });
  }
  StructBuilder& mapList(std::vector<std::string> keys) {
    return set([&](FieldDesc& f) {
      f.listType = ListType::Map;
      f.listMapKeys = std::move(keys);
    });
  }
  StructBuilder& enums(std::vector<std::string> values) {
    return set([&](FieldDesc& f) { f.enumValues = std::move(values); });
  }
  StructBuilder& min(int64_t v) {
    return set([&](FieldDesc& f) { f.minimum = v; });
  }
  StructBuilder& max(int64_t v) {
    return set([&](FieldDesc& f) { f.maximum = v; });
  }
  StructBuilder& minItems(size_t v) {
    return set([&](FieldDesc& f) { f.minItems = v; });
  }
  StructBuilder& maxItems(size_t v) {
    return set([&](FieldDesc& f) { f.maxItems = v; });
  }
  StructBuilder& maxLength(size_t v) {
    return set([&](FieldDesc& f) { f.maxLength = v; });
  }
  StructBuilder& pattern(std::string p) {
    return set([&](FieldDesc& f) { f.pattern = std::move(p); });
  }
  StructBuilder& format(std::string fmt) {
    return set([&](FieldDesc& f) { f.format = std::move(fmt); });
  }
  StructBuilder& sensitive() {
    return set([](FieldDesc& f) { f.sensitive = true; });
  }
  StructBuilder& defaultsTo(Json value) {
    return set([&](FieldDesc& f) { f.defaultValue = std::move(value); });
  }

  // Unmodelled fields are kept in this Json member instead of being rejected.
  template <auto Member>
  StructBuilder& keepUnknownIn() {
    schema_.unknown = [](void* owner) -> void* { return &(static_cast<T*>(owner)->*Member); };
    schema_.cunknown = [](const void* owner) -> const void* {
      return &(static_cast<const T*>(owner)->*Member);
    };
    return *this;
  }

  // A field users may write (it exists upstream) that this model refuses, with the reason.
  StructBuilder& forbid(std::string name, std::string reason) {
    schema_.forbidden.emplace(std::move(name), std::move(reason));
    return *this;
  }

  // Cross-field rules that the per-field constraints cannot express.
  StructBuilder& validate(std::function<void(const T&, const FieldPath&, FieldErrors&)> fn) {
    schema_.validators.push_back(
        [fn = std::move(fn)](const void* v, const FieldPath& p, FieldErrors& errs) {
          fn(*static_cast<const T*>(v), p, errs);
        });
    return *this;
  }
  StructBuilder& defaults(std::function<void(T&)> fn) {
    schema_.defaulters.push_back([fn = std::move(fn)](void* v) { fn(*static_cast<T*>(v)); });
    return *this;
  }

  StructSchema build() {
    for (size_t i = 0; i < schema_.fields.size(); ++i) {
      schema_.byName.emplace(schema_.fields[i].name, i);
    }
    return std::move(schema_);
  }

 private:
  template <class Fn>
  StructBuilder& set(Fn&& fn) {
    fn(schema_.fields.back());
    return *this;
  }

  StructSchema schema_;
};

}  // namespace nodewright::api::reflect

#include "api/reflect/type_ops.h"
