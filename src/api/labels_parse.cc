#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/core/validation.h"
#include "api/labels.h"

// The string form of label selectors (k8s.io/apimachinery/pkg/labels.Parse), which kubectl -l
// and the API server's labelSelector parameter use.
namespace nodewright::api {

namespace {

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  return fmt::format("{}", fmt::join(parts, sep));
}

enum class Token {
  End,
  Identifier,
  DoesNotExist,  // !
  NotEquals,     // !=
  OpenPar,
  ClosedPar,
  Comma,
  Equals,        // =
  DoubleEquals,  // ==
  GreaterThan,
  LessThan,
  In,
  NotIn,
};

struct Lexeme {
  Token token;
  std::string literal;
};

bool isWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool isSpecialSymbol(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

std::optional<Token> symbolToken(std::string_view s) {
  static const std::map<std::string_view, Token> kSymbols = {
      {"!", Token::DoesNotExist},  {"!=", Token::NotEquals},  {"(", Token::OpenPar},
      {")", Token::ClosedPar},     {",", Token::Comma},       {"=", Token::Equals},
      {"==", Token::DoubleEquals}, {">", Token::GreaterThan}, {"<", Token::LessThan},
  };
  auto it = kSymbols.find(s);
  return it == kSymbols.end() ? std::nullopt : std::optional<Token>(it->second);
}

std::vector<Lexeme> lex(std::string_view text) {
  std::vector<Lexeme> out;
  size_t i = 0;
  while (true) {
    while (i < text.size() && isWhitespace(text[i])) {
      ++i;
    }
    // Like the Go lexer, a NUL byte ends the input.
    if (i == text.size() || text[i] == '\0') {
      out.push_back({Token::End, ""});
      return out;
    }
    size_t start = i;
    if (isSpecialSymbol(text[i])) {
      // Longest symbol that is still a token: "!=" and "==" win over "!" and "=".
      size_t end = i + 1;
      while (end < text.size() && isSpecialSymbol(text[end]) &&
             symbolToken(text.substr(start, end + 1 - start))) {
        ++end;
      }
      std::string_view sym = text.substr(start, end - start);
      out.push_back({*symbolToken(sym), std::string(sym)});
      i = end;
      continue;
    }
    while (i < text.size() && text[i] != '\0' && !isWhitespace(text[i]) &&
           !isSpecialSymbol(text[i])) {
      ++i;
    }
    std::string word(text.substr(start, i - start));
    Token t = word == "in" ? Token::In : word == "notin" ? Token::NotIn : Token::Identifier;
    out.push_back({t, std::move(word)});
  }
}

// One parsed requirement before it becomes part of a LabelSelector.
struct ParsedRequirement {
  std::string key;
  std::string op;  // In, NotIn, Equals, NotEquals, Exists, DoesNotExist, Gt, Lt
  std::set<std::string> values;
};

class SelectorParser {
 public:
  explicit SelectorParser(std::string_view text) : items_(lex(text)) {}

  core::Result<std::vector<ParsedRequirement>> parse() {
    std::vector<ParsedRequirement> out;
    while (true) {
      const Lexeme& next = peek();
      if (next.token == Token::End) {
        return out;
      }
      if (next.token != Token::Identifier && next.token != Token::DoesNotExist &&
          !isKeyword(next.token)) {
        return fail("found '" + next.literal + "', expected: !, identifier, or 'end of string'");
      }
      auto r = parseRequirement();
      if (!r) {
        return core::fail(core::Error::invalid("unable to parse requirement: " + r.error()));
      }
      out.push_back(std::move(*r));
      Lexeme after = consume();
      if (after.token == Token::End) {
        return out;
      }
      if (after.token != Token::Comma) {
        return fail("found '" + after.literal + "', expected: ',' or 'end of string'");
      }
      const Lexeme& following = peek();
      if (following.token != Token::Identifier && following.token != Token::DoesNotExist &&
          !isKeyword(following.token)) {
        return fail("found '" + following.literal + "', expected: identifier after ','");
      }
    }
  }

 private:
  using Step = tl::expected<ParsedRequirement, std::string>;

  static bool isKeyword(Token t) { return t == Token::In || t == Token::NotIn; }

  static tl::unexpected<core::Error> fail(std::string message) {
    return core::fail(core::Error::invalid(std::move(message)));
  }

  const Lexeme& peek() const { return items_[std::min(pos_, items_.size() - 1)]; }
  // Outside the operator position the keywords are plain identifiers ("in" can be a key or a
  // value), as in the Go parser's Values context.
  Lexeme consume(bool keywords = false) {
    Lexeme l = peek();
    if (pos_ < items_.size() - 1) {
      ++pos_;
    }
    if (!keywords && isKeyword(l.token)) {
      l.token = Token::Identifier;
    }
    return l;
  }
  Token peekValue() const {
    Token t = peek().token;
    return isKeyword(t) ? Token::Identifier : t;
  }

  Step parseRequirement() {
    ParsedRequirement r;
    Lexeme l = consume();
    bool negated = l.token == Token::DoesNotExist;
    if (negated) {
      l = consume();
    }
    if (l.token != Token::Identifier) {
      return tl::unexpected("found '" + l.literal + "', expected: identifier");
    }
    std::vector<std::string> keyErrors = qualifiedNameErrors(l.literal);
    if (!keyErrors.empty()) {
      return tl::unexpected("key: " + corev1::invalidText(l.literal, join(keyErrors, "; ")));
    }
    r.key = l.literal;
    Token next = peekValue();
    if (negated) {
      r.op = kOpDoesNotExist;
      return r;
    }
    if (next == Token::End || next == Token::Comma) {
      r.op = kOpExists;
      return r;
    }
    Lexeme op = consume(/*keywords=*/true);
    switch (op.token) {
      case Token::In:
        r.op = kOpIn;
        break;
      case Token::NotIn:
        r.op = kOpNotIn;
        break;
      case Token::Equals:
      case Token::DoubleEquals:
        r.op = "Equals";
        break;
      case Token::NotEquals:
        r.op = "NotEquals";
        break;
      case Token::GreaterThan:
        r.op = kOpGt;
        break;
      case Token::LessThan:
        r.op = kOpLt;
        break;
      default:
        return tl::unexpected("found '" + op.literal + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    std::optional<std::string> err =
        (r.op == kOpIn || r.op == kOpNotIn) ? parseValueSet(r.values) : parseExactValue(r.values);
    if (err) {
      return tl::unexpected(*err);
    }
    if (std::optional<std::string> bad = checkValues(r)) {
      return tl::unexpected(*bad);
    }
    return r;
  }

  std::optional<std::string> parseValueSet(std::set<std::string>& values) {
    Lexeme open = consume();
    if (open.token != Token::OpenPar) {
      return "found '" + open.literal + "' expected: '('";
    }
    Token next = peekValue();
    if (next == Token::ClosedPar) {
      consume();
      values.insert("");  // "()" is the empty value
      return std::nullopt;
    }
    if (next != Token::Identifier && next != Token::Comma) {
      return "found '" + peek().literal + "', expected: ',', ')' or identifier";
    }
    // Empty entries ("(,a)", "(a,,b)", "(a,)") stand for the empty value.
    while (true) {
      Lexeme l = consume();
      if (l.token == Token::Identifier) {
        values.insert(l.literal);
        Token after = peekValue();
        if (after == Token::Comma) {
          continue;
        }
        if (after == Token::ClosedPar) {
          break;
        }
        return "found '" + peek().literal + "', expected: ',' or ')'";
      }
      if (l.token == Token::Comma) {
        if (values.empty()) {
          values.insert("");
        }
        Token after = peekValue();
        if (after == Token::ClosedPar) {
          values.insert("");
          break;
        }
        if (after == Token::Comma) {
          consume();
          values.insert("");
        }
        continue;
      }
      return "found '" + l.literal + "', expected: ',', or identifier";
    }
    Lexeme close = consume();
    if (close.token != Token::ClosedPar) {
      return "found '" + close.literal + "', expected: ')'";
    }
    return std::nullopt;
  }

  std::optional<std::string> parseExactValue(std::set<std::string>& values) {
    Token next = peekValue();
    if (next == Token::End || next == Token::Comma) {
      values.insert("");  // "a=" selects the empty value
      return std::nullopt;
    }
    Lexeme l = consume();
    if (l.token != Token::Identifier) {
      return "found '" + l.literal + "', expected: identifier";
    }
    values.insert(l.literal);
    return std::nullopt;
  }

  // NewRequirement's checks on the values; several problems read "[a, b]" as Go aggregates them.
  static std::optional<std::string> checkValues(const ParsedRequirement& r) {
    std::vector<std::string> errs;
    size_t i = 0;
    for (const std::string& v : r.values) {
      FieldPath at = FieldPath("values").index(i++);
      if ((r.op == kOpGt || r.op == kOpLt) && !parseLabelInteger(v)) {
        errs.push_back(
            at.str() + ": " +
            corev1::invalidText(v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
      std::vector<std::string> msgs = labelValueErrors(v);
      if (!msgs.empty()) {
        errs.push_back(at.key(r.key).str() + ": " + corev1::invalidText(v, join(msgs, "; ")));
      }
    }
    if (errs.empty()) {
      return std::nullopt;
    }
    return errs.size() == 1 ? errs[0] : "[" + join(errs, ", ") + "]";
  }

  std::vector<Lexeme> items_;
  size_t pos_ = 0;
};

std::string joinValues(const std::vector<std::string>& values) {
  std::vector<std::string> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  return join(sorted, ",");
}

}  // namespace

core::Result<LabelSelector> parseSelector(std::string_view text) {
  auto parsed = SelectorParser(text).parse();
  if (!parsed) {
    return core::fail(parsed.error());
  }
  LabelSelector out;
  for (ParsedRequirement& r : *parsed) {
    std::vector<std::string> values(r.values.begin(), r.values.end());
    if (r.op == "Equals" && !out.matchLabels.contains(r.key)) {
      out.matchLabels.emplace(r.key, values[0]);
      continue;
    }
    std::string op = r.op == "Equals" ? kOpIn : r.op == "NotEquals" ? kOpNotIn : r.op;
    out.matchExpressions.push_back({r.key, op, std::move(values)});
  }
  return out;
}

std::string formatSelector(const LabelSelector& selector) {
  std::vector<std::pair<std::string, std::string>> parts;
  for (const auto& [key, value] : selector.matchLabels) {
    parts.emplace_back(key, key + "=" + value);
  }
  for (const LabelSelectorRequirement& r : selector.matchExpressions) {
    std::string text;
    if (r.operator_ == kOpExists) {
      text = r.key;
    } else if (r.operator_ == kOpDoesNotExist) {
      text = "!" + r.key;
    } else if (r.operator_ == kOpIn) {
      text = r.key + " in (" + joinValues(r.values) + ")";
    } else if (r.operator_ == kOpNotIn) {
      text = r.key + " notin (" + joinValues(r.values) + ")";
    } else if (r.operator_ == kOpGt || r.operator_ == kOpLt) {
      text = r.key + (r.operator_ == kOpGt ? ">" : "<") + (r.values.empty() ? "" : r.values[0]);
    } else {
      text = r.key + " " + r.operator_ + " (" + joinValues(r.values) + ")";
    }
    parts.emplace_back(r.key, std::move(text));
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += ",";
    }
    out += parts[i].second;
  }
  return out;
}

}  // namespace nodewright::api
