#pragma once

// Implementation of opsFor<T>(); included from schema.h only.

#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "api/reflect/int_or_string.h"
#include "core/duration.h"
#include "core/quantity.h"
#include "core/time.h"

namespace nodewright::api::reflect {
namespace detail {

template <class T>
struct IsOptional : std::false_type {};
template <class U>
struct IsOptional<std::optional<U>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class U>
struct IsVector<std::vector<U>> : std::true_type {};
template <class T>
struct IsStringMap : std::false_type {};
template <class U>
struct IsStringMap<std::map<std::string, U>> : std::true_type {};

// Non-template drivers (walk.cc).
const TypeOps& stringOps();
const TypeOps& boolOps();
const TypeOps& int32Ops();
const TypeOps& int64Ops();
const TypeOps& numberOps();
const TypeOps& quantityOps();
const TypeOps& durationOps();
const TypeOps& timeOps();
const TypeOps& intOrStringOps();
const TypeOps& anyOps();

void decodeStruct(const StructSchema& s, const Json& in, void* out, const PathNode& path,
                  DecodeContext& ctx);
Json encodeStruct(const StructSchema& s, const void* value);
bool isEmptyStruct(const StructSchema& s, const void* value);
void hashStruct(const StructSchema& s, const void* value, const HashOptions& opts,
                core::Hasher& hasher);
void sampleStruct(const StructSchema& s, void* value, int variant);
void hashArray(const TypeOps& elem, size_t n, const std::function<const void*(size_t)>& at,
               const FieldDesc* field, const HashOptions& opts, core::Hasher& hasher);
void wrongType(const Json& in, const char* type, const PathNode& path, DecodeContext& ctx);

template <class U>
const TypeOps& optionalOps() {
  using O = std::optional<U>;
  static const TypeOps ops{
      TypeKind::Optional,
      opsFor<U>().typeName,
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        auto& o = *static_cast<O*>(out);
        if (in.is_null()) {
          o.reset();
          return;
        }
        o.emplace();
        opsFor<U>().decode(in, &*o, path, ctx);
      },
      [](const void* v) -> Json {
        const auto& o = *static_cast<const O*>(v);
        return o ? opsFor<U>().encode(&*o) : Json();
      },
      [](const void* v) { return !static_cast<const O*>(v)->has_value(); },
      [](const void* v, const FieldDesc* f, const HashOptions& opts, core::Hasher& h) {
        const auto& o = *static_cast<const O*>(v);
        h.addTag(o ? 'P' : 'A');
        if (o) {
          opsFor<U>().hash(&*o, f, opts, h);
        }
      },
      [](void* v, const FieldDesc* f, int variant) {
        auto& o = *static_cast<O*>(v);
        o.emplace();
        opsFor<U>().sample(&*o, f, variant);
      },
      []() -> const TypeOps* { return &opsFor<U>(); },
      [](const void* v) -> size_t { return static_cast<const O*>(v)->has_value() ? 1 : 0; },
      [](const void* v, const std::function<void(std::string_view, size_t, const void*)>& fn) {
        const auto& o = *static_cast<const O*>(v);
        if (o) {
          fn({}, 0, &*o);
        }
      },
      [](void* v, const std::function<void(std::string_view, size_t, void*)>& fn) {
        auto& o = *static_cast<O*>(v);
        if (o) {
          fn({}, 0, &*o);
        }
      },
      nullptr,
  };
  return ops;
}

template <class U>
const TypeOps& vectorOps() {
  using V = std::vector<U>;
  static const std::string name = std::string("[]") + opsFor<U>().typeName;
  static const TypeOps ops{
      TypeKind::Array,
      name.c_str(),
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        auto& v = *static_cast<V*>(out);
        v.clear();
        if (in.is_null()) {
          return;
        }
        if (!in.is_array()) {
          wrongType(in, "array", path, ctx);
          return;
        }
        v.resize(in.size());
        for (size_t i = 0; i < in.size(); ++i) {
          opsFor<U>().decode(in[i], &v[i], path.at(i), ctx);
        }
      },
      [](const void* value) -> Json {
        const auto& v = *static_cast<const V*>(value);
        Json out = Json::array();
        for (const auto& e : v) {
          out.push_back(opsFor<U>().encode(&e));
        }
        return out;
      },
      [](const void* v) { return static_cast<const V*>(v)->empty(); },
      [](const void* value, const FieldDesc* f, const HashOptions& opts, core::Hasher& h) {
        const auto& v = *static_cast<const V*>(value);
        hashArray(
            opsFor<U>(), v.size(), [&](size_t i) -> const void* { return &v[i]; }, f, opts, h);
      },
      [](void* value, const FieldDesc* f, int variant) {
        auto& v = *static_cast<V*>(value);
        v.assign(1, U{});
        opsFor<U>().sample(&v[0], f, variant);
      },
      []() -> const TypeOps* { return &opsFor<U>(); },
      [](const void* v) -> size_t { return static_cast<const V*>(v)->size(); },
      [](const void* value, const std::function<void(std::string_view, size_t, const void*)>& fn) {
        const auto& v = *static_cast<const V*>(value);
        for (size_t i = 0; i < v.size(); ++i) {
          fn({}, i, &v[i]);
        }
      },
      [](void* value, const std::function<void(std::string_view, size_t, void*)>& fn) {
        auto& v = *static_cast<V*>(value);
        for (size_t i = 0; i < v.size(); ++i) {
          fn({}, i, &v[i]);
        }
      },
      nullptr,
  };
  return ops;
}

template <class U>
const TypeOps& mapOps() {
  using M = std::map<std::string, U>;
  static const std::string name = std::string("map[string]") + opsFor<U>().typeName;
  static const TypeOps ops{
      TypeKind::Map,
      name.c_str(),
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        auto& m = *static_cast<M*>(out);
        m.clear();
        if (in.is_null()) {
          return;
        }
        if (!in.is_object()) {
          wrongType(in, "object", path, ctx);
          return;
        }
        for (const auto& [k, v] : in.items()) {
          opsFor<U>().decode(v, &m[k], path.key(k), ctx);
        }
      },
      [](const void* value) -> Json {
        const auto& m = *static_cast<const M*>(value);
        Json out = Json::object();
        for (const auto& [k, v] : m) {
          out[k] = opsFor<U>().encode(&v);
        }
        return out;
      },
      [](const void* v) { return static_cast<const M*>(v)->empty(); },
      [](const void* value, const FieldDesc* f, const HashOptions& opts, core::Hasher& h) {
        // std::map iterates in key order, so the hash is independent of input order.
        const auto& m = *static_cast<const M*>(value);
        h.addTag('M');
        h.addU64(m.size());
        for (const auto& [k, v] : m) {
          h.addString(k);
          opsFor<U>().hash(&v, f, opts, h);
        }
      },
      [](void* value, const FieldDesc* f, int variant) {
        auto& m = *static_cast<M*>(value);
        m.clear();
        opsFor<U>().sample(&m["key" + std::to_string(variant)], f, variant);
      },
      []() -> const TypeOps* { return &opsFor<U>(); },
      [](const void* v) -> size_t { return static_cast<const M*>(v)->size(); },
      [](const void* value, const std::function<void(std::string_view, size_t, const void*)>& fn) {
        size_t i = 0;
        for (const auto& [k, v] : *static_cast<const M*>(value)) {
          fn(k, i++, &v);
        }
      },
      [](void* value, const std::function<void(std::string_view, size_t, void*)>& fn) {
        size_t i = 0;
        for (auto& [k, v] : *static_cast<M*>(value)) {
          fn(k, i++, &v);
        }
      },
      nullptr,
  };
  return ops;
}

template <class T>
const TypeOps& structOps() {
  static const TypeOps ops{
      TypeKind::Struct,
      describe(Tag<T>{}).name.c_str(),
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        decodeStruct(describe(Tag<T>{}), in, out, path, ctx);
      },
      [](const void* v) { return encodeStruct(describe(Tag<T>{}), v); },
      [](const void* v) { return isEmptyStruct(describe(Tag<T>{}), v); },
      [](const void* v, const FieldDesc*, const HashOptions& opts, core::Hasher& h) {
        hashStruct(describe(Tag<T>{}), v, opts, h);
      },
      [](void* v, const FieldDesc*, int variant) { sampleStruct(describe(Tag<T>{}), v, variant); },
      nullptr,
      nullptr,
      nullptr,
      nullptr,
      []() -> const StructSchema& { return describe(Tag<T>{}); },
  };
  return ops;
}

}  // namespace detail

template <class T>
const TypeOps& opsFor() {
  if constexpr (std::is_same_v<T, std::string>) {
    return detail::stringOps();
  } else if constexpr (std::is_same_v<T, bool>) {
    return detail::boolOps();
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return detail::int32Ops();
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return detail::int64Ops();
  } else if constexpr (std::is_same_v<T, double>) {
    return detail::numberOps();
  } else if constexpr (std::is_same_v<T, core::Quantity>) {
    return detail::quantityOps();
  } else if constexpr (std::is_same_v<T, core::Duration>) {
    return detail::durationOps();
  } else if constexpr (std::is_same_v<T, core::Time>) {
    return detail::timeOps();
  } else if constexpr (std::is_same_v<T, IntOrString>) {
    return detail::intOrStringOps();
  } else if constexpr (std::is_same_v<T, Json>) {
    return detail::anyOps();
  } else if constexpr (detail::IsOptional<T>::value) {
    return detail::optionalOps<typename T::value_type>();
  } else if constexpr (detail::IsVector<T>::value) {
    return detail::vectorOps<typename T::value_type>();
  } else if constexpr (detail::IsStringMap<T>::value) {
    return detail::mapOps<typename T::mapped_type>();
  } else {
    static_assert(Described<T>, "type has no describe(reflect::Tag<T>) and is not a known scalar");
    return detail::structOps<T>();
  }
}

}  // namespace nodewright::api::reflect
