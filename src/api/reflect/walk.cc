#include <algorithm>
#include <numeric>

#include "api/reflect/redact.h"
#include "api/reflect/schema.h"
#include "core/check.h"

namespace nodewright::api::reflect {

std::string PathNode::render() const {
  std::vector<const PathNode*> chain;
  for (const PathNode* n = this; n != nullptr; n = n->parent) {
    chain.push_back(n);
  }
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const PathNode& n = **it;
    switch (n.step) {
      case Step::Root:
        out += n.name;
        break;
      case Step::Field:
        if (!out.empty()) {
          out += '.';
        }
        out += n.name;
        break;
      case Step::Index:
        out += '[' + std::to_string(n.index) + ']';
        break;
      case Step::Key:
        out += '[';
        out += n.name;
        out += ']';
        break;
    }
  }
  return out;
}

const FieldDesc* StructSchema::find(std::string_view name) const {
  auto it = byName.find(std::string(name));
  return it == byName.end() ? nullptr : &fields[it->second];
}

namespace detail {
namespace {

using ForEachConst = std::function<void(std::string_view, size_t, const void*)>;
using ForEachMut = std::function<void(std::string_view, size_t, void*)>;

int64_t sampleInt(const FieldDesc* f, int variant) {
  int64_t lo = (f != nullptr && f->minimum) ? *f->minimum : 0;
  int64_t hi = (f != nullptr && f->maximum) ? *f->maximum : lo + 1000;
  int64_t v = lo + 1 + variant;
  if (v > hi) {
    v = lo + (variant % (hi - lo + 1));
  }
  return v;
}

// Scalar TypeOps share everything but decode/encode/hash/sample.
TypeOps scalar(TypeKind kind, const char* name, decltype(TypeOps::decode) decode,
               decltype(TypeOps::encode) encode, decltype(TypeOps::isEmpty) isEmpty,
               decltype(TypeOps::hash) hash, decltype(TypeOps::sample) sample) {
  return TypeOps{kind,   name,    decode,  encode,  isEmpty, hash,
                 sample, nullptr, nullptr, nullptr, nullptr, nullptr};
}

std::string canonicalDump(const Json& j) {
  // ordered_json keeps input order; hash the key-sorted form so order does not matter.
  return nlohmann::json::parse(dumpJson(j))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void wrongType(const Json& in, const char* type, const PathNode& path, DecodeContext& ctx) {
  ctx.error(path, fielderr::wrongType(in, type));
}

const TypeOps& stringOps() {
  static const TypeOps ops = scalar(
      TypeKind::String, "string",
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        if (in.is_null()) {
          return;
        }
        if (!in.is_string()) {
          wrongType(in, "string", path, ctx);
          return;
        }
        *static_cast<std::string*>(out) = in.get_ref<const std::string&>();
      },
      [](const void* v) { return Json(*static_cast<const std::string*>(v)); },
      [](const void* v) { return static_cast<const std::string*>(v)->empty(); },
      [](const void* v, const FieldDesc* f, const HashOptions&, core::Hasher& h) {
        h.addTag('S');
        const auto& s = *static_cast<const std::string*>(v);
        h.addString(f != nullptr && f->sensitive ? redacted(s) : s);
      },
      [](void* v, const FieldDesc* f, int variant) {
        auto& s = *static_cast<std::string*>(v);
        if (f != nullptr && !f->enumValues.empty()) {
          s = f->enumValues[static_cast<size_t>(variant) % f->enumValues.size()];
        } else {
          s = "v" + std::to_string(variant);
        }
      });
  return ops;
}

const TypeOps& boolOps() {
  static const TypeOps ops = scalar(
      TypeKind::Bool, "boolean",
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        if (in.is_null()) {
          return;
        }
        if (!in.is_boolean()) {
          wrongType(in, "boolean", path, ctx);
          return;
        }
        *static_cast<bool*>(out) = in.get<bool>();
      },
      [](const void* v) { return Json(*static_cast<const bool*>(v)); },
      [](const void* v) { return !*static_cast<const bool*>(v); },
      [](const void* v, const FieldDesc*, const HashOptions&, core::Hasher& h) {
        h.addTag(*static_cast<const bool*>(v) ? 'T' : 'F');
      },
      [](void* v, const FieldDesc*, int variant) { *static_cast<bool*>(v) = variant % 2 == 0; });
  return ops;
}

template <class I>
void decodeInt(const Json& in, void* out, const PathNode& path, DecodeContext& ctx,
               const char* type) {
  if (in.is_null()) {
    return;
  }
  if (in.is_number_unsigned() && in.get<uint64_t>() > uint64_t(std::numeric_limits<I>::max())) {
    ctx.error(path, fielderr::invalid(in, std::string("out of range for ") + type));
    return;
  }
  if (!in.is_number_integer()) {
    wrongType(in, "integer", path, ctx);
    return;
  }
  int64_t v = in.get<int64_t>();
  if (v < std::numeric_limits<I>::min() || v > std::numeric_limits<I>::max()) {
    ctx.error(path, fielderr::invalid(in, std::string("out of range for ") + type));
    return;
  }
  *static_cast<I*>(out) = static_cast<I>(v);
}

const TypeOps& int32Ops() {
  static const TypeOps ops = scalar(
      TypeKind::Int32, "integer",
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        decodeInt<int32_t>(in, out, path, ctx, "int32");
      },
      [](const void* v) { return Json(*static_cast<const int32_t*>(v)); },
      [](const void* v) { return *static_cast<const int32_t*>(v) == 0; },
      [](const void* v, const FieldDesc*, const HashOptions&, core::Hasher& h) {
        h.addTag('I');
        h.addU64(static_cast<uint64_t>(*static_cast<const int32_t*>(v)));
      },
      [](void* v, const FieldDesc* f, int variant) {
        *static_cast<int32_t*>(v) = static_cast<int32_t>(sampleInt(f, variant));
      });
  return ops;
}

const TypeOps& int64Ops() {
  static const TypeOps ops = scalar(
      TypeKind::Int64, "integer",
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        decodeInt<int64_t>(in, out, path, ctx, "int64");
      },
      [](const void* v) { return Json(*static_cast<const int64_t*>(v)); },
      [](const void* v) { return *static_cast<const int64_t*>(v) == 0; },
      [](const void* v, const FieldDesc*, const HashOptions&, core::Hasher& h) {
        h.addTag('I');
        h.addU64(static_cast<uint64_t>(*static_cast<const int64_t*>(v)));
      },
      [](void* v, const FieldDesc* f, int variant) {
        *static_cast<int64_t*>(v) = sampleInt(f, variant);
      });
  return ops;
}

const TypeOps& numberOps() {
  static const TypeOps ops = scalar(
      TypeKind::Number, "number",
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        if (in.is_null()) {
          return;
        }
        if (!in.is_number()) {
          wrongType(in, "number", path, ctx);
          return;
        }
        *static_cast<double*>(out) = in.get<double>();
      },
      [](const void* v) { return Json(*static_cast<const double*>(v)); },
      [](const void* v) { return *static_cast<const double*>(v) == 0.0; },
      [](const void* v, const FieldDesc*, const HashOptions&, core::Hasher& h) {
        h.addTag('N');
        h.addString(dumpJson(Json(*static_cast<const double*>(v))));
      },
      [](void* v, const FieldDesc*, int variant) { *static_cast<double*>(v) = 0.5 + variant; });
  return ops;
}

const TypeOps& quantityOps() {
  static const TypeOps ops = scalar(
      TypeKind::Quantity, "Quantity",
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        if (in.is_null()) {
          return;
        }
        std::string text;
        if (in.is_string()) {
          text = in.get<std::string>();
        } else if (in.is_number()) {
          text = dumpJson(in);
        } else {
          wrongType(in, "string or number", path, ctx);
          return;
        }
        auto q = core::Quantity::parse(text);
        if (!q) {
          ctx.error(path, fielderr::invalid(in, q.error().message()));
          return;
        }
        *static_cast<core::Quantity*>(out) = *q;
      },
      [](const void* v) { return Json(static_cast<const core::Quantity*>(v)->toString()); },
      [](const void* v) { return static_cast<const core::Quantity*>(v)->isZero(); },
      [](const void* v, const FieldDesc*, const HashOptions&, core::Hasher& h) {
        h.addTag('Q');
        h.addString(static_cast<const core::Quantity*>(v)->toString());
      },
      [](void* v, const FieldDesc*, int variant) {
        *static_cast<core::Quantity*>(v) = core::Quantity::fromInt(variant + 1);
      });
  return ops;
}

const TypeOps& durationOps() {
  static const TypeOps ops = scalar(
      TypeKind::Duration, "Duration",
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        if (in.is_null()) {
          return;
        }
        if (!in.is_string()) {
          wrongType(in, "string", path, ctx);
          return;
        }
        auto d = core::Duration::parse(in.get<std::string>());
        if (!d) {
          ctx.error(path, fielderr::invalid(in, d.error().message()));
          return;
        }
        *static_cast<core::Duration*>(out) = *d;
      },
      [](const void* v) { return Json(static_cast<const core::Duration*>(v)->toString()); },
      [](const void* v) {
        const auto& d = *static_cast<const core::Duration*>(v);
        return !d.isNever() && d.value().count() == 0;
      },
      [](const void* v, const FieldDesc*, const HashOptions&, core::Hasher& h) {
        h.addTag('D');
        h.addString(static_cast<const core::Duration*>(v)->toString());
      },
      [](void* v, const FieldDesc*, int variant) {
        *static_cast<core::Duration*>(v) = core::Duration(std::chrono::seconds(variant + 1));
      });
  return ops;
}

const TypeOps& timeOps() {
  static const TypeOps ops = scalar(
      TypeKind::Time, "Time",
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        if (in.is_null()) {
          return;
        }
        if (!in.is_string()) {
          wrongType(in, "string", path, ctx);
          return;
        }
        auto t = core::Time::parse(in.get<std::string>());
        if (!t) {
          ctx.error(path, fielderr::invalid(in, t.error().message()));
          return;
        }
        *static_cast<core::Time*>(out) = *t;
      },
      [](const void* v) { return Json(static_cast<const core::Time*>(v)->toString()); },
      [](const void* v) { return static_cast<const core::Time*>(v)->isZero(); },
      [](const void* v, const FieldDesc*, const HashOptions&, core::Hasher& h) {
        h.addTag('T');
        h.addString(static_cast<const core::Time*>(v)->toString());
      },
      [](void* v, const FieldDesc*, int variant) {
        *static_cast<core::Time*>(v) =
            core::Time(core::TimePoint(std::chrono::seconds(1700000000 + variant)));
      });
  return ops;
}

const TypeOps& intOrStringOps() {
  static const TypeOps ops = scalar(
      TypeKind::IntOrString, "IntOrString",
      [](const Json& in, void* out, const PathNode& path, DecodeContext& ctx) {
        auto& v = *static_cast<IntOrString*>(out);
        if (in.is_null()) {
          return;
        }
        if (in.is_string()) {
          v = IntOrString::ofString(in.get<std::string>());
        } else if (in.is_number_integer()) {
          v = IntOrString::ofInt(in.get<int64_t>());
        } else {
          wrongType(in, "integer or string", path, ctx);
        }
      },
      [](const void* value) {
        const auto& v = *static_cast<const IntOrString*>(value);
        return v.isString ? Json(v.stringValue) : Json(v.intValue);
      },
      [](const void* value) {
        const auto& v = *static_cast<const IntOrString*>(value);
        return !v.isString && v.intValue == 0;
      },
      [](const void* value, const FieldDesc*, const HashOptions&, core::Hasher& h) {
        const auto& v = *static_cast<const IntOrString*>(value);
        h.addTag(v.isString ? 's' : 'i');
        h.addString(v.toString());
      },
      [](void* v, const FieldDesc*, int variant) {
        *static_cast<IntOrString*>(v) = IntOrString::ofInt(variant + 1);
      });
  return ops;
}

const TypeOps& anyOps() {
  static const TypeOps ops = scalar(
      TypeKind::Any, "object",
      [](const Json& in, void* out, const PathNode&, DecodeContext&) {
        *static_cast<Json*>(out) = in;
      },
      [](const void* v) { return *static_cast<const Json*>(v); },
      [](const void* v) {
        const auto& j = *static_cast<const Json*>(v);
        return j.is_null() || (j.is_object() && j.empty());
      },
      [](const void* v, const FieldDesc*, const HashOptions&, core::Hasher& h) {
        h.addTag('J');
        h.addString(canonicalDump(*static_cast<const Json*>(v)));
      },
      [](void* v, const FieldDesc*, int variant) {
        *static_cast<Json*>(v) = Json{{"sample", variant}};
      });
  return ops;
}

void decodeStruct(const StructSchema& s, const Json& in, void* out, const PathNode& path,
                  DecodeContext& ctx) {
  if (in.is_null()) {
    return;
  }
  if (!in.is_object()) {
    wrongType(in, "object", path, ctx);
    return;
  }
  for (const auto& [key, value] : in.items()) {
    const FieldDesc* f = s.find(key);
    if (f == nullptr) {
      if (auto it = s.forbidden.find(key); it != s.forbidden.end()) {
        ctx.error(path.field(key), fielderr::forbidden(it->second));
      } else if (s.unknown != nullptr) {
        (*static_cast<Json*>(s.unknown(out)))[key] = value;
      } else if (ctx.options.strict) {
        ctx.error(path.field(key), fielderr::unknownField());
      }
      continue;
    }
    f->type->decode(value, f->get(out), path.field(f->name), ctx);
  }
}

Json encodeStruct(const StructSchema& s, const void* value) {
  Json out = Json::object();
  for (const FieldDesc& f : s.fields) {
    const void* v = f.cget(value);
    if (!f.type->isEmpty(v)) {
      out[f.name] = f.type->encode(v);
    }
  }
  if (s.cunknown != nullptr) {
    const auto& extra = *static_cast<const Json*>(s.cunknown(value));
    if (extra.is_object()) {
      for (const auto& [k, v] : extra.items()) {
        if (!out.contains(k)) {
          out[k] = v;
        }
      }
    }
  }
  return out;
}

bool isEmptyStruct(const StructSchema& s, const void* value) {
  for (const FieldDesc& f : s.fields) {
    if (!f.type->isEmpty(f.cget(value))) {
      return false;
    }
  }
  if (s.cunknown != nullptr) {
    const auto& extra = *static_cast<const Json*>(s.cunknown(value));
    return extra.is_null() || extra.empty();
  }
  return true;
}

void hashStruct(const StructSchema& s, const void* value, const HashOptions& opts,
                core::Hasher& h) {
  h.addTag('{');
  for (const FieldDesc& f : s.fields) {
    if (opts.staticOnly && f.drift != Drift::Static) {
      continue;
    }
    const void* v = f.cget(value);
    // Empty fields add nothing, so adding an optional field to the model keeps old hashes.
    if (f.type->isEmpty(v)) {
      continue;
    }
    h.addString(f.name);
    f.type->hash(v, &f, opts, h);
  }
  h.addTag('}');
}

void sampleStruct(const StructSchema& s, void* value, int variant) {
  for (const FieldDesc& f : s.fields) {
    f.type->sample(f.get(value), &f, variant);
  }
}

void hashArray(const TypeOps& elem, size_t n, const std::function<const void*(size_t)>& at,
               const FieldDesc* field, const HashOptions& opts, core::Hasher& h) {
  ListType type = field != nullptr ? field->listType : ListType::Atomic;
  h.addTag('[');
  h.addU64(n);
  if (type == ListType::Set) {
    std::vector<uint64_t> hashes;
    hashes.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      core::Hasher one;
      elem.hash(at(i), field, opts, one);
      hashes.push_back(one.value());
    }
    std::sort(hashes.begin(), hashes.end());
    for (uint64_t v : hashes) {
      h.addU64(v);
    }
  } else {
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    if (type == ListType::Map) {
      NW_CHECK(elem.kind == TypeKind::Struct);
      const StructSchema& s = elem.structSchema();
      // Json compares numbers numerically, so device index 10 sorts after 2.
      std::vector<std::vector<Json>> keys(n);
      for (size_t i = 0; i < n; ++i) {
        for (const std::string& k : field->listMapKeys) {
          const FieldDesc* kf = s.find(k);
          NW_CHECK(kf != nullptr);
          keys[i].push_back(kf->type->encode(kf->cget(at(i))));
        }
      }
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    }
    for (size_t i : order) {
      elem.hash(at(i), field, opts, h);
    }
  }
  h.addTag(']');
}

}  // namespace detail
}  // namespace nodewright::api::reflect
