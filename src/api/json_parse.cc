#include "api/json_parse.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace nodewright::api {
namespace {

// Builds the value as nlohmann's DOM parser would (a repeated key keeps its first position and
// takes the last value), with two differences that matter for hostile input: nesting past the
// limit stops the parse, and object members are found through a hash index instead of
// ordered_map's linear search, which made a body of many keys quadratic (40,000 keys: 6 s).
class LimitedDomBuilder {
 public:
  using Members = std::vector<std::pair<const std::string, Json>>;

  explicit LimitedDomBuilder(size_t maxDepth) : maxDepth_(maxDepth) {}

  Json& result() { return root_; }
  bool tooDeep() const { return tooDeep_; }

  // nlohmann::json_sax<Json>
  bool null() { return add(Json()); }
  bool boolean(bool v) { return add(Json(v)); }
  bool number_integer(Json::number_integer_t v) { return add(Json(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return add(Json(v)); }
  bool number_float(Json::number_float_t v, const std::string&) { return add(Json(v)); }
  bool string(std::string& v) { return add(Json(std::move(v))); }
  bool binary(Json::binary_t& v) { return add(Json::binary(std::move(v))); }
  bool start_object(size_t) { return open(Json::object()); }
  bool key(std::string& k) {
    open_.back().key = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(size_t) { return open(Json::array()); }
  bool end_array() { return close(); }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

 private:
  struct Open {
    Json* value = nullptr;
    std::string key;                                // objects: key of the next member
    std::unordered_map<std::string, size_t> index;  // objects: member positions by key
  };

  // Where the next value goes; nullptr at the root. Children are complete before a sibling is
  // added, so a pointer into the parent stays valid while the child is open.
  Json* place(Json value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Open& parent = open_.back();
    if (parent.value->is_array()) {
      parent.value->push_back(std::move(value));
      return &parent.value->back();
    }
    auto& members = static_cast<Members&>(parent.value->get_ref<Json::object_t&>());
    auto [it, inserted] = parent.index.try_emplace(parent.key, members.size());
    if (!inserted) {
      members[it->second].second = std::move(value);
      return &members[it->second].second;
    }
    members.emplace_back(std::move(parent.key), std::move(value));
    return &members.back().second;
  }

  bool add(Json value) {
    place(std::move(value));
    return true;
  }

  bool open(Json empty) {
    if (open_.size() >= maxDepth_) {
      tooDeep_ = true;
      return false;
    }
    Json* value = place(std::move(empty));
    open_.push_back(Open{value, {}, {}});
    return true;
  }

  bool close() {
    open_.pop_back();
    return true;
  }

  size_t maxDepth_;
  Json root_;
  std::vector<Open> open_;
  bool tooDeep_ = false;
};

}  // namespace

std::optional<size_t> findExcessiveNesting(std::string_view json, size_t limit) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (inString) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) {
        return i;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

core::Result<Json> parseJson(std::string_view text) {
  // nlohmann's parser and destructor are iterative; with the depth bounded here, so is every
  // recursive walk of the result.
  LimitedDomBuilder builder(kMaxNestingDepth);
  bool ok = Json::sax_parse(text.begin(), text.end(), &builder);
  if (builder.tooDeep()) {
    return core::fail(
        core::Error::invalid("exceeded max depth of " + std::to_string(kMaxNestingDepth)));
  }
  if (!ok) {
    return core::fail(core::Error::invalid("invalid JSON"));
  }
  return std::move(builder.result());
}

}  // namespace nodewright::api
