#include "apiserver/table/jsonpath.h"

#include <utility>

// Evaluation of parsed paths; parsing is in jsonpath_parse.cc.
namespace nodewright::apiserver {
namespace {

using api::Json;
using Step = JsonPathStep;

// Orders two scalars for a filter; nullopt when they are not comparable (different types).
std::optional<int> compareScalars(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_integer() && b.is_number_integer()) {
      // nlohmann reads non-negative integers as unsigned; widen so both kinds compare exactly.
      const auto wide = [](const Json& j) -> __int128 {
        return j.is_number_unsigned() ? static_cast<__int128>(j.get<uint64_t>())
                                      : static_cast<__int128>(j.get<int64_t>());
      };
      const __int128 x = wide(a);
      const __int128 y = wide(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    const auto x = a.get<double>();
    const auto y = b.get<double>();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_string() && b.is_string()) {
    const int c = a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>());
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if (a.is_boolean() && b.is_boolean()) {
    return a.get<bool>() == b.get<bool>() ? 0 : 2;  // 2: unequal and unordered
  }
  return std::nullopt;
}

bool passes(const Json& left, const std::string& op, const Json& right) {
  const std::optional<int> order = compareScalars(left, right);
  if (op == "==") {
    return order == 0;
  }
  if (op == "!=") {
    return order != 0;
  }
  if (!order || *order == 2) {
    return false;
  }
  if (op == "<") {
    return *order < 0;
  }
  if (op == "<=") {
    return *order <= 0;
  }
  if (op == ">") {
    return *order > 0;
  }
  return *order >= 0;  // ">="
}

std::vector<const Json*> walk(const std::vector<Step>& steps, std::vector<const Json*> current);

void apply(const Step& step, const Json& value, std::vector<const Json*>& out) {
  switch (step.kind) {
    case Step::Kind::Field:
      if (value.is_object()) {
        if (auto it = value.find(step.name); it != value.end()) {
          out.push_back(&*it);
        }
      }
      return;
    case Step::Kind::Wildcard:
      if (value.is_object() || value.is_array()) {
        for (const Json& item : value) {
          out.push_back(&item);
        }
      }
      return;
    case Step::Kind::Index: {
      if (!value.is_array()) {
        return;
      }
      const auto size = static_cast<int64_t>(value.size());
      const int64_t i = step.index < 0 ? step.index + size : step.index;
      if (i >= 0 && i < size) {
        out.push_back(&value[static_cast<size_t>(i)]);
      }
      return;
    }
    case Step::Kind::Slice: {
      if (!value.is_array()) {
        return;
      }
      const auto size = static_cast<int64_t>(value.size());
      const auto bound = [size](std::optional<int64_t> v, int64_t fallback) {
        int64_t b = v.value_or(fallback);
        b = b < 0 ? b + size : b;
        return b < 0 ? 0 : b > size ? size : b;
      };
      for (int64_t i = bound(step.start, 0); i < bound(step.end, size); ++i) {
        out.push_back(&value[static_cast<size_t>(i)]);
      }
      return;
    }
    case Step::Kind::Filter:
      if (!value.is_array()) {
        return;
      }
      for (const Json& item : value) {
        const std::vector<const Json*> left = walk(step.path, {&item});
        // client-go compares exactly one value; an element without it cannot match.
        if (step.op.empty() ? !left.empty()
                            : left.size() == 1 && passes(*left[0], step.op, step.literal)) {
          out.push_back(&item);
        }
      }
      return;
  }
}

std::vector<const Json*> walk(const std::vector<Step>& steps, std::vector<const Json*> current) {
  for (const Step& step : steps) {
    std::vector<const Json*> next;
    for (const Json* value : current) {
      apply(step, *value, next);
    }
    current = std::move(next);
  }
  return current;
}

}  // namespace
std::vector<api::Json> JsonPath::evaluate(const api::Json& root) const {
  std::vector<api::Json> values;
  for (const Json* value : walk(steps_, {&root})) {
    values.push_back(*value);
  }
  return values;
}

core::Result<std::vector<api::Json>> evalJsonPath(const api::Json& object, std::string_view path) {
  auto parsed = JsonPath::parse(path);
  if (!parsed) {
    return core::fail(parsed.error());
  }
  return parsed->evaluate(object);
}

}  // namespace nodewright::apiserver
