#include "api/yaml.h"

#include <cctype>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "api/json_parse.h"
#include "api/yaml_tree.h"

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

// YAML 1.1 plain-scalar resolution as go-yaml v2 (and so kubectl) applies it. Hand-written
// matchers rather than std::regex: libstdc++'s regex recurses per character and overflows the
// stack on a long scalar.
bool isDigits(std::string_view s, bool hex = false) {
  if (s.empty()) {
    return false;
  }
  for (char c : s) {
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(c))
              : std::isdigit(static_cast<unsigned char>(c)))) {
      return false;
    }
  }
  return true;
}

std::string_view withoutSign(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    s.remove_prefix(1);
  }
  return s;
}

// [-+]?(0|[1-9][0-9]*)
bool isInt(std::string_view s) {
  s = withoutSign(s);
  return isDigits(s) && (s.size() == 1 || s[0] != '0');
}

// 0x[0-9a-fA-F]+
bool isHex(std::string_view s) {
  return s.size() > 2 && s[0] == '0' && s[1] == 'x' && isDigits(s.substr(2), /*hex=*/true);
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool isFloat(std::string_view s) {
  s = withoutSign(s);
  size_t e = s.find_first_of("eE");
  std::string_view mantissa = s.substr(0, e);
  if (e != std::string_view::npos && !isDigits(withoutSign(s.substr(e + 1)))) {
    return false;
  }
  size_t dot = mantissa.find('.');
  if (dot == std::string_view::npos) {
    return isDigits(mantissa);
  }
  std::string_view whole = mantissa.substr(0, dot);
  std::string_view fraction = mantissa.substr(dot + 1);
  if (whole.empty()) {
    return isDigits(fraction);
  }
  return isDigits(whole) && (fraction.empty() || isDigits(fraction));
}

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
  char first = s[0];
  if (!(std::isdigit(static_cast<unsigned char>(first)) || first == '-' || first == '+' ||
        first == '.')) {
    return Json(s);
  }
  if (isInt(s)) {
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
  if (isHex(s)) {
    try {
      return Json(std::stoll(s, nullptr, 16));
    } catch (const std::out_of_range&) {
      return Json(s);
    }
  }
  if (isOneOf(s, {".inf", ".Inf", ".INF", "+.inf", "-.inf", ".nan", ".NaN", ".NAN"})) {
    return Json(s);  // JSON has no infinities; keep the text
  }
  if (isFloat(s)) {
    try {
      return Json(std::stod(s));
    } catch (const std::out_of_range&) {
      return Json(s);  // beyond double range: keep the text
    }
  }
  return Json(s);
}

// go-yaml v2 stops a decode whose work comes mostly from alias expansion (decode.go, the fix
// for CVE-2019-11253, "billion laughs"): up to 400,000 decoded nodes 99% may come from aliases,
// from 4,000,000 only 10%, scaled linearly between; checked once more than 100 alias-driven
// and 1,000 nodes in all were decoded.
constexpr double kAliasRatioRangeLow = 400000;
constexpr double kAliasRatioRangeHigh = 4000000;

double allowedAliasRatio(size_t decodeCount) {
  auto count = static_cast<double>(decodeCount);
  if (count <= kAliasRatioRangeLow) {
    return 0.99;
  }
  if (count >= kAliasRatioRangeHigh) {
    return 0.10;
  }
  return 0.99 -
         0.89 * ((count - kAliasRatioRangeLow) / (kAliasRatioRangeHigh - kAliasRatioRangeLow));
}

// Findings recorded per document (duplicate keys, elisions) are capped, so a hostile document
// of repeated keys deep down cannot make its error list quadratic in its size.
constexpr size_t kMaxFindings = 1000;

// Turns a parsed tree into JSON without recursion: an explicit stack of the collections being
// built, expanding aliases within go-yaml's budget and the nesting limit.
class Converter {
 public:
  Converter(const yaml::Tree& tree, const YamlOptions& options) : tree_(tree), options_(options) {}

  core::Status convert(uint32_t root, Document& doc) {
    doc_ = &doc;
    frames_.clear();
    auto top = visit(root, Step{});
    if (!top) {
      return core::fail(top.error());
    }
    if (top->has_value()) {
      doc.value = std::move(**top);
      return {};
    }
    while (!frames_.empty()) {
      Frame& f = frames_.back();
      if (f.child == yaml::kNone) {
        Json done = std::move(f.value);
        aliasDepth_ -= f.aliases;
        frames_.pop_back();
        deliver(std::move(done));
        continue;
      }
      auto ok = tree_.nodes[f.node].kind == yaml::Kind::Sequence ? item() : member();
      if (!ok) {
        return core::fail(ok.error());
      }
    }
    return {};
  }

 private:
  // How a child hangs from its parent, for field paths.
  struct Step {
    bool isIndex = false;
    size_t index = 0;
    std::string key;
  };
  struct Frame {
    uint32_t node = yaml::kNone;   // the collection
    uint32_t child = yaml::kNone;  // next child to visit
    Json value;
    int aliases = 0;      // aliases followed to reach this collection
    size_t position = 0;  // sequences: source position of the next item
    Step step;            // from the parent frame to this one
    std::unordered_set<std::string> keys;  // mappings: keys so far, without a linear search
    std::string key;                       // mappings: key of the member being decoded
  };

  const yaml::Node& node(uint32_t i) const { return tree_.nodes[i]; }

  uint32_t resolve(uint32_t i) const {
    while (node(i).kind == yaml::Kind::Alias) {
      i = node(i).target;
    }
    return i;
  }

  // Counts one decode of `i` and of every alias on the way to its target, as go-yaml does.
  core::Result<uint32_t> enter(uint32_t i, int& hops) {
    while (true) {
      ++decodeCount_;
      if (aliasDepth_ > 0) {
        ++aliasCount_;
      }
      if (aliasCount_ > 100 && decodeCount_ > 1000 &&
          static_cast<double>(aliasCount_) / static_cast<double>(decodeCount_) >
              allowedAliasRatio(decodeCount_)) {
        aliasDepth_ -= hops;
        return core::fail(core::Error::invalid("yaml: document contains excessive aliasing"));
      }
      if (node(i).kind != yaml::Kind::Alias) {
        return i;
      }
      ++aliasDepth_;
      ++hops;
      i = node(i).target;
    }
  }

  Json scalarValue(const yaml::Node& n) const {
    std::string text(tree_.scalar(n));
    return n.style == yaml::ScalarStyle::Resolve ? resolvePlain(text) : Json(std::move(text));
  }

  bool isPlainNull(const yaml::Node& n) const {
    return n.kind == yaml::Kind::Scalar && !n.tagged && n.style == yaml::ScalarStyle::Resolve &&
           resolvePlain(std::string(tree_.scalar(n))).is_null();
  }

  // Design documents write the ellipsis both plain and quoted (`detailedMonitoring: "..."`).
  bool isPlainElision(uint32_t i) const {
    const yaml::Node& n = node(resolve(i));
    return n.kind == yaml::Kind::Scalar && !n.tagged && tree_.scalar(n) == kElision;
  }

  // "...", "{...}", "[...]" or "[{...}]": a value that stands for an elided one.
  bool isElided(uint32_t i) const {
    while (true) {
      i = resolve(i);
      const yaml::Node& n = node(i);
      if (isPlainElision(i)) {
        return true;
      }
      if (n.kind == yaml::Kind::Mapping && n.size == 2) {
        uint32_t value = node(n.first).next;
        return isPlainElision(n.first) && (isPlainNull(node(resolve(value))) || isPlainElision(value));
      }
      if (n.kind != yaml::Kind::Sequence || n.size != 1) {
        return false;
      }
      i = n.first;
    }
  }

  // A mapping key as yaml-cpp gave it: a scalar's text, "" for null and collections.
  std::string keyText(uint32_t i) const {
    const yaml::Node& n = node(i);
    if (n.kind != yaml::Kind::Scalar || isPlainNull(n)) {
      return "";
    }
    return std::string(tree_.scalar(n));
  }

  FieldPath pathTo(const Step& last) const {
    FieldPath path;
    auto add = [&path](const Step& s) {
      path = s.isIndex ? path.index(s.index) : path.child(s.key);
    };
    for (size_t i = 1; i < frames_.size(); ++i) {
      add(frames_[i].step);
    }
    add(last);
    return path;
  }

  void elide(const Step& step) {
    if (doc_->elided.size() < kMaxFindings) {
      doc_->elided.push_back(pathTo(step).str());
    }
  }

  // A scalar comes back as its value; a collection is pushed as a frame (empty optional).
  core::Result<std::optional<Json>> visit(uint32_t i, Step step) {
    int hops = 0;
    auto target = enter(i, hops);
    if (!target) {
      return core::fail(target.error());
    }
    const yaml::Node& n = node(*target);
    if (n.kind == yaml::Kind::Scalar) {
      aliasDepth_ -= hops;
      return std::optional<Json>(scalarValue(n));
    }
    if (frames_.size() >= kMaxNestingDepth) {
      return core::fail(core::Error::invalid("yaml: exceeded max depth of " +
                                             std::to_string(kMaxNestingDepth)));
    }
    Frame f;
    f.node = *target;
    f.child = n.first;
    f.value = n.kind == yaml::Kind::Sequence ? Json::array() : Json::object();
    f.aliases = hops;
    f.step = std::move(step);
    frames_.push_back(std::move(f));
    return std::optional<Json>();
  }

  core::Status descend(uint32_t i, Step step) {
    auto value = visit(i, std::move(step));
    if (!value) {
      return core::fail(value.error());
    }
    if (value->has_value()) {
      deliver(std::move(**value));
    }
    return {};
  }

  void deliver(Json value) {
    if (frames_.empty()) {
      doc_->value = std::move(value);
      return;
    }
    Frame& parent = frames_.back();
    if (parent.value.is_array()) {
      parent.value.push_back(std::move(value));
      return;
    }
    // The key is new (checked in member()): append without ordered_map's linear search.
    auto& members = parent.value.get_ref<Json::object_t&>();
    static_cast<std::vector<std::pair<const std::string, Json>>&>(members).emplace_back(
        parent.key, std::move(value));
  }

  core::Status item() {
    Frame& f = frames_.back();
    uint32_t child = f.child;
    f.child = node(child).next;
    size_t position = f.position++;
    if (options_.allowElisions && isElided(child)) {
      elide(Step{true, position, {}});
      return {};
    }
    return descend(child, Step{true, f.value.size(), {}});
  }

  core::Status member() {
    Frame& f = frames_.back();
    uint32_t keyNode = f.child;
    uint32_t valueNode = node(keyNode).next;
    f.child = valueNode == yaml::kNone ? yaml::kNone : node(valueNode).next;
    int hops = 0;
    auto resolvedKey = enter(keyNode, hops);  // go-yaml decodes keys too
    if (!resolvedKey) {
      return core::fail(resolvedKey.error());
    }
    aliasDepth_ -= hops;
    std::string key = keyText(*resolvedKey);
    Step step{false, 0, key};
    if (options_.allowElisions && isPlainElision(keyNode)) {
      elide(step);
      return {};
    }
    if (valueNode == yaml::kNone) {
      return {};
    }
    if (options_.allowElisions && isElided(valueNode)) {
      elide(step);
      return {};
    }
    if (!f.keys.insert(key).second) {
      if (doc_->errors.size() < kMaxFindings) {
        doc_->errors.push_back({pathTo(step).str(), "duplicate field \"" + key + "\""});
      }
      return {};
    }
    f.key = std::move(key);  // deliver() adds the value under it
    return descend(valueNode, std::move(step));
  }

  const yaml::Tree& tree_;
  const YamlOptions& options_;
  Document* doc_ = nullptr;
  std::vector<Frame> frames_;
  // Counted across the whole stream, so many documents cannot each spend a full budget.
  size_t decodeCount_ = 0;
  size_t aliasCount_ = 0;
  int aliasDepth_ = 0;
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

// YAML streams may not hold control characters other than tab and line breaks (the spec's
// c-printable); refuse them first, naming where.
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
    if (findExcessiveNesting(text)) {
      return core::fail(
          core::Error::invalid("exceeded max depth of " + std::to_string(kMaxNestingDepth)));
    }
    auto value = parseJson(text);
    if (!value) {
      // Not strict JSON; YAML flow syntax is a superset, so let the YAML parser try.
    } else {
      Document d;
      d.line = 1;
      d.value = std::move(*value);
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
  auto tree = yaml::parseTree(text, kMaxNestingDepth);
  if (!tree) {
    return core::fail(tree.error());
  }
  Converter converter(*tree, options);
  for (uint32_t root : tree->roots) {
    Document d;
    d.line = tree->nodes[root].line;
    if (auto ok = converter.convert(root, d); !ok) {
      return core::fail(ok.error());
    }
    if (d.value.is_null()) {
      continue;  // an empty document
    }
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
