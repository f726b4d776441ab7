#include "api/crd/structural.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace nodewright::api::crd {
namespace {

enum class Level { Root, Field, Item };

const std::set<std::string>& knownKeywords() {
  // JSONSchemaProps fields that apiextensions.k8s.io/v1 accepts (no $ref, definitions,
  // patternProperties, dependencies, additionalItems or uniqueItems).
  static const std::set<std::string> k = {
      "description",
      "type",
      "format",
      "title",
      "default",
      "maximum",
      "exclusiveMaximum",
      "minimum",
      "exclusiveMinimum",
      "maxLength",
      "minLength",
      "pattern",
      "maxItems",
      "minItems",
      "multipleOf",
      "enum",
      "maxProperties",
      "minProperties",
      "required",
      "items",
      "allOf",
      "oneOf",
      "anyOf",
      "not",
      "properties",
      "additionalProperties",
      "nullable",
      "example",
      "externalDocs",
      "x-kubernetes-preserve-unknown-fields",
      "x-kubernetes-embedded-resource",
      "x-kubernetes-int-or-string",
      "x-kubernetes-list-map-keys",
      "x-kubernetes-list-type",
      "x-kubernetes-map-type",
      "x-kubernetes-validations",
  };
  return k;
}

const std::vector<std::string> kTypes = {"array",  "boolean", "integer",
                                         "number", "object",  "string"};
const std::vector<std::string> kListTypes = {"atomic", "set", "map"};
const std::vector<std::string> kMapTypes = {"granular", "atomic"};
const std::vector<std::string> kJunctors = {"allOf", "anyOf", "oneOf"};

bool isScalarType(const std::string& t) {
  return t == "string" || t == "integer" || t == "number" || t == "boolean";
}

std::string typeOf(const Json& s) {
  auto it = s.find("type");
  return it != s.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag(const Json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_boolean() && it->get<bool>();
}

// Whether `v` is a value of a node of type `t` (int-or-string: integer or string).
bool hasType(const Json& v, const std::string& t, bool intOrString) {
  if (intOrString) {
    return v.is_number_integer() || v.is_string();
  }
  if (t == "string") {
    return v.is_string();
  }
  if (t == "integer") {
    return v.is_number_integer();
  }
  if (t == "number") {
    return v.is_number();
  }
  if (t == "boolean") {
    return v.is_boolean();
  }
  if (t == "object") {
    return v.is_object();
  }
  if (t == "array") {
    return v.is_array();
  }
  return true;
}

bool isIntOrStringBranch(const Json& s) {
  return s == Json{{"type", "integer"}} || s == Json{{"type", "string"}};
}

class Checker {
 public:
  FieldErrors take() { return std::move(errors_); }

  void node(const Json& s, const FieldPath& path, Level level) {
    if (!s.is_object()) {
      add(path, fielderr::invalid(s, "must be a schema object"));
      return;
    }
    keywords(s, path);
    const std::string type = typeOf(s);
    const bool intOrString = flag(s, "x-kubernetes-int-or-string");
    const bool preserve = flag(s, "x-kubernetes-preserve-unknown-fields");
    typeRules(s, path, level, type, intOrString, preserve);
    objectRules(s, path, type, preserve);
    arrayRules(s, path, type);
    valueRules(s, path, type, intOrString);
    for (const std::string& j : kJunctors) {
      if (auto it = s.find(j); it != s.end()) {
        if (!it->is_array()) {
          add(path.child(j), fielderr::invalid(*it, "must be a list of schemas"));
          continue;
        }
        for (size_t i = 0; i < it->size(); ++i) {
          junctor((*it)[i], path.child(j).index(i), s, intOrString && j == "anyOf");
        }
      }
    }
    if (auto it = s.find("not"); it != s.end()) {
      junctor(*it, path.child("not"), s, false);
    }
    if (level == Level::Root) {
      rootMetadata(s, path);
    }
  }

 private:
  void add(const FieldPath& path, std::string message) {
    errors_.push_back({path.str(), std::move(message)});
  }

  void keywords(const Json& s, const FieldPath& path) {
    for (const auto& [key, value] : s.items()) {
      if (knownKeywords().count(key) == 0) {
        add(path.child(key),
            fielderr::forbidden("not a schema keyword of apiextensions.k8s.io/v1"));
      }
    }
    if (auto it = s.find("description"); it != s.end() && !it->is_string()) {
      add(path.child("description"), fielderr::wrongType(*it, "string"));
    }
  }

  void typeRules(const Json& s, const FieldPath& path, Level level, const std::string& type,
                 bool intOrString, bool preserve) {
    if (auto it = s.find("type"); it != s.end() && !it->is_string()) {
      add(path.child("type"), fielderr::wrongType(*it, "string"));
    } else if (!type.empty() && std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
      add(path.child("type"), fielderr::unsupported(Json(type), kTypes));
    }
    for (const char* key : {"x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string"}) {
      if (auto it = s.find(key); it != s.end() && !(it->is_boolean() && it->get<bool>())) {
        add(path.child(key), fielderr::invalid(*it, "must be true or undefined"));
      }
    }
    if (intOrString) {
      if (!type.empty()) {
        add(path.child("type"),
            fielderr::invalid(Json(type), "must be empty if x-kubernetes-int-or-string is true"));
      }
      if (auto it = s.find("anyOf");
          it != s.end() &&
          *it != Json::array({Json{{"type", "integer"}}, Json{{"type", "string"}}})) {
        add(path.child("anyOf"), fielderr::invalid(*it,
                                                   "must be [{type: integer}, {type: string}] if "
                                                   "x-kubernetes-int-or-string is true"));
      }
    } else if (type.empty() && !preserve) {
      const char* where = level == Level::Root    ? "must not be empty at the root"
                          : level == Level::Field ? "must not be empty for specified object fields"
                                                  : "must not be empty for specified array items";
      add(path.child("type"), fielderr::required() + ": " + where);
    }
    if (level == Level::Root && type != "object") {
      add(path.child("type"), fielderr::invalid(Json(type), "must be object at the root"));
    }
  }

  void objectRules(const Json& s, const FieldPath& path, const std::string& type, bool preserve) {
    const bool objectLike = type == "object" || (type.empty() && preserve);
    auto props = s.find("properties");
    auto extra = s.find("additionalProperties");
    if (props != s.end()) {
      if (!objectLike) {
        add(path.child("properties"), fielderr::forbidden("only allowed for type object"));
      }
      if (!props->is_object()) {
        add(path.child("properties"), fielderr::wrongType(*props, "object"));
      } else {
        for (const auto& [name, prop] : props->items()) {
          node(prop, path.child("properties").key(name), Level::Field);
        }
      }
    }
    if (extra != s.end()) {
      if (props != s.end()) {
        add(path.child("additionalProperties"),
            fielderr::forbidden("additionalProperties and properties are mutually exclusive"));
      }
      if (!objectLike) {
        add(path.child("additionalProperties"),
            fielderr::forbidden("only allowed for type object"));
      }
      if (!extra->is_object()) {
        add(path.child("additionalProperties"),
            fielderr::forbidden(
                "must be a schema; use x-kubernetes-preserve-unknown-fields for arbitrary fields"));
      } else {
        node(*extra, path.child("additionalProperties"), Level::Field);
      }
    }
    if (auto req = s.find("required"); req != s.end()) {
      if (!req->is_array()) {
        add(path.child("required"), fielderr::wrongType(*req, "array"));
      } else {
        for (size_t i = 0; i < req->size(); ++i) {
          const Json& name = (*req)[i];
          bool declared = name.is_string() && props != s.end() && props->is_object() &&
                          props->contains(name.get<std::string>());
          if (!declared && !preserve) {
            add(path.child("required").index(i),
                fielderr::invalid(name, "must name a property declared in properties"));
          }
        }
      }
    }
    if (auto mt = s.find("x-kubernetes-map-type"); mt != s.end()) {
      if (type != "object") {
        add(path.child("x-kubernetes-map-type"),
            fielderr::forbidden("only allowed for type object"));
      } else if (!mt->is_string() || std::find(kMapTypes.begin(), kMapTypes.end(),
                                               mt->get<std::string>()) == kMapTypes.end()) {
        add(path.child("x-kubernetes-map-type"), fielderr::unsupported(*mt, kMapTypes));
      }
    }
  }

  void arrayRules(const Json& s, const FieldPath& path, const std::string& type) {
    auto items = s.find("items");
    if (type == "array" && items == s.end()) {
      add(path.child("items"), fielderr::required() + ": must be specified for type array");
    }
    if (items != s.end()) {
      if (type != "array") {
        add(path.child("items"), fielderr::forbidden("only allowed for type array"));
      }
      if (items->is_object()) {
        node(*items, path.child("items"), Level::Item);
      } else {
        add(path.child("items"), fielderr::forbidden("must be a single schema, not a list"));
      }
    }
    listTypeRules(s, path, type, items != s.end() && items->is_object() ? &*items : nullptr);
  }

  void listTypeRules(const Json& s, const FieldPath& path, const std::string& type,
                     const Json* items) {
    auto lt = s.find("x-kubernetes-list-type");
    auto keys = s.find("x-kubernetes-list-map-keys");
    std::string listType = lt != s.end() && lt->is_string() ? lt->get<std::string>() : "";
    if (keys != s.end() && listType != "map") {
      add(path.child("x-kubernetes-list-map-keys"),
          fielderr::forbidden("must only be used if x-kubernetes-list-type is map"));
    }
    if (lt == s.end()) {
      return;
    }
    FieldPath ltPath = path.child("x-kubernetes-list-type");
    if (type != "array") {
      add(ltPath, fielderr::forbidden("only allowed for type array"));
      return;
    }
    if (std::find(kListTypes.begin(), kListTypes.end(), listType) == kListTypes.end()) {
      add(ltPath, fielderr::unsupported(*lt, kListTypes));
      return;
    }
    if (items == nullptr) {
      return;
    }
    const std::string itemType = typeOf(*items);
    auto mapType = items->find("x-kubernetes-map-type");
    bool atomicItems = mapType != items->end() && *mapType == "atomic";
    if (listType == "set" && !isScalarType(itemType) && !atomicItems) {
      add(ltPath, fielderr::invalid(Json(listType), "must only be used with scalar items"));
    }
    if (listType != "map") {
      return;
    }
    if (itemType != "object") {
      add(ltPath, fielderr::invalid(Json(listType), "must only be used with object items"));
    }
    FieldPath keysPath = path.child("x-kubernetes-list-map-keys");
    if (keys == s.end() || !keys->is_array() || keys->empty()) {
      add(keysPath, fielderr::required() + ": must not be empty if x-kubernetes-list-type is map");
      return;
    }
    const Json empty = Json::object();
    const Json& itemProps = items->contains("properties") ? (*items)["properties"] : empty;
    const Json& itemRequired = items->contains("required") ? (*items)["required"] : Json::array();
    std::set<std::string> seen;
    for (size_t i = 0; i < keys->size(); ++i) {
      const Json& key = (*keys)[i];
      if (!key.is_string()) {
        add(keysPath.index(i), fielderr::wrongType(key, "string"));
        continue;
      }
      const std::string k = key.get<std::string>();
      if (!seen.insert(k).second) {
        add(keysPath.index(i), fielderr::duplicate(key));
        continue;
      }
      if (!itemProps.is_object() || !itemProps.contains(k)) {
        add(keysPath.index(i),
            fielderr::invalid(key, "entries must all be names of item properties"));
        continue;
      }
      const Json& prop = itemProps[k];
      if (!isScalarType(typeOf(prop)) && !flag(prop, "x-kubernetes-int-or-string")) {
        add(keysPath.index(i), fielderr::invalid(key, "must be a scalar typed property"));
      }
      bool isRequired =
          itemRequired.is_array() &&
          std::find(itemRequired.begin(), itemRequired.end(), key) != itemRequired.end();
      if (!isRequired && !prop.contains("default")) {
        add(path.child("items").child("properties").key(k),
            fielderr::required() +
                ": this property is in x-kubernetes-list-map-keys, so it must have a default or "
                "be a required property");
      }
    }
  }

  void valueRules(const Json& s, const FieldPath& path, const std::string& type, bool intOrString) {
    if (auto e = s.find("enum"); e != s.end()) {
      if (!e->is_array()) {
        add(path.child("enum"), fielderr::wrongType(*e, "array"));
      } else {
        for (size_t i = 0; i < e->size(); ++i) {
          if (!hasType((*e)[i], type, intOrString)) {
            add(path.child("enum").index(i), fielderr::invalid((*e)[i], "must be of type " + type));
          }
        }
      }
    }
    if (auto d = s.find("default"); d != s.end() && !hasType(*d, type, intOrString)) {
      add(path.child("default"),
          fielderr::invalid(*d, "must be of type " + (intOrString ? "integer or string" : type)));
    }
  }

  // Inside a logical junctor only value validations may appear, and whatever it names must be
  // specified outside too; otherwise pruning and defaulting would depend on which branch matched.
  void junctor(const Json& s, const FieldPath& path, const Json& outer, bool intOrStringAnyOf) {
    if (!s.is_object()) {
      add(path, fielderr::invalid(s, "must be a schema object"));
      return;
    }
    if (intOrStringAnyOf && isIntOrStringBranch(s)) {
      return;
    }
    for (const char* key :
         {"type", "description", "default", "additionalProperties", "nullable",
          "x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string",
          "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type"}) {
      if (s.contains(key)) {
        add(path.child(key), fielderr::forbidden("must be empty to be structural"));
      }
    }
    if (auto props = s.find("properties"); props != s.end() && props->is_object()) {
      for (const auto& [name, prop] : props->items()) {
        FieldPath p = path.child("properties").key(name);
        auto outerProps = outer.find("properties");
        if (outerProps == outer.end() || !outerProps->is_object() || !outerProps->contains(name)) {
          add(p, fielderr::required() + ": must be specified outside the logical junctor as well");
          continue;
        }
        junctor(prop, p, (*outerProps)[name], false);
      }
    }
    if (auto items = s.find("items"); items != s.end()) {
      auto outerItems = outer.find("items");
      if (outerItems == outer.end()) {
        add(path.child("items"),
            fielderr::required() + ": must be specified outside the logical junctor as well");
      } else {
        junctor(*items, path.child("items"), *outerItems, false);
      }
    }
    for (const std::string& j : kJunctors) {
      if (auto it = s.find(j); it != s.end() && it->is_array()) {
        for (size_t i = 0; i < it->size(); ++i) {
          junctor((*it)[i], path.child(j).index(i), outer, false);
        }
      }
    }
    if (auto it = s.find("not"); it != s.end()) {
      junctor(*it, path.child("not"), outer, false);
    }
  }

  // The API server owns metadata; a CRD may restrict at most name and generateName.
  void rootMetadata(const Json& s, const FieldPath& path) {
    auto props = s.find("properties");
    if (props == s.end() || !props->is_object() || !props->contains("metadata")) {
      return;
    }
    const Json& metadata = (*props)["metadata"];
    FieldPath p = path.child("properties").key("metadata");
    bool ok = metadata.is_object();
    if (ok) {
      for (const auto& [key, value] : metadata.items()) {
        if (key == "type") {
          ok = ok && value == "object";
        } else if (key == "properties" && value.is_object()) {
          for (const auto& [name, v] : value.items()) {
            ok = ok && (name == "name" || name == "generateName");
          }
        } else {
          ok = false;
        }
      }
    }
    if (!ok) {
      add(p, fielderr::forbidden("must not specify anything other than name and generateName, "
                                 "but metadata is implicitly specified"));
    }
  }

  FieldErrors errors_;
};

}  // namespace

FieldErrors structuralErrors(const Json& schema) {
  Checker checker;
  checker.node(schema, FieldPath(), Level::Root);
  return checker.take();
}

}  // namespace nodewright::api::crd
