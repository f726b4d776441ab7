#include "api/json_parse.h"

#include <string>

namespace nodewright::api {

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
  if (findExcessiveNesting(text)) {
    return core::fail(
        core::Error::invalid("exceeded max depth of " + std::to_string(kMaxNestingDepth)));
  }
  // nlohmann's parser and destructor are iterative; with the depth bounded above, so is every
  // recursive walk of the result.
  Json value = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    return core::fail(core::Error::invalid("invalid JSON"));
  }
  return value;
}

}  // namespace nodewright::api
