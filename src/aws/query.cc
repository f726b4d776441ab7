#include "aws/query.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "core/hex.h"

namespace nodewright::aws {
namespace {

constexpr char kHex[] = "0123456789ABCDEF";

constexpr std::array<bool, 256> makeUnreserved() {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) {
    table[c] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '.' || c == '~';
  }
  return table;
}
constexpr std::array<bool, 256> kUnreserved = makeUnreserved();

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

ApiError missing(const std::string& name) {
  return {"MissingParameter", "The request must contain the parameter " + name};
}

ApiError invalidValue(std::string_view value, const std::string& name) {
  return {"InvalidParameterValue", "Invalid value '" + std::string(value) + "' for " + name};
}

// A list index: a positive decimal number without leading zeros, so that "1" and "01" cannot
// name the same member twice.
std::optional<std::uint64_t> parseIndex(std::string_view text) {
  if (text.empty() || text[0] == '0') {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::string uriEncode(std::string_view text, bool keepSlash) {
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (kUnreserved[byte] || (keepSlash && c == '/')) {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    }
  }
  return out;
}

std::optional<std::string> uriDecode(std::string_view text, bool plusIsSpace) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) {
        return std::nullopt;
      }
      int hi = core::hexDigitValue(text[i + 1]);
      int lo = core::hexDigitValue(text[i + 2]);
      if (hi < 0 || lo < 0) {
        return std::nullopt;
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plusIsSpace) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

ApiResult<ParamPairs> parseForm(std::string_view form) {
  ParamPairs pairs;
  while (!form.empty()) {
    std::size_t amp = form.find('&');
    std::string_view piece = form.substr(0, amp);
    form = amp == std::string_view::npos ? std::string_view() : form.substr(amp + 1);
    if (piece.empty()) {
      continue;
    }
    std::size_t eq = piece.find('=');
    std::string_view rawName = piece.substr(0, eq);
    std::string_view rawValue = eq == std::string_view::npos ? "" : piece.substr(eq + 1);
    auto name = uriDecode(rawName, true);
    auto value = uriDecode(rawValue, true);
    if (!name || !value) {
      return apiFail("MalformedQueryString",
                     "Malformed percent-encoding in '" + std::string(piece) + "'");
    }
    pairs.emplace_back(std::move(*name), std::move(*value));
  }
  return pairs;
}

std::string encodeForm(const ParamPairs& pairs) {
  std::string out;
  for (const auto& [name, value] : pairs) {
    if (!out.empty()) {
      out += '&';
    }
    out += uriEncode(name);
    out += '=';
    out += uriEncode(value);
  }
  return out;
}

Params::Params() : map_(std::make_shared<const Map>()) {}

ApiResult<Params> Params::fromPairs(ParamPairs pairs) {
  auto map = std::make_shared<Map>();
  for (auto& [name, value] : pairs) {
    if (name.empty()) {
      continue;
    }
    auto [it, inserted] = map->try_emplace(std::move(name), std::move(value));
    if (!inserted) {
      return apiFail("InvalidParameter", "The parameter " + it->first + " is given more than once");
    }
  }
  return Params(std::move(map), "");
}

ApiResult<Params> Params::parse(std::string_view form) {
  auto pairs = parseForm(form);
  if (!pairs) {
    return tl::unexpected(pairs.error());
  }
  return fromPairs(std::move(*pairs));
}

std::string Params::path(std::string_view name) const {
  std::string full = prefix_;
  full += name;
  return full;
}

std::optional<std::string_view> Params::find(std::string_view name) const {
  auto it = map_->find(path(name));
  if (it == map_->end()) {
    return std::nullopt;
  }
  return std::string_view(it->second);
}

bool Params::has(std::string_view name) const {
  std::string full = path(name);
  auto it = map_->lower_bound(full);
  if (it == map_->end()) {
    return false;
  }
  if (it->first == full) {
    return true;
  }
  full += '.';
  it = map_->lower_bound(full);
  return it != map_->end() && startsWith(it->first, full);
}

ApiResult<std::string> Params::str(std::string_view name) const {
  auto value = find(name);
  if (!value) {
    return tl::unexpected(missing(path(name)));
  }
  return std::string(*value);
}

std::string Params::strOr(std::string_view name, std::string_view fallback) const {
  return std::string(find(name).value_or(fallback));
}

ApiResult<std::int64_t> Params::integer(std::string_view name) const {
  auto value = optInteger(name);
  if (!value) {
    return tl::unexpected(value.error());
  }
  if (!*value) {
    return tl::unexpected(missing(path(name)));
  }
  return **value;
}

ApiResult<std::optional<std::int64_t>> Params::optInteger(std::string_view name) const {
  auto text = find(name);
  if (!text) {
    return std::optional<std::int64_t>();
  }
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (text->empty() || ec != std::errc() || end != text->data() + text->size()) {
    return tl::unexpected(invalidValue(*text, path(name)));
  }
  return std::optional<std::int64_t>(value);
}

ApiResult<std::optional<bool>> Params::optBoolean(std::string_view name) const {
  auto text = find(name);
  if (!text) {
    return std::optional<bool>();
  }
  auto equalsNoCase = [&](std::string_view word) {
    return std::equal(text->begin(), text->end(), word.begin(), word.end(),
                      [](char a, char b) { return (a | 0x20) == b; });
  };
  if (equalsNoCase("true")) {
    return std::optional<bool>(true);
  }
  if (equalsNoCase("false")) {
    return std::optional<bool>(false);
  }
  return tl::unexpected(invalidValue(*text, path(name)));
}

ApiResult<std::vector<Params::Index>> Params::indices(const std::string& full) const {
  std::string head = full + '.';
  std::vector<Index> found;
  for (auto it = map_->lower_bound(head); it != map_->end() && startsWith(it->first, head); ++it) {
    std::string_view rest = std::string_view(it->first).substr(head.size());
    std::string_view text = rest.substr(0, rest.find('.'));
    auto index = parseIndex(text);
    if (!index) {
      return apiFail("InvalidParameterValue",
                     "Invalid list index '" + std::string(text) + "' in " + it->first);
    }
    if (found.empty() || found.back().value != *index) {
      found.push_back({*index, std::string(text)});
    }
  }
  // Names sort as text ("10" before "2"); members come in index order.
  std::sort(found.begin(), found.end(),
            [](const Index& a, const Index& b) { return a.value < b.value; });
  found.erase(std::unique(found.begin(), found.end(),
                          [](const Index& a, const Index& b) { return a.value == b.value; }),
              found.end());
  return found;
}

ApiResult<std::vector<Params>> Params::list(std::string_view name) const {
  std::string full = path(name);
  auto found = indices(full);
  if (!found) {
    return tl::unexpected(found.error());
  }
  std::vector<Params> members;
  members.reserve(found->size());
  for (const Index& index : *found) {
    members.push_back(Params(map_, full + '.' + index.text + '.'));
  }
  return members;
}

ApiResult<std::vector<std::string>> Params::strings(std::string_view name) const {
  std::string full = path(name);
  auto found = indices(full);
  if (!found) {
    return tl::unexpected(found.error());
  }
  std::vector<std::string> values;
  values.reserve(found->size());
  for (const Index& index : *found) {
    auto it = map_->find(full + '.' + index.text);
    if (it != map_->end()) {
      values.push_back(it->second);
    }
  }
  return values;
}

Params Params::sub(std::string_view name) const {
  return Params(map_, path(name) + '.');
}

std::vector<std::string_view> Params::names() const {
  std::vector<std::string_view> out;
  for (auto it = map_->lower_bound(prefix_); it != map_->end() && startsWith(it->first, prefix_);
       ++it) {
    out.push_back(it->first);
  }
  return out;
}

}  // namespace nodewright::aws
