#include "api/yaml.h"

#include <cctype>
#include <optional>
#include <regex>

#include <yaml-cpp/yaml.h>

namespace nodewright::api {
namespace {

constexpr std::string_view kElision = "...";

bool isOneOf(std::string_view s, std::initializer_list<std::string_view> options) {
  for (std::string_view o : options) {
    if (s == o) {
      return true;
    }
  }
  return false;
}

// YAML 1.1 plain-scalar resolution as go-yaml v2 (and so kubectl) applies it.
Json resolvePlain(const std::string& s) {
  if (isOneOf(s, {"", "~", "null", "Null", "NULL"})) {
    return Json();
  }
  if (isOneOf(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})) {
    return Json(true);
  }
  if (isOneOf(s, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})) {
    return Json(false);
  }
  static const std::regex kInt("[-+]?(0|[1-9][0-9]*)");
  static const std::regex kHex("0x[0-9a-fA-F]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  char first = s[0];
  if (!(std::isdigit(static_cast<unsigned char>(first)) || first == '-' || first == '+' ||
        first == '.')) {
    return Json(s);
  }
  if (std::regex_match(s, kInt)) {
    try {
      return Json(std::stoll(s));
    } catch (const std::out_of_range&) {
      try {
        return Json(std::stod(s));
      } catch (const std::out_of_range&) {
        return Json(s);
      }
    }
  }
  if (std::regex_match(s, kHex)) {
    try {
      return Json(std::stoll(s, nullptr, 16));
    } catch (const std::out_of_range&) {
      return Json(s);
    }
  }
  if (isOneOf(s, {".inf", ".Inf", ".INF", "+.inf", "-.inf", ".nan", ".NaN", ".NAN"})) {
    return Json(s);  // JSON has no infinities; keep the text
  }
  if (std::regex_match(s, kFloat)) {
    try {
      return Json(std::stod(s));
    } catch (const std::out_of_range&) {
      return Json(s);  // beyond double range: keep the text
    }
  }
  return Json(s);
}

// Design documents write the ellipsis both plain and quoted (`detailedMonitoring: "..."`).
bool isPlainElision(const YAML::Node& n) {
  return n.IsScalar() && (n.Tag() == "?" || n.Tag() == "!") && n.Scalar() == kElision;
}

// "{...}" or "[...]": a collection that holds only the ellipsis.
bool isElided(const YAML::Node& n, bool allow) {
  if (!allow) {
    return false;
  }
  if (isPlainElision(n)) {
    return true;
  }
  if (n.IsMap() && n.size() == 1) {
    auto it = n.begin();
    return isPlainElision(it->first) && (it->second.IsNull() || isPlainElision(it->second));
  }
  if (n.IsSequence() && n.size() == 1) {
    return isElided(n[0], allow);
  }
  return false;
}

struct Converter {
  const YamlOptions& options;
  Document& doc;

  Json convert(const YAML::Node& n, const FieldPath& path) {
    switch (n.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return Json();
      case YAML::NodeType::Scalar:
        return scalar(n);
      case YAML::NodeType::Sequence: {
        Json out = Json::array();
        size_t i = 0;
        for (const YAML::Node& item : n) {
          if (isElided(item, options.allowElisions)) {
            doc.elided.push_back(path.index(i).str());
          } else {
            out.push_back(convert(item, path.index(out.size())));
          }
          ++i;
        }
        return out;
      }
      case YAML::NodeType::Map: {
        Json out = Json::object();
        for (auto it = n.begin(); it != n.end(); ++it) {
          std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
          FieldPath child = path.child(key);
          if (options.allowElisions && isPlainElision(it->first)) {
            doc.elided.push_back(path.child(key).str());
            continue;
          }
          if (isElided(it->second, options.allowElisions)) {
            doc.elided.push_back(child.str());
            continue;
          }
          if (out.contains(key)) {
            doc.errors.push_back({child.str(), "duplicate field \"" + key + "\""});
            continue;
          }
          out[key] = convert(it->second, child);
        }
        return out;
      }
    }
    return Json();
  }

  Json scalar(const YAML::Node& n) {
    const std::string& tag = n.Tag();
    const std::string& s = n.Scalar();
    if (tag == "!" || tag == "tag:yaml.org,2002:str" || tag == "!!str") {
      return Json(s);  // quoted or explicitly a string
    }
    if (tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" ||
        tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null" || tag == "?") {
      return resolvePlain(s);
    }
    return Json(s);
  }
};

void expandLists(std::vector<Document>& docs) {
  std::vector<Document> out;
  for (Document& d : docs) {
    const Json& v = d.value;
    bool isList = v.is_object() && v.contains("kind") && v["kind"].is_string() &&
                  v["kind"].get<std::string>() == "List" && v.contains("items") &&
                  v["items"].is_array();
    if (!isList) {
      out.push_back(std::move(d));
      continue;
    }
    for (const Json& item : v["items"]) {
      Document one;
      one.line = d.line;
      one.value = item;
      out.push_back(std::move(one));
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].index = i;
  }
  docs = std::move(out);
}

bool looksLikeJson(std::string_view text) {
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      continue;
    }
    return c == '{' || c == '[';
  }
  return false;
}

// yaml-cpp 0.7 (Debian 12) loops forever when a document's root is a flow entry (", a") or a
// flow or quoted node followed by more content ("[1], 2", "\"x\" \"y\"", "{a: 1}, b"). Such
// input is refused here first. A YAML document whose root is a flow collection is refused too
// (JSON texts are parsed before YAML and are unaffected). Returns the 1-based line and column.
class RootFlowEntryScan {
 public:
  explicit RootFlowEntryScan(std::string_view text) : text_(text) {}

  std::optional<std::pair<int, int>> find() {
    while (pos_ < text_.size()) {
      skipSpaceCommentsAndMarkers();
      if (pos_ >= text_.size()) {
        break;
      }
      char c = text_[pos_];
      if (c == ',') {
        return position();
      }
      if (c == '{' || c == '[') {
        // Plain scalars inside flow collections cannot be delimited without a full scanner, so
        // a flow collection at the root is accepted only as a whole JSON text (parsed before).
        return position();
      }
      if (c == '"' || c == '\'') {
        // After a flow or quoted root only a ':' (it was a mapping key) or the end of the
        // document may follow; yaml-cpp spins on anything else.
        skipFlowNode();
        skipSpaceCommentsAndMarkers(/*stopAtDocument=*/true);
        if (pos_ < text_.size() && text_[pos_] != ':' && !marker("---") && !marker("...")) {
          return position();
        }
      }
      skipToNextDocument();
    }
    return std::nullopt;
  }

 private:
  bool atLineStart() const { return pos_ == 0 || text_[pos_ - 1] == '\n'; }
  bool marker(std::string_view m) const {
    return atLineStart() && text_.substr(pos_, 3) == m &&
           (pos_ + 3 == text_.size() || std::isspace(static_cast<unsigned char>(text_[pos_ + 3])));
  }

  // Whitespace, comments, directives, tags and anchors before a root node; also "---".
  void skipSpaceCommentsAndMarkers(bool stopAtDocument = false) {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (marker("---") || marker("...")) {
        if (stopAtDocument) {
          return;
        }
        pos_ += 3;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++pos_;
      } else if (c == '#' || (c == '%' && atLineStart())) {
        skipLine();
      } else if ((c == '!' || c == '&') && !stopAtDocument) {
        // Anchors and tags end at white space or a flow indicator.
        ++pos_;
        while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
               std::string_view(",[]{}").find(text_[pos_]) == std::string_view::npos) {
          ++pos_;
        }
      } else {
        return;
      }
    }
  }

  void skipLine() {
    size_t nl = text_.find('\n', pos_);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
  }

  void skipToNextDocument() {
    while (pos_ < text_.size()) {
      skipLine();
      if (marker("---") || marker("...")) {
        return;
      }
    }
  }

  void skipQuoted(char quote) {
    ++pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (quote == '"' && c == '\\') {
        ++pos_;
      } else if (c == quote) {
        if (quote == '\'' && pos_ < text_.size() && text_[pos_] == '\'') {
          ++pos_;  // '' is an escaped quote
        } else {
          return;
        }
      }
    }
  }

  // A quoted scalar or a flow collection, with everything nested in it. A quote opens a quoted
  // scalar only where a token starts; inside a plain scalar it is an ordinary character.
  void skipFlowNode() {
    int depth = 0;
    bool tokenStart = true;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if ((c == '"' || c == '\'') && tokenStart) {
        skipQuoted(c);
        if (depth == 0) {
          return;
        }
        tokenStart = false;
        continue;
      }
      if (c == '#' && pos_ > 0 && std::isspace(static_cast<unsigned char>(text_[pos_ - 1]))) {
        skipLine();
        continue;
      }
      ++pos_;
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth <= 0) {
        return;
      }
      if (!std::isspace(static_cast<unsigned char>(c))) {
        tokenStart = c == '{' || c == '[' || c == ',' || c == ':' || c == '?' || c == '-';
      }
    }
  }

  std::pair<int, int> position() const {
    int line = 1;
    size_t lineStart = 0;
    for (size_t i = 0; i < pos_; ++i) {
      if (text_[i] == '\n') {
        ++line;
        lineStart = i + 1;
      }
    }
    return {line, static_cast<int>(pos_ - lineStart) + 1};
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// A ',' that starts a line closes every block collection above it and reaches the document
// root, where yaml-cpp 0.7 spins. Block context never starts a token with ','; the only valid
// uses (a multi-line flow collection written comma-first, or a block scalar's text) are rare
// in manifests, so they are refused too rather than risk the hang.
std::optional<std::pair<int, int>> lineStartingWithFlowEntry(std::string_view text) {
  int line = 1;
  bool lineStart = true;
  int column = 1;
  for (char c : text) {
    if (c == '\n') {
      ++line;
      lineStart = true;
      column = 1;
      continue;
    }
    if (lineStart && c == ',') {
      return std::make_pair(line, column);
    }
    if (c != ' ' && c != '\t') {
      lineStart = false;
    }
    ++column;
  }
  return std::nullopt;
}

// YAML streams may not hold control characters other than tab and line breaks (the spec's
// c-printable); yaml-cpp 0.7 stops or spins on NUL instead of failing, so refuse them first.
std::optional<std::pair<int, int>> nonPrintable(std::string_view text) {
  int line = 1;
  int column = 1;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      ++line;
      column = 1;
      continue;
    }
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
      return std::make_pair(line, column);
    }
    ++column;
  }
  return std::nullopt;
}

}  // namespace

core::Result<std::vector<Document>> parseDocuments(std::string_view text,
                                                   const YamlOptions& options) {
  std::vector<Document> docs;
  if (looksLikeJson(text)) {
    Json value = Json::parse(text.begin(), text.end(), nullptr, false);
    if (value.is_discarded()) {
      // Not strict JSON; YAML flow syntax is a superset, so let the YAML parser try.
    } else {
      Document d;
      d.line = 1;
      d.value = std::move(value);
      docs.push_back(std::move(d));
      expandLists(docs);
      return docs;
    }
  }
  if (auto at = nonPrintable(text)) {
    return core::fail(core::Error::invalid("line " + std::to_string(at->first) + ", column " +
                                           std::to_string(at->second) +
                                           ": control characters are not allowed in YAML"));
  }
  if (auto at = lineStartingWithFlowEntry(text)) {
    return core::fail(core::Error::invalid("line " + std::to_string(at->first) + ", column " +
                                           std::to_string(at->second) +
                                           ": a line may not start with a stray ','"));
  }
  if (auto at = RootFlowEntryScan(text).find()) {
    return core::fail(core::Error::invalid(
        "line " + std::to_string(at->first) + ", column " + std::to_string(at->second) +
        ": a flow collection, stray ',' or extra content at the document root is not accepted in "
        "YAML (send JSON instead)"));
  }
  std::vector<YAML::Node> nodes;
  try {
    nodes = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    return core::fail(core::Error::invalid("line " + std::to_string(e.mark.line + 1) + ", column " +
                                           std::to_string(e.mark.column + 1) + ": " + e.msg));
  }
  for (const YAML::Node& node : nodes) {
    if (node.IsNull()) {
      continue;
    }
    Document d;
    d.line = node.Mark().line + 1;
    Converter conv{options, d};
    d.value = conv.convert(node, FieldPath());
    docs.push_back(std::move(d));
  }
  expandLists(docs);
  return docs;
}

namespace {

void emit(YAML::Emitter& out, const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      if (v.empty()) {
        out << YAML::Flow;  // "status: {}" on one line
      }
      out << YAML::BeginMap;
      for (const auto& [k, item] : v.items()) {
        out << YAML::Key;
        if (!resolvePlain(k).is_string() || k.empty()) {
          out << YAML::DoubleQuoted;
        }
        out << k << YAML::Value;
        emit(out, item);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      if (v.empty()) {
        out << YAML::Flow;
      }
      out << YAML::BeginSeq;
      for (const Json& item : v) {
        emit(out, item);
      }
      out << YAML::EndSeq;
      break;
    case Json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (s.empty() || !resolvePlain(s).is_string() || s == kElision) {
        out << YAML::DoubleQuoted;
      }
      out << s;
      break;
    }
    case Json::value_t::null:
      out << YAML::Null;
      break;
    default:
      out << dumpJson(v);
  }
}

}  // namespace

std::string toYaml(const Json& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

}  // namespace nodewright::api
