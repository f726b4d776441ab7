#include "api/reflect/operations.h"

#include <algorithm>
#include <set>

#include "core/check.h"

namespace nodewright::api::reflect {
namespace {

bool isScalar(TypeKind k) {
  return k != TypeKind::Optional && k != TypeKind::Array && k != TypeKind::Map &&
         k != TypeKind::Struct;
}

void validateScalar(const TypeOps& type, const void* value, const FieldDesc* f,
                    const PathNode& path, FieldErrors& errors) {
  if (f == nullptr) {
    return;
  }
  if (type.kind == TypeKind::String) {
    const auto& s = *static_cast<const std::string*>(value);
    // An empty string is "not set"; .required() decides whether that is allowed.
    if (!f->enumValues.empty() && !s.empty() &&
        std::find(f->enumValues.begin(), f->enumValues.end(), s) == f->enumValues.end()) {
      errors.push_back({path.render(), fielderr::unsupported(Json(s), f->enumValues)});
    }
    if (f->maxLength && s.size() > *f->maxLength) {
      errors.push_back(
          {path.render(),
           fielderr::invalid(
               Json(s), "must be no more than " + std::to_string(*f->maxLength) + " characters")});
    }
    return;
  }
  if (type.kind == TypeKind::Int32 || type.kind == TypeKind::Int64) {
    int64_t v = type.kind == TypeKind::Int32 ? *static_cast<const int32_t*>(value)
                                             : *static_cast<const int64_t*>(value);
    if (f->minimum && v < *f->minimum) {
      errors.push_back(
          {path.render(), fielderr::invalid(Json(v), "must be greater than or equal to " +
                                                         std::to_string(*f->minimum))});
    }
    if (f->maximum && v > *f->maximum) {
      errors.push_back(
          {path.render(), fielderr::invalid(Json(v), "must be less than or equal to " +
                                                         std::to_string(*f->maximum))});
    }
  }
}

void checkListMapKeys(const TypeOps& elem, const void* list, const TypeOps& listType,
                      const FieldDesc& f, const PathNode& path, FieldErrors& errors) {
  const StructSchema& s = elem.structSchema();
  std::set<std::string> seen;
  listType.forEach(list, [&](std::string_view, size_t i, const void* item) {
    Json key = Json::object();
    for (const std::string& k : f.listMapKeys) {
      const FieldDesc* kf = s.find(k);
      NW_CHECK(kf != nullptr);
      const void* kv = kf->cget(item);
      key[k] = kf->type->isEmpty(kv) && kf->defaultValue ? *kf->defaultValue : kf->type->encode(kv);
    }
    if (!seen.insert(dumpJson(key)).second) {
      errors.push_back({path.at(i).render(), fielderr::duplicate(key)});
    }
  });
}

}  // namespace

void validateValue(const TypeOps& type, const void* value, const FieldDesc* field,
                   const PathNode& path, FieldErrors& errors) {
  switch (type.kind) {
    case TypeKind::Optional:
      type.forEach(value, [&](std::string_view, size_t, const void* v) {
        validateValue(*type.elem(), v, field, path, errors);
      });
      return;
    case TypeKind::Array: {
      size_t n = type.size(value);
      if (field != nullptr && field->maxItems && n > *field->maxItems) {
        errors.push_back({path.render(), fielderr::tooMany(n, *field->maxItems)});
      }
      if (field != nullptr && field->minItems && n < *field->minItems) {
        errors.push_back(
            {path.render(),
             fielderr::invalid(
                 Json(n), "must have at least " + std::to_string(*field->minItems) + " items")});
      }
      if (field != nullptr && field->listType == ListType::Map) {
        checkListMapKeys(*type.elem(), value, type, *field, path, errors);
      }
      type.forEach(value, [&](std::string_view, size_t i, const void* v) {
        validateValue(*type.elem(), v, field, path.at(i), errors);
      });
      return;
    }
    case TypeKind::Map:
      type.forEach(value, [&](std::string_view k, size_t, const void* v) {
        validateValue(*type.elem(), v, field, path.key(k), errors);
      });
      return;
    case TypeKind::Struct: {
      const StructSchema& s = type.structSchema();
      for (const FieldDesc& f : s.fields) {
        const void* v = f.cget(value);
        PathNode child = path.field(f.name);
        if (f.required && f.type->isEmpty(v) && f.type->kind != TypeKind::Optional) {
          errors.push_back({child.render(), fielderr::required()});
          continue;
        }
        if (f.required && f.type->kind == TypeKind::Optional && f.type->size(v) == 0) {
          errors.push_back({child.render(), fielderr::required()});
          continue;
        }
        validateValue(*f.type, v, &f, child, errors);
      }
      if (!s.validators.empty()) {
        FieldPath p(path.render());
        for (const auto& validator : s.validators) {
          validator(value, p, errors);
        }
      }
      return;
    }
    default:
      validateScalar(type, value, field, path, errors);
  }
}

void applyDefaults(const TypeOps& type, void* value) {
  switch (type.kind) {
    case TypeKind::Optional:
    case TypeKind::Array:
    case TypeKind::Map:
      type.forEachMutable(
          value, [&](std::string_view, size_t, void* v) { applyDefaults(*type.elem(), v); });
      return;
    case TypeKind::Struct: {
      const StructSchema& s = type.structSchema();
      for (const FieldDesc& f : s.fields) {
        void* v = f.get(value);
        if (f.defaultValue && f.type->isEmpty(v)) {
          FieldErrors errors;
          DecodeOptions options;
          DecodeContext ctx{options, errors};
          f.type->decode(*f.defaultValue, v, PathNode{}, ctx);
          NW_CHECK(errors.empty());
        }
        applyDefaults(*f.type, v);
      }
      for (const auto& defaulter : s.defaulters) {
        defaulter(value);
      }
      return;
    }
    default:
      return;
  }
}

namespace {

void addScalarConstraints(Json& out, const FieldDesc* f) {
  if (f == nullptr) {
    return;
  }
  if (!f->enumValues.empty()) {
    out["enum"] = f->enumValues;
  }
  if (!f->pattern.empty()) {
    out["pattern"] = f->pattern;
  }
  if (!f->format.empty()) {
    out["format"] = f->format;
  }
  if (f->maxLength) {
    out["maxLength"] = *f->maxLength;
  }
  if (f->minimum) {
    out["minimum"] = *f->minimum;
  }
  if (f->maximum) {
    out["maximum"] = *f->maximum;
  }
}

constexpr const char* kQuantityPattern =
    R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";

}  // namespace

Json openApiSchema(const TypeOps& type, const FieldDesc* f) {
  Json out = Json::object();
  switch (type.kind) {
    case TypeKind::String:
      out["type"] = "string";
      addScalarConstraints(out, f);
      break;
    case TypeKind::Bool:
      out["type"] = "boolean";
      break;
    case TypeKind::Int32:
      out["type"] = "integer";
      out["format"] = "int32";
      addScalarConstraints(out, f);
      break;
    case TypeKind::Int64:
      out["type"] = "integer";
      out["format"] = "int64";
      addScalarConstraints(out, f);
      break;
    case TypeKind::Number:
      out["type"] = "number";
      break;
    case TypeKind::Quantity:
      out["anyOf"] = Json::array({Json{{"type", "integer"}}, Json{{"type", "string"}}});
      out["pattern"] = kQuantityPattern;
      out["x-kubernetes-int-or-string"] = true;
      break;
    case TypeKind::Duration:
      out["type"] = "string";
      addScalarConstraints(out, f);
      break;
    case TypeKind::Time:
      out["type"] = "string";
      out["format"] = "date-time";
      break;
    case TypeKind::IntOrString:
      out["anyOf"] = Json::array({Json{{"type", "integer"}}, Json{{"type", "string"}}});
      out["x-kubernetes-int-or-string"] = true;
      addScalarConstraints(out, f);
      break;
    case TypeKind::Any:
      out["type"] = "object";
      out["x-kubernetes-preserve-unknown-fields"] = true;
      break;
    case TypeKind::Optional:
      return openApiSchema(*type.elem(), f);
    case TypeKind::Array: {
      out["type"] = "array";
      out["items"] = openApiSchema(*type.elem(), f);
      if (f != nullptr) {
        // The element carries the scalar constraints; the list itself only its own.
        if (f->listType == ListType::Set && isScalar(type.elem()->kind)) {
          out["x-kubernetes-list-type"] = "set";
        } else if (f->listType == ListType::Map) {
          out["x-kubernetes-list-type"] = "map";
          out["x-kubernetes-list-map-keys"] = f->listMapKeys;
        }
        if (f->minItems) {
          out["minItems"] = *f->minItems;
        }
        if (f->maxItems) {
          out["maxItems"] = *f->maxItems;
        }
      }
      break;
    }
    case TypeKind::Map:
      out["type"] = "object";
      out["additionalProperties"] = openApiSchema(*type.elem(), f);
      break;
    case TypeKind::Struct: {
      const StructSchema& s = type.structSchema();
      out["type"] = "object";
      Json props = Json::object();
      Json required = Json::array();
      for (const FieldDesc& field : s.fields) {
        Json prop = Json::object();
        if (!field.doc.empty()) {
          prop["description"] = field.doc;
        }
        if (field.defaultValue) {
          prop["default"] = *field.defaultValue;
        }
        Json typeSchema = openApiSchema(*field.type, &field);
        for (auto& [k, v] : typeSchema.items()) {
          prop[k] = std::move(v);
        }
        props[field.name] = std::move(prop);
        if (field.required) {
          required.push_back(field.name);
        }
      }
      if (!props.empty()) {
        out["properties"] = std::move(props);
      }
      if (!required.empty()) {
        out["required"] = std::move(required);
      }
      if (s.unknown != nullptr) {
        out["x-kubernetes-preserve-unknown-fields"] = true;
      }
      break;
    }
  }
  return out;
}

namespace {

void collectLeaves(const TypeOps& type, const FieldDesc* field, std::string path, Drift drift,
                   std::vector<const FieldDesc*>& steps, std::vector<Leaf>& out, int depth) {
  NW_CHECK(depth < 64);
  switch (type.kind) {
    case TypeKind::Optional:
      steps.push_back(nullptr);
      collectLeaves(*type.elem(), field, path, drift, steps, out, depth + 1);
      steps.pop_back();
      return;
    case TypeKind::Array:
    case TypeKind::Map:
      steps.push_back(nullptr);
      collectLeaves(*type.elem(), field, path + (type.kind == TypeKind::Array ? "[]" : "[*]"),
                    drift, steps, out, depth + 1);
      steps.pop_back();
      return;
    case TypeKind::Struct:
      for (const FieldDesc& f : type.structSchema().fields) {
        Drift d = std::max(drift, f.drift);
        steps.push_back(&f);
        collectLeaves(*f.type, &f, path.empty() ? f.name : path + "." + f.name, d, steps, out,
                      depth + 1);
        steps.pop_back();
      }
      return;
    default:
      out.push_back(Leaf{path, drift, field, &type, steps});
  }
}

}  // namespace

std::vector<Leaf> leaves(const TypeOps& root) {
  std::vector<Leaf> out;
  std::vector<const FieldDesc*> steps;
  collectLeaves(root, nullptr, "", Drift::Static, steps, out, 0);
  return out;
}

void* resolveLeaf(const TypeOps& root, void* value, const Leaf& leaf) {
  const TypeOps* type = &root;
  void* cur = value;
  for (const FieldDesc* step : leaf.steps) {
    if (step != nullptr) {
      cur = step->get(cur);
      type = step->type;
      continue;
    }
    void* first = nullptr;
    type->forEachMutable(cur, [&](std::string_view, size_t i, void* e) {
      if (i == 0) {
        first = e;
      }
    });
    if (first == nullptr) {
      return nullptr;
    }
    cur = first;
    type = type->elem();
  }
  return cur;
}

}  // namespace nodewright::api::reflect
