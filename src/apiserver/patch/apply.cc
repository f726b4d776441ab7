#include "apiserver/patch/apply.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apiserver/patch/patch_meta.h"

namespace nodewright::apiserver::patch {
namespace {

using api::Json;

core::Error invalid(std::string message) {
  return core::Error::invalid(std::move(message));
}

const Json* member(const Json* schema, std::string_view name) {
  if (schema == nullptr || !schema->is_object()) {
    return nullptr;
  }
  auto it = schema->find(name);
  return it == schema->end() ? nullptr : &*it;
}

std::string extension(const Json* schema, std::string_view name) {
  const Json* value = member(schema, name);
  return value != nullptr && value->is_string() ? value->get<std::string>() : "";
}

// The schema of an object's property: declared, or additionalProperties for maps.
const Json* propertySchema(const Json* schema, const std::string& key) {
  const Json* properties = member(schema, "properties");
  if (const Json* property = member(properties, key); property != nullptr) {
    return property;
  }
  const Json* additional = member(schema, "additionalProperties");
  return additional != nullptr && additional->is_object() ? additional : nullptr;
}

enum class ListKind { Atomic, Set, Map };

struct ListShape {
  ListKind kind = ListKind::Atomic;
  std::vector<std::string> keys;
};

ListShape listShape(const Json* schema, const FieldMeta* field) {
  std::string type = extension(schema, "x-kubernetes-list-type");
  if (type == "map") {
    ListShape shape{ListKind::Map, {}};
    if (const Json* keys = member(schema, "x-kubernetes-list-map-keys");
        keys != nullptr && keys->is_array()) {
      for (const Json& key : *keys) {
        if (key.is_string()) {
          shape.keys.push_back(key.get<std::string>());
        }
      }
    }
    return shape.keys.empty() ? ListShape{} : shape;
  }
  if (type == "set") {
    return {ListKind::Set, {}};
  }
  if (type.empty() && field != nullptr && field->mergeList) {
    if (field->mergeKey.empty()) {
      return {ListKind::Set, {}};
    }
    return {ListKind::Map, {field->mergeKey}};
  }
  return {};
}

// The list-map key of an item, as [value, ...] in key order; missing fields take the schema
// default of the key property. Names the missing field on failure.
std::optional<Json> keyOf(const Json& item, const ListShape& shape, const Json* itemSchema,
                          std::string* missing) {
  if (!item.is_object()) {
    return std::nullopt;
  }
  Json key = Json::array();
  for (const std::string& field : shape.keys) {
    auto value = item.find(field);
    if (value != item.end() && !value->is_null()) {
      key.push_back(*value);
      continue;
    }
    const Json* fallback = member(member(member(itemSchema, "properties"), field), "default");
    if (fallback == nullptr) {
      if (missing != nullptr) {
        *missing = field;
      }
      return std::nullopt;
    }
    key.push_back(*fallback);
  }
  return key;
}

// structured-merge-diff's rendering of a key: [name="a",protocol="TCP"].
std::string describeKey(const Json& key, const ListShape& shape) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < shape.keys.size(); ++i) {
    parts.push_back(fmt::format("{}={}", shape.keys[i], api::dumpJson(key[i])));
  }
  return fmt::format("[{}]", fmt::join(parts, ","));
}

class Applier {
 public:
  core::Result<Json> value(const Json* live, const Json& applied, const Json* schema,
                           const FieldMeta* field, const std::string& path) {
    if (applied.is_object()) {
      return object(live, applied, schema, field != nullptr ? field->type : nullptr, path);
    }
    if (applied.is_array()) {
      return list(live, applied, schema, field, path);
    }
    return applied;
  }

  core::Result<Json> object(const Json* live, const Json& applied, const Json* schema,
                            const TypeMeta* type, const std::string& path) {
    if (extension(schema, "x-kubernetes-map-type") == "atomic") {
      return applied;
    }
    Json result = live != nullptr && live->is_object() ? *live : Json::object();
    for (const auto& [key, value] : applied.items()) {
      if (value.is_null()) {
        result.erase(key);
        continue;
      }
      auto current = result.find(key);
      auto merged = this->value(current == result.end() ? nullptr : &*current, value,
                                propertySchema(schema, key),
                                type != nullptr ? type->field(key) : nullptr, path + "." + key);
      if (!merged) {
        return merged;
      }
      result[key] = std::move(*merged);
    }
    return result;
  }

 private:
  core::Result<Json> list(const Json* live, const Json& applied, const Json* schema,
                          const FieldMeta* field, const std::string& path) {
    ListShape shape = listShape(schema, field);
    Json result = live != nullptr && live->is_array() ? *live : Json::array();
    if (shape.kind == ListKind::Atomic) {
      return applied;
    }
    if (shape.kind == ListKind::Set) {
      for (size_t i = 0; i < applied.size(); ++i) {
        if (std::find(applied.begin(), applied.begin() + i, applied[i]) != applied.begin() + i) {
          return core::fail(invalid(
              fmt::format("{}: duplicate entries for key [={}]", path, api::dumpJson(applied[i]))));
        }
        if (std::find(result.begin(), result.end(), applied[i]) == result.end()) {
          result.push_back(applied[i]);
        }
      }
      return result;
    }
    return listMap(result, applied, member(schema, "items"), field, shape, path);
  }

  core::Result<Json> listMap(const Json& live, const Json& applied, const Json* itemSchema,
                             const FieldMeta* field, const ListShape& shape,
                             const std::string& path) {
    std::vector<Json> keys;
    for (size_t i = 0; i < applied.size(); ++i) {
      std::string missing;
      auto key = keyOf(applied[i], shape, itemSchema, &missing);
      if (!key) {
        return core::fail(invalid(
            applied[i].is_object()
                ? fmt::format("{}: element {}: associative list with keys has an element that "
                              "omits key field \"{}\" (and doesn't have default value)",
                              path, i, missing)
                : fmt::format("{}: element {}: expected a map, got {}", path, i,
                              api::dumpJson(applied[i]))));
      }
      if (std::find(keys.begin(), keys.end(), *key) != keys.end()) {
        return core::fail(invalid(
            fmt::format("{}: duplicate entries for key {}", path, describeKey(*key, shape))));
      }
      keys.push_back(std::move(*key));
    }
    const TypeMeta* itemType = field != nullptr ? field->type : nullptr;
    std::vector<bool> used(applied.size(), false);
    Json result = Json::array();
    for (const Json& item : live) {
      auto key = keyOf(item, shape, itemSchema, nullptr);
      auto match = key ? std::find(keys.begin(), keys.end(), *key) : keys.end();
      size_t index = static_cast<size_t>(match - keys.begin());
      if (match == keys.end() || used[index]) {
        result.push_back(item);
        continue;
      }
      used[index] = true;
      auto merged =
          object(&item, applied[index], itemSchema, itemType, path + describeKey(*key, shape));
      if (!merged) {
        return merged;
      }
      result.push_back(std::move(*merged));
    }
    for (size_t i = 0; i < applied.size(); ++i) {
      if (used[i]) {
        continue;
      }
      auto created =
          object(nullptr, applied[i], itemSchema, itemType, path + describeKey(keys[i], shape));
      if (!created) {
        return created;
      }
      result.push_back(std::move(*created));
    }
    return result;
  }
};

}  // namespace

core::Result<Json> applyServerSide(const Json& live, const Json& applied, const Json& schema,
                                   std::string_view group, std::string_view kind) {
  if (!applied.is_object()) {
    return core::fail(
        invalid(fmt::format("apply patch must be an object, got {}", api::dumpJson(applied))));
  }
  const TypeMeta* type = builtinKindMeta(group, kind);
  try {
    Applier applier;
    return applier.object(&live, applied, &schema, type != nullptr ? type : &genericKindMeta(), "");
  } catch (const std::exception& e) {
    return core::fail(core::Error::internal(fmt::format("applying configuration: {}", e.what())));
  }
}

}  // namespace nodewright::apiserver::patch
