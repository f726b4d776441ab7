#include "api/reflect/diff.h"

#include <algorithm>
#include <map>
#include <utility>

#include "api/reflect/redact.h"
#include "core/hash.h"

namespace nodewright::api::reflect {
namespace {

// The drift hash of one value, exactly as a struct field or container element hashes it.
uint64_t staticHash(const TypeOps& type, const FieldDesc* field, const void* value) {
  core::Hasher hasher;
  type.hash(value, field, HashOptions{}, hasher);
  return hasher.value();
}

// Elements of a container (Optional: 0 or 1) with their map keys.
std::vector<std::pair<std::string, const void*>> elements(const TypeOps& type, const void* value) {
  std::vector<std::pair<std::string, const void*>> out;
  type.forEach(value, [&](std::string_view key, size_t, const void* elem) {
    out.emplace_back(std::string(key), elem);
  });
  return out;
}

// A list-map element's keys as JSON; compared like hashArray sorts them (numbers numerically).
using ListKey = std::vector<Json>;

ListKey listKey(const TypeOps& elem, const FieldDesc& field, const void* value) {
  const StructSchema& s = elem.structSchema();
  ListKey key;
  for (const std::string& name : field.listMapKeys) {
    const FieldDesc* kf = s.find(name);
    key.push_back(kf != nullptr ? kf->type->encode(kf->cget(value)) : Json());
  }
  return key;
}

// "networkCardIndex=0,deviceIndex=1".
std::string renderKey(const FieldDesc& field, const ListKey& key) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    out += field.listMapKeys[i] + "=" + dumpJson(key[i]);
  }
  return out;
}

bool isMapList(const TypeOps& type, const FieldDesc* field) {
  return field != nullptr && field->listType == ListType::Map &&
         type.elem()->kind == TypeKind::Struct;
}

Json staticJsonOf(const TypeOps& type, const FieldDesc* field, const void* value);

Json staticList(const TypeOps& type, const FieldDesc* field, const void* value) {
  const TypeOps& elem = *type.elem();
  std::vector<std::pair<Json, Json>> items;  // (sort key, element)
  for (const auto& [unused, e] : elements(type, value)) {
    Json json = staticJsonOf(elem, field, e);
    Json sortKey;
    if (isMapList(type, field)) {
      sortKey = Json(listKey(elem, *field, e));
    } else if (field != nullptr && field->listType == ListType::Set) {
      sortKey = dumpJson(json);
    }
    items.emplace_back(std::move(sortKey), std::move(json));
  }
  // Atomic lists have null sort keys, so the stable sort keeps their order.
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Json out = Json::array();
  for (auto& item : items) {
    out.push_back(std::move(item.second));
  }
  return out;
}

Json staticJsonOf(const TypeOps& type, const FieldDesc* field, const void* value) {
  if (field != nullptr && field->sensitive && type.kind == TypeKind::String) {
    return redacted(*static_cast<const std::string*>(value));
  }
  switch (type.kind) {
    case TypeKind::Struct: {
      Json out = Json::object();
      for (const FieldDesc& f : type.structSchema().fields) {
        const void* v = f.cget(value);
        if (f.drift == Drift::Static && !f.type->isEmpty(v)) {
          out[f.name] = staticJsonOf(*f.type, &f, v);
        }
      }
      return out;
    }
    case TypeKind::Optional: {
      auto elems = elements(type, value);
      return elems.empty() ? Json() : staticJsonOf(*type.elem(), field, elems.front().second);
    }
    case TypeKind::Map: {
      Json out = Json::object();
      for (const auto& [key, e] : elements(type, value)) {
        out[key] = staticJsonOf(*type.elem(), field, e);
      }
      return out;
    }
    case TypeKind::Array:
      return staticList(type, field, value);
    case TypeKind::Any:
      // Key-sorted, as the hash sees it.
      return Json::parse(nlohmann::json::parse(dumpJson(type.encode(value))).dump());
    default:
      return type.encode(value);
  }
}

// Walks two values of one type. Every step first compares the drift hashes, so a diff is empty
// exactly when the hashes agree; a node whose hashes differ but whose parts report nothing
// (an optional present on one side, a set or atomic list, a scalar) is reported whole.
class Differ {
 public:
  explicit Differ(std::vector<FieldDiff>& out) : out_(out) {}

  void value(const TypeOps& type, const FieldDesc* field, const void* a, const void* b,
             const PathNode& path) {
    if (staticHash(type, field, a) == staticHash(type, field, b)) {
      return;
    }
    const size_t before = out_.size();
    switch (type.kind) {
      case TypeKind::Struct:
        structFields(type.structSchema(), a, b, path);
        break;
      case TypeKind::Optional: {
        auto ea = elements(type, a);
        auto eb = elements(type, b);
        if (!ea.empty() && !eb.empty()) {
          value(*type.elem(), field, ea.front().second, eb.front().second, path);
        }
        break;
      }
      case TypeKind::Map:
        mapEntries(type, field, a, b, path);
        break;
      case TypeKind::Array:
        if (isMapList(type, field)) {
          listMap(type, *field, a, b, path);
        }
        break;
      default:
        break;
    }
    if (out_.size() == before) {
      add(path, staticJsonOf(type, field, a), staticJsonOf(type, field, b));
    }
  }

 private:
  void add(const PathNode& path, Json from, Json to) {
    FieldDiff d;
    d.path = path.render();
    d.from = std::move(from);
    d.to = std::move(to);
    out_.push_back(std::move(d));
  }

  // Empty fields are absent, as in hashStruct.
  void structFields(const StructSchema& s, const void* a, const void* b, const PathNode& path) {
    for (const FieldDesc& f : s.fields) {
      if (f.drift != Drift::Static) {
        continue;
      }
      const void* va = f.cget(a);
      const void* vb = f.cget(b);
      const bool emptyA = f.type->isEmpty(va);
      const bool emptyB = f.type->isEmpty(vb);
      if (emptyA && emptyB) {
        continue;
      }
      PathNode child = path.field(f.name);
      const size_t before = out_.size();
      if (!emptyA && !emptyB) {
        value(*f.type, &f, va, vb, child);
        continue;
      }
      // An empty struct, map or list map has no entries, so its counterpart's are reported
      // one by one; what that leaves out (a struct with only dynamic fields) is reported whole.
      if (keyed(*f.type, &f)) {
        value(*f.type, &f, va, vb, child);
      }
      if (out_.size() == before) {
        add(child, emptyA ? Json() : staticJsonOf(*f.type, &f, va),
            emptyB ? Json() : staticJsonOf(*f.type, &f, vb));
      }
    }
  }

  static bool keyed(const TypeOps& type, const FieldDesc* field) {
    return type.kind == TypeKind::Struct || type.kind == TypeKind::Map ||
           (type.kind == TypeKind::Array && isMapList(type, field));
  }

  // std::map iterates in key order on both sides, so a merge pairs the keys.
  void mapEntries(const TypeOps& type, const FieldDesc* field, const void* a, const void* b,
                  const PathNode& path) {
    const TypeOps& elem = *type.elem();
    auto ea = elements(type, a);
    auto eb = elements(type, b);
    size_t i = 0;
    size_t j = 0;
    while (i < ea.size() || j < eb.size()) {
      if (j == eb.size() || (i < ea.size() && ea[i].first < eb[j].first)) {
        add(path.key(ea[i].first), staticJsonOf(elem, field, ea[i].second), Json());
        ++i;
      } else if (i == ea.size() || eb[j].first < ea[i].first) {
        add(path.key(eb[j].first), Json(), staticJsonOf(elem, field, eb[j].second));
        ++j;
      } else {
        value(elem, field, ea[i].second, eb[j].second, path.key(ea[i].first));
        ++i;
        ++j;
      }
    }
  }

  // Elements are matched by their keys; with duplicate keys (invalid, but decodable) nothing
  // is reported here and the caller reports the whole list.
  void listMap(const TypeOps& type, const FieldDesc& field, const void* a, const void* b,
               const PathNode& path) {
    const TypeOps& elem = *type.elem();
    std::map<ListKey, std::pair<const void*, const void*>> byKey;
    for (const auto& [unused, e] : elements(type, a)) {
      if (!byKey.emplace(listKey(elem, field, e), std::pair{e, nullptr}).second) {
        return;
      }
    }
    for (const auto& [unused, e] : elements(type, b)) {
      auto& slot = byKey[listKey(elem, field, e)];
      if (slot.second != nullptr) {
        return;
      }
      slot.second = e;
    }
    for (const auto& [key, sides] : byKey) {
      std::string label = renderKey(field, key);
      PathNode child = path.key(label);
      if (sides.first != nullptr && sides.second != nullptr) {
        value(elem, &field, sides.first, sides.second, child);
      } else {
        add(child, sides.first != nullptr ? staticJsonOf(elem, &field, sides.first) : Json(),
            sides.second != nullptr ? staticJsonOf(elem, &field, sides.second) : Json());
      }
    }
  }

  std::vector<FieldDiff>& out_;
};

size_t utf8Length(std::string_view s) {
  return static_cast<size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// The first `chars` characters of `s`, never splitting a UTF-8 sequence.
std::string utf8Prefix(std::string_view s, size_t chars) {
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((s[i] & 0xC0) != 0x80 && seen++ == chars) {
      return std::string(s.substr(0, i));
    }
  }
  return std::string(s);
}

std::string shortened(const std::string& s, size_t maxValue) {
  return utf8Prefix(s, maxValue) + "... (" + std::to_string(utf8Length(s)) + " chars)";
}

// Long strings inside objects and arrays become "prefix... (N chars)" strings, so the text
// stays valid JSON.
Json shortenNested(const Json& j, size_t maxValue) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    return utf8Length(s) > maxValue ? Json(shortened(s, maxValue)) : j;
  }
  if (j.is_structured()) {
    Json out = j;
    for (auto it = out.begin(); it != out.end(); ++it) {
      *it = shortenNested(*it, maxValue);
    }
    return out;
  }
  return j;
}

std::string renderValue(const Json& j, size_t maxValue) {
  if (j.is_null()) {
    return "<absent>";
  }
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (utf8Length(s) > maxValue) {
      return dumpJson(Json(utf8Prefix(s, maxValue) + "...")) + " (" +
             std::to_string(utf8Length(s)) + " chars)";
    }
  }
  return dumpJson(shortenNested(j, maxValue));
}

}  // namespace

Json staticJson(const TypeOps& type, const void* value) {
  return staticJsonOf(type, nullptr, value);
}

std::vector<FieldDiff> staticDiff(const TypeOps& type, const void* from, const void* to,
                                  const PathNode& path) {
  std::vector<FieldDiff> out;
  Differ(out).value(type, nullptr, from, to, path);
  return out;
}

std::string describe(const FieldDiff& diff, size_t maxValue) {
  return diff.path + ": " + renderValue(diff.from, maxValue) + " -> " +
         renderValue(diff.to, maxValue);
}

}  // namespace nodewright::api::reflect
