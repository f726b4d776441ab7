#include "api/core/validation.h"

#include <algorithm>
#include <array>

namespace nodewright::api::corev1 {
namespace {

constexpr size_t kConfigMapKeyMaxLength = 253;
constexpr std::string_view kConfigMapKeyFmt = "[-._a-zA-Z0-9]+";
constexpr std::string_view kConfigMapKeyErrMsg =
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
constexpr std::string_view kPercentFmt = "[0-9]+%";
constexpr std::string_view kPercentErrMsg =
    "a valid percent string must be a numeric string followed by an ending '%'";

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int, 256> base64Table() {
  std::array<int, 256> table{};
  for (int& v : table) {
    v = -1;
  }
  for (size_t i = 0; i < kBase64Alphabet.size(); ++i) {
    table[static_cast<unsigned char>(kBase64Alphabet[i])] = static_cast<int>(i);
  }
  return table;
}

constexpr std::array<int, 256> kBase64Table = base64Table();

bool isNewline(char c) {
  return c == '\n' || c == '\r';
}

}  // namespace

std::string regexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    return out + " (regex used for validation is '" + std::string(fmt) + "')";
  }
  out += " (e.g. ";
  bool first = true;
  for (std::string_view e : examples) {
    if (!first) {
      out += " or ";
    }
    first = false;
    out += "'";
    out += e;
    out += "', ";
  }
  out += "regex used for validation is '";
  out += fmt;
  out += "')";
  return out;
}

std::string maxLenError(size_t length) {
  return "must be no more than " + std::to_string(length) + " characters";
}

std::string requiredWith(std::string_view detail) {
  return fielderr::required() + ": " + std::string(detail);
}

std::string invalidText(std::string_view value, std::string_view detail) {
  return fielderr::invalid(value, detail);
}

std::vector<std::string> configMapKeyErrors(std::string_view key) {
  std::vector<std::string> errs;
  if (key.size() > kConfigMapKeyMaxLength) {
    errs.push_back(maxLenError(kConfigMapKeyMaxLength));
  }
  bool charsOk = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return isAlnum(c) || c == '-' || c == '.' || c == '_';
  });
  if (!charsOk) {
    errs.push_back(
        regexError(kConfigMapKeyErrMsg, kConfigMapKeyFmt, {"key.name", "KEY_NAME", "key-name"}));
  }
  // A key becomes a file name when mounted; "." and ".." would escape the volume directory.
  if (key == ".") {
    errs.emplace_back("must not be '.'");
  } else if (key == "..") {
    errs.emplace_back("must not be '..'");
  } else if (key.starts_with("..")) {
    errs.emplace_back("must not start with '..'");
  }
  return errs;
}

Base64Result decodeBase64(std::string_view src) {
  Base64Result out;
  size_t si = 0;
  while (si < src.size()) {
    std::array<int, 4> quantum{};
    size_t have = 0;
    bool done = false;
    while (have < 4) {
      if (si == src.size()) {
        if (have == 0) {
          return out;
        }
        // Padding is mandatory, so a short final quantum is corrupt where it began.
        out.errorOffset = src.size() - have;
        return out;
      }
      char in = src[si++];
      int v = kBase64Table[static_cast<unsigned char>(in)];
      if (v >= 0) {
        quantum[have++] = v;
        continue;
      }
      if (isNewline(in)) {
        continue;
      }
      if (in != '=' || have < 2) {
        out.errorOffset = si - 1;
        return out;
      }
      if (have == 2) {
        // "xx=" needs a second '='.
        while (si < src.size() && isNewline(src[si])) {
          ++si;
        }
        if (si == src.size()) {
          out.errorOffset = src.size();
          return out;
        }
        if (src[si] != '=') {
          out.errorOffset = si - 1;
          return out;
        }
        ++si;
      }
      while (si < src.size() && isNewline(src[si])) {
        ++si;
      }
      if (si < src.size()) {
        out.errorOffset = si;
        return out;
      }
      done = true;
      break;
    }
    uint32_t bits = (static_cast<uint32_t>(quantum[0]) << 18) |
                    (static_cast<uint32_t>(quantum[1]) << 12) |
                    (static_cast<uint32_t>(quantum[2]) << 6) | static_cast<uint32_t>(quantum[3]);
    out.bytes += static_cast<char>((bits >> 16) & 0xff);
    if (have > 2) {
      out.bytes += static_cast<char>((bits >> 8) & 0xff);
    }
    if (have > 3) {
      out.bytes += static_cast<char>(bits & 0xff);
    }
    if (done) {
      return out;
    }
  }
  return out;
}

std::string encodeBase64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t bits = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    size_t n = std::min<size_t>(3, bytes.size() - i);
    if (n > 1) {
      bits |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    }
    if (n > 2) {
      bits |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    }
    out += kBase64Alphabet[(bits >> 18) & 0x3f];
    out += kBase64Alphabet[(bits >> 12) & 0x3f];
    out += n > 1 ? kBase64Alphabet[(bits >> 6) & 0x3f] : '=';
    out += n > 2 ? kBase64Alphabet[bits & 0x3f] : '=';
  }
  return out;
}

void checkOptionalEnum(std::string_view value, const std::vector<std::string>& allowed,
                       const FieldPath& path, FieldErrors& errors) {
  if (value.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end()) {
    return;
  }
  errors.push_back({path.str(), fielderr::unsupported(Json(std::string(value)), allowed)});
}

std::optional<int64_t> percentValue(std::string_view text) {
  if (text.size() < 2 || text.back() != '%' || text.size() > 19) {
    return std::nullopt;
  }
  int64_t v = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    v = v * 10 + (c - '0');
  }
  return v;
}

Json intOrStringJson(const IntOrString& value) {
  return value.isString ? Json(value.stringValue) : Json(value.intValue);
}

bool isZero(const std::optional<IntOrString>& value) {
  if (!value) {
    return true;
  }
  return value->isString ? percentValue(value->stringValue) == 0 : value->intValue == 0;
}

void validateIntOrPercent(const IntOrString& value, const FieldPath& path, FieldErrors& errors,
                          bool atMost100) {
  if (!value.isString) {
    if (value.intValue < 0) {
      errors.push_back({path.str(), fielderr::invalid(Json(value.intValue),
                                                      "must be greater than or equal to 0")});
    }
    return;
  }
  std::optional<int64_t> percent = percentValue(value.stringValue);
  if (!percent) {
    errors.push_back(
        {path.str(),
         invalidText(value.stringValue, regexError(kPercentErrMsg, kPercentFmt, {"1%", "93%"}))});
    return;
  }
  if (atMost100 && *percent > 100) {
    errors.push_back({path.str(), invalidText(value.stringValue, "must not be greater than 100%")});
  }
}

}  // namespace nodewright::api::corev1
