#include "apiserver/table/jsonpath.h"

#include <charconv>
#include <utility>

// Parsing of the JSONPath subset; evaluation is in jsonpath.cc.
namespace nodewright::apiserver {
namespace {

using api::Json;
using Step = JsonPathStep;

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// client-go ends a field name at these; anything else (including '-', '/', ':') is part of it.
bool endsName(char c) {
  switch (c) {
    case '.':
    case ',':
    case '[':
    case ']':
    case '$':
    case '@':
    case '{':
    case '}':
      return true;
    default:
      return isSpace(c);
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && isSpace(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<int64_t> parseInteger(std::string_view s) {
  int64_t value = 0;
  const char* first = s.data();
  if (!s.empty() && s.front() == '+') {
    ++first;
  }
  auto [ptr, ec] = std::from_chars(first, s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || first == ptr) {
    return std::nullopt;
  }
  return value;
}

// Parses one path expression (the whole path, or the left side of a filter).
class Parser {
 public:
  Parser(std::string_view text, std::string_view whole) : text_(text), whole_(whole) {}

  core::Result<std::vector<Step>> parse() {
    std::vector<Step> steps;
    skipSpaces();
    if (!atEnd() && (peek() == '$' || peek() == '@')) {
      ++pos_;
    } else if (!atEnd() && !endsName(peek())) {
      addName(readName(), steps);
    }
    while (true) {
      skipSpaces();
      if (atEnd()) {
        return steps;
      }
      const char c = peek();
      if (c == '.') {
        ++pos_;
        if (!atEnd() && peek() == '.') {
          return core::fail(error("recursive descent (..) is not supported"));
        }
        addName(readName(), steps);
      } else if (c == '[') {
        auto step = text_.substr(pos_).starts_with("[?(") ? parseFilter() : parseBracket();
        if (!step) {
          return core::fail(step.error());
        }
        steps.push_back(std::move(*step));
      } else {
        return core::fail(error(std::string("unexpected character '") + c + "'"));
      }
    }
  }

 private:
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }
  void skipSpaces() {
    while (!atEnd() && isSpace(peek())) {
      ++pos_;
    }
  }

  core::Error error(std::string_view why) const {
    return core::Error::invalid("invalid JSONPath \"" + std::string(whole_) +
                                "\": " + std::string(why));
  }

  // A backslash makes the next character part of the name ("kubernetes\.io/role").
  std::string readName() {
    std::string name;
    while (!atEnd() && !endsName(peek())) {
      if (peek() == '\\' && pos_ + 1 < text_.size()) {
        ++pos_;
      }
      name += text_[pos_++];
    }
    return name;
  }

  // "." alone (or before "[") names the current value and adds no step.
  static void addName(std::string name, std::vector<Step>& steps) {
    if (name.empty()) {
      return;
    }
    Step step;
    step.kind = name == "*" ? Step::Kind::Wildcard : Step::Kind::Field;
    step.name = std::move(name);
    steps.push_back(std::move(step));
  }

  // Finds `close` at or after `from`, skipping quoted text; npos if absent.
  size_t findOutsideQuotes(size_t from, std::string_view close) const {
    char quote = 0;
    for (size_t i = from; i < text_.size(); ++i) {
      const char c = text_[i];
      if (quote != 0) {
        if (c == '\\') {
          ++i;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (text_.substr(i).starts_with(close)) {
        return i;
      }
    }
    return std::string_view::npos;
  }

  core::Result<Step> parseBracket() {
    const size_t close = findOutsideQuotes(pos_ + 1, "]");
    if (close == std::string_view::npos) {
      return core::fail(error("unterminated array"));
    }
    const std::string_view content = trim(text_.substr(pos_ + 1, close - pos_ - 1));
    pos_ = close + 1;
    Step step;
    if (content == "*") {
      step.kind = Step::Kind::Wildcard;
      return step;
    }
    if (!content.empty() && (content.front() == '\'' || content.front() == '"')) {
      auto key = unquote(content);
      if (!key) {
        return core::fail(key.error());
      }
      step.name = std::move(*key);
      return step;
    }
    if (content.find(',') != std::string_view::npos) {
      return core::fail(error("unions ([a,b]) are not supported"));
    }
    return parseIndexOrSlice(content);
  }

  core::Result<Step> parseIndexOrSlice(std::string_view content) {
    const size_t colon = content.find(':');
    const auto invalid = [&] { return error("invalid array index " + std::string(content)); };
    Step step;
    if (colon == std::string_view::npos) {
      auto index = parseInteger(content);
      if (!index) {
        return core::fail(invalid());
      }
      step.kind = Step::Kind::Index;
      step.index = *index;
      return step;
    }
    const std::string_view first = trim(content.substr(0, colon));
    const std::string_view second = trim(content.substr(colon + 1));
    if (second.find(':') != std::string_view::npos) {
      return core::fail(error("slice steps are not supported"));
    }
    step.kind = Step::Kind::Slice;
    if (!first.empty()) {
      step.start = parseInteger(first);
      if (!step.start) {
        return core::fail(invalid());
      }
    }
    if (!second.empty()) {
      step.end = parseInteger(second);
      if (!step.end) {
        return core::fail(invalid());
      }
    }
    return step;
  }

  // [?(left op right)]: as client-go, the operator is the first run of "!<>=" characters.
  core::Result<Step> parseFilter() {
    const size_t close = findOutsideQuotes(pos_ + 3, ")]");
    if (close == std::string_view::npos) {
      return core::fail(error("unterminated filter"));
    }
    const std::string_view content = text_.substr(pos_ + 3, close - pos_ - 3);
    pos_ = close + 2;
    Step step;
    step.kind = Step::Kind::Filter;
    const size_t opStart = content.find_first_of("!<>=");
    const std::string_view left = trim(content.substr(0, opStart));
    if (left.empty()) {
      return core::fail(error("filter without a path"));
    }
    auto path = Parser(left, whole_).parse();
    if (!path) {
      return core::fail(path.error());
    }
    step.path = std::move(*path);
    if (opStart == std::string_view::npos) {
      return step;
    }
    size_t opEnd = content.find_first_not_of("!<>=", opStart);
    opEnd = opEnd == std::string_view::npos ? content.size() : opEnd;
    step.op = std::string(content.substr(opStart, opEnd - opStart));
    if (step.op != "==" && step.op != "!=" && step.op != "<" && step.op != "<=" && step.op != ">" &&
        step.op != ">=") {
      return core::fail(error("unrecognized filter operator " + step.op));
    }
    auto literal = parseLiteral(trim(content.substr(opEnd)));
    if (!literal) {
      return core::fail(literal.error());
    }
    step.literal = std::move(*literal);
    return step;
  }

  core::Result<Json> parseLiteral(std::string_view text) const {
    if (!text.empty() && (text.front() == '\'' || text.front() == '"')) {
      auto s = unquote(text);
      if (!s) {
        return core::fail(s.error());
      }
      return Json(std::move(*s));
    }
    if (text == "true" || text == "false") {
      return Json(text == "true");
    }
    if (auto i = parseInteger(text)) {
      return Json(*i);
    }
    double d = 0;
    const char* first = text.data() + (text.starts_with('+') ? 1 : 0);
    auto [ptr, ec] = std::from_chars(first, text.data() + text.size(), d);
    if (!text.empty() && ec == std::errc() && ptr == text.data() + text.size()) {
      return Json(d);
    }
    return core::fail(error("filter value must be a quoted string, a number or a boolean, got \"" +
                            std::string(text) + "\""));
  }

  // 'text' or "text" as a whole token; a backslash escapes the next character.
  core::Result<std::string> unquote(std::string_view quoted) const {
    const char quote = quoted.front();
    std::string out;
    for (size_t i = 1; i < quoted.size(); ++i) {
      const char c = quoted[i];
      if (c == '\\' && i + 1 < quoted.size()) {
        const char next = quoted[++i];
        out += next == 'n' ? '\n' : next == 't' ? '\t' : next;
      } else if (c == quote) {
        if (i + 1 != quoted.size()) {
          return core::fail(error("unexpected text after quoted string " + std::string(quoted)));
        }
        return out;
      } else {
        out += c;
      }
    }
    return core::fail(error("unterminated quoted string " + std::string(quoted)));
  }

  std::string_view text_;
  std::string_view whole_;
  size_t pos_ = 0;
};

}  // namespace

core::Result<JsonPath> JsonPath::parse(std::string_view text) {
  std::string_view inner = trim(text);
  const bool opens = inner.starts_with('{');
  const bool closes = inner.ends_with('}');
  if (opens != closes) {
    return core::fail(
        core::Error::invalid("invalid JSONPath \"" + std::string(text) + "\": unbalanced braces"));
  }
  if (opens) {
    inner = inner.substr(1, inner.size() - 2);
  }
  auto steps = Parser(inner, text).parse();
  if (!steps) {
    return core::fail(steps.error());
  }
  JsonPath path;
  path.steps_ = std::move(*steps);
  return path;
}

}  // namespace nodewright::apiserver
