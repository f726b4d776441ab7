#include "apiserver/patch/json_patch.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace nodewright::apiserver::patch {
namespace {

using api::Json;

core::Error invalid(std::string message) {
  return core::Error::invalid(std::move(message));
}

// Go's json type names, for the decode error kube-apiserver reports for a malformed patch.
std::string goTypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "bool";
    case Json::value_t::null:
      return "null";
    default:
      return "number";
  }
}

struct Pointer {
  std::string text;
  std::vector<std::string> tokens;  // empty: the whole document
};

core::Result<Pointer> parsePointer(const std::string& text) {
  Pointer pointer{text, {}};
  if (text.empty()) {
    return pointer;
  }
  if (text[0] != '/') {
    return core::fail(
        invalid(fmt::format("invalid JSON pointer \"{}\": must start with \"/\"", text)));
  }
  std::string token;
  for (size_t i = 1; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '/') {
      pointer.tokens.push_back(std::move(token));
      token.clear();
    } else if (text[i] == '~') {
      char next = i + 1 < text.size() ? text[i + 1] : '\0';
      if (next != '0' && next != '1') {
        return core::fail(invalid(fmt::format("invalid JSON pointer \"{}\": bad escape", text)));
      }
      token += next == '0' ? '~' : '/';
      ++i;
    } else {
      token += text[i];
    }
  }
  return pointer;
}

// An array index as evanphx/json-patch reads it: an integer, negative counting from the end.
// `size` is the number of valid positions (one more than the length for insertion).
std::optional<size_t> arrayIndex(const std::string& token, size_t size) {
  int64_t index = 0;
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, index);
  if (token.empty() || ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  auto count = static_cast<int64_t>(size);
  if (index < 0) {
    index += count;
  }
  if (index < 0 || index >= count) {
    return std::nullopt;
  }
  return static_cast<size_t>(index);
}

// The container holding the pointer's last token, or nullptr when a step is missing or the
// container is a scalar.
Json* parentOf(Json& doc, const Pointer& pointer) {
  Json* current = &doc;
  for (size_t i = 0; i + 1 < pointer.tokens.size(); ++i) {
    const std::string& token = pointer.tokens[i];
    if (current->is_object()) {
      auto it = current->find(token);
      if (it == current->end()) {
        return nullptr;
      }
      current = &*it;
    } else if (current->is_array()) {
      auto index = arrayIndex(token, current->size());
      if (!index) {
        return nullptr;
      }
      current = &(*current)[*index];
    } else {
      return nullptr;
    }
  }
  return current->is_object() || current->is_array() ? current : nullptr;
}

// The value at the pointer, or nullptr.
Json* find(Json& doc, const Pointer& pointer) {
  if (pointer.tokens.empty()) {
    return &doc;
  }
  Json* parent = parentOf(doc, pointer);
  if (parent == nullptr) {
    return nullptr;
  }
  const std::string& key = pointer.tokens.back();
  if (parent->is_object()) {
    auto it = parent->find(key);
    return it == parent->end() ? nullptr : &*it;
  }
  auto index = arrayIndex(key, parent->size());
  return index ? &(*parent)[*index] : nullptr;
}

std::string missingValue(std::string_view what) {
  return fmt::format("{}: missing value", what);
}

core::Status add(Json& doc, const Pointer& path, Json value) {
  if (path.tokens.empty()) {
    doc = std::move(value);
    return core::ok();
  }
  Json* parent = parentOf(doc, path);
  if (parent == nullptr) {
    return core::fail(invalid(missingValue(
        fmt::format("add operation does not apply: doc is missing path: \"{}\"", path.text))));
  }
  const std::string& key = path.tokens.back();
  if (parent->is_object()) {
    (*parent)[key] = std::move(value);
    return core::ok();
  }
  if (key == "-") {
    parent->push_back(std::move(value));
    return core::ok();
  }
  auto index = arrayIndex(key, parent->size() + 1);
  if (!index) {
    return core::fail(invalid(fmt::format(
        "error in add for path: '{}': Unable to access invalid index: {}: invalid index referenced",
        path.text, key)));
  }
  parent->insert(parent->begin() + static_cast<std::ptrdiff_t>(*index), std::move(value));
  return core::ok();
}

core::Status remove(Json& doc, const Pointer& path) {
  Json* parent = path.tokens.empty() ? nullptr : parentOf(doc, path);
  if (parent == nullptr) {
    return core::fail(invalid(missingValue(
        fmt::format("remove operation does not apply: doc is missing path: \"{}\"", path.text))));
  }
  const std::string& key = path.tokens.back();
  if (parent->is_object()) {
    if (parent->erase(key) == 0) {
      return core::fail(invalid(missingValue(
          fmt::format("error in remove for path: '{}': Unable to remove nonexistent key: {}",
                      path.text, key))));
    }
    return core::ok();
  }
  auto index = arrayIndex(key, parent->size());
  if (!index) {
    return core::fail(invalid(fmt::format(
        "error in remove for path: '{}': Unable to access invalid index: {}: invalid index "
        "referenced",
        path.text, key)));
  }
  parent->erase(*index);
  return core::ok();
}

core::Status replace(Json& doc, const Pointer& path, Json value) {
  Json* target = find(doc, path);
  if (target == nullptr) {
    return core::fail(invalid(missingValue(
        fmt::format("replace operation does not apply: doc is missing key: {}", path.text))));
  }
  *target = std::move(value);
  return core::ok();
}

bool isProperPrefix(const std::string& prefix, const std::string& path) {
  return path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
         path[prefix.size()] == '/';
}

core::Status move(Json& doc, const Pointer& from, const Pointer& path) {
  Json* source = find(doc, from);
  if (source == nullptr) {
    return core::fail(invalid(missingValue(
        fmt::format("move operation does not apply: doc is missing from path: {}", from.text))));
  }
  if (from.text == path.text) {
    return core::ok();
  }
  if (isProperPrefix(from.text, path.text)) {
    return core::fail(
        invalid(fmt::format("move operation does not apply: cannot move {} into its own child {}",
                            from.text, path.text)));
  }
  Json value = std::move(*source);
  if (auto removed = remove(doc, from); !removed) {
    return removed;
  }
  return add(doc, path, std::move(value));
}

// RFC 6902 equality: objects compare regardless of member order (ordered_json's == does not).
bool sameValue(const Json& a, const Json& b) {
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) {
      return false;
    }
    for (const auto& [key, value] : a.items()) {
      auto other = b.find(key);
      if (other == b.end() || !sameValue(value, *other)) {
        return false;
      }
    }
    return true;
  }
  if (a.is_array() && b.is_array()) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), sameValue);
  }
  return a == b;
}

core::Status test(Json& doc, const Pointer& path, const Json& expected) {
  Json* actual = find(doc, path);
  if (actual == nullptr) {
    return core::fail(invalid(missingValue(
        fmt::format("test operation does not apply: is missing path: {}", path.text))));
  }
  if (!sameValue(*actual, expected)) {
    return core::fail(invalid(fmt::format("testing value {} failed: test failed", path.text)));
  }
  return core::ok();
}

// A string member of an operation ("path", "from"), as a pointer.
core::Result<Pointer> pointerMember(const Json& operation, const char* name, std::string_view op) {
  auto it = operation.find(name);
  if (it == operation.end() || !it->is_string()) {
    return core::fail(
        invalid(missingValue(fmt::format("{} operation failed to decode {}", op, name))));
  }
  return parsePointer(it->get<std::string>());
}

core::Result<Json> valueMember(const Json& operation, std::string_view op) {
  auto it = operation.find("value");
  if (it == operation.end()) {
    return core::fail(invalid(missingValue(fmt::format("{} operation, missing value field", op))));
  }
  return *it;
}

core::Status applyOperation(Json& doc, const Json& operation) {
  if (!operation.is_object()) {
    return core::fail(
        invalid(fmt::format("json: cannot unmarshal {} into Go value of type jsonpatch.Operation",
                            goTypeName(operation))));
  }
  auto opIt = operation.find("op");
  std::string op =
      opIt != operation.end() && opIt->is_string() ? opIt->get<std::string>() : "unknown";
  if (op != "add" && op != "remove" && op != "replace" && op != "move" && op != "copy" &&
      op != "test") {
    return core::fail(invalid(fmt::format("Unexpected kind: {}", op)));
  }
  auto path = pointerMember(operation, "path", op);
  if (!path) {
    return core::fail(path.error());
  }
  if (op == "remove") {
    return remove(doc, *path);
  }
  if (op == "move" || op == "copy") {
    auto from = pointerMember(operation, "from", op);
    if (!from) {
      return core::fail(from.error());
    }
    if (op == "move") {
      return move(doc, *from, *path);
    }
    Json* source = find(doc, *from);
    if (source == nullptr) {
      return core::fail(invalid(missingValue(
          fmt::format("copy operation does not apply: doc is missing from path: {}", from->text))));
    }
    return add(doc, *path, *source);
  }
  auto value = valueMember(operation, op);
  if (!value) {
    return core::fail(value.error());
  }
  if (op == "add") {
    return add(doc, *path, std::move(*value));
  }
  if (op == "replace") {
    return replace(doc, *path, std::move(*value));
  }
  return test(doc, *path, *value);
}

}  // namespace

core::Result<Json> applyJsonPatch(const Json& original, const Json& patch) {
  if (!patch.is_array()) {
    return core::fail(invalid(fmt::format(
        "json: cannot unmarshal {} into Go value of type jsonpatch.Patch", goTypeName(patch))));
  }
  try {
    Json doc = original;
    for (const Json& operation : patch) {
      if (auto applied = applyOperation(doc, operation); !applied) {
        return core::fail(applied.error());
      }
    }
    return doc;
  } catch (const std::exception& e) {
    return core::fail(core::Error::internal(fmt::format("applying JSON patch: {}", e.what())));
  }
}

}  // namespace nodewright::apiserver::patch
