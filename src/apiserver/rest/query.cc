#include "apiserver/rest/query.h"

#include <cstdio>
#include <limits>
#include <vector>

namespace nodewright::apiserver::rest {
namespace {

using api::Json;

// Go's %q for the strings a query carries: quotes, backslash escapes, \xNN for control bytes.
std::string goQuote(std::string_view value) {
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char hex[5];
          std::snprintf(hex, sizeof hex, "\\x%02x", c);
          out += hex;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// One UTF-8 code point starting at `i`; U+FFFD for a bad byte, as Go's range over a string.
char32_t nextRune(std::string_view s, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t length = c < 0x80           ? 1
                  : (c >> 5) == 0x6  ? 2
                  : (c >> 4) == 0xe  ? 3
                  : (c >> 3) == 0x1e ? 4
                                     : 0;
  if (length == 0 || i + length > s.size()) {
    ++i;
    return 0xfffd;
  }
  char32_t rune = length == 1 ? c : (c & (0xff >> (length + 1)));
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) {
      ++i;
      return 0xfffd;
    }
    rune = (rune << 6) | (byte(i + k) & 0x3f);
  }
  i += length;
  return rune;
}

// unicode.IsPrint for what a field manager can hold: the C0 and C1 controls, DEL and the
// Unicode separators other than the ASCII space are not printable.
bool isPrint(char32_t rune) {
  if (rune < 0x20 || (rune >= 0x7f && rune <= 0x9f)) {
    return false;
  }
  if (rune == 0xa0 || rune == 0x1680 || (rune >= 0x2000 && rune <= 0x200a) || rune == 0x2028 ||
      rune == 0x2029 || rune == 0x202f || rune == 0x205f || rune == 0x3000) {
    return false;
  }
  return true;
}

// %#U: "U+0007", with the character quoted after it when printable ("U+0041 'A'").
std::string formatRune(char32_t rune, std::string_view text) {
  char code[16];
  std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(rune));
  std::string out = code;
  if (isPrint(rune)) {
    out += " '" + std::string(text) + "'";
  }
  return out;
}

// A []string in Go's %#v, as field.NotSupported renders a dryRun list.
std::string goStringSlice(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += goQuote(values[i]);
  }
  return out + "}";
}

std::vector<std::string> allParams(const http::Request& request, std::string_view name) {
  std::vector<std::string> values;
  auto [begin, end] = request.query.equal_range(std::string(name));
  for (auto it = begin; it != end; ++it) {
    values.push_back(it->second);
  }
  return values;
}

}  // namespace

std::optional<std::string> firstParam(const http::Request& request, std::string_view name) {
  // A multimap keeps equal keys in insertion order, so lower_bound is the first one sent.
  auto it = request.query.lower_bound(std::string(name));
  if (it == request.query.end() || it->first != name) {
    return std::nullopt;
  }
  return it->second;
}

bool queryBool(std::string_view value) {
  if (value == "0") {
    return false;
  }
  if (value.size() != 5) {
    return true;
  }
  static constexpr std::string_view kFalse = "false";
  for (size_t i = 0; i < kFalse.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(value[i])) != kFalse[i]) {
      return true;
    }
  }
  return false;
}

std::optional<bool> boolParam(const http::Request& request, std::string_view name) {
  auto value = firstParam(request, name);
  if (!value) {
    return std::nullopt;
  }
  return queryBool(*value);
}

ApiResult<int64_t> parseInt64(std::string_view value) {
  auto fail = [&](std::string_view why) -> ApiResult<int64_t> {
    return tl::unexpected(errors::badRequest("strconv.ParseInt: parsing " + goQuote(value) + ": " +
                                             std::string(why)));
  };
  std::string_view digits = value;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) {
    return fail("invalid syntax");
  }
  // Accumulate as a negative number so that the minimum int64 parses.
  int64_t result = 0;
  bool overflow = false;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return fail("invalid syntax");
    }
    int digit = c - '0';
    if (result < (std::numeric_limits<int64_t>::min() + digit) / 10) {
      overflow = true;
    } else {
      result = result * 10 - digit;
    }
  }
  if (overflow) {
    return fail("value out of range");
  }
  if (!negative) {
    if (result == std::numeric_limits<int64_t>::min()) {
      return fail("value out of range");
    }
    result = -result;
  }
  return result;
}

ApiResult<std::optional<int64_t>> int64Param(const http::Request& request, std::string_view name) {
  auto value = firstParam(request, name);
  if (!value) {
    return std::optional<int64_t>();
  }
  auto parsed = parseInt64(*value);
  if (!parsed) {
    return tl::unexpected(parsed.error());
  }
  return std::optional<int64_t>(*parsed);
}

ApiError invalidOptions(std::string_view optionsKind, const api::FieldErrors& causes) {
  Resource options;
  options.group = "meta.k8s.io";
  options.kind = std::string(optionsKind);
  return errors::invalid(options, "", causes);
}

ApiResult<ListOptions> listOptions(const http::Request& request) {
  ListOptions options;
  options.watch = boolParam(request, "watch").value_or(false);
  options.allowWatchBookmarks = boolParam(request, "allowWatchBookmarks").value_or(false);
  options.resourceVersion = firstParam(request, "resourceVersion").value_or("");
  options.resourceVersionMatch = firstParam(request, "resourceVersionMatch").value_or("");
  options.continueToken = firstParam(request, "continue").value_or("");
  options.sendInitialEvents = boolParam(request, "sendInitialEvents");
  // The generated conversion reads timeoutSeconds before limit; the first bad one answers.
  auto timeout = int64Param(request, "timeoutSeconds");
  if (!timeout) {
    return tl::unexpected(timeout.error());
  }
  options.timeoutSeconds = *timeout;
  auto limit = int64Param(request, "limit");
  if (!limit) {
    return tl::unexpected(limit.error());
  }
  options.limit = limit->value_or(0);

  // SetListOptionsDefaults with the WatchList feature on: a watch from "" or "0" without
  // either option is a watch-list that starts with the initial events.
  const bool legacy = options.resourceVersion.empty() || options.resourceVersion == "0";
  const bool defaulted =
      !options.sendInitialEvents && options.resourceVersionMatch.empty() && options.watch && legacy;

  api::FieldErrors problems;
  const std::string& match = options.resourceVersionMatch;
  auto forbid = [&](std::string path, std::string_view why) {
    problems.push_back({std::move(path), api::fielderr::forbidden(why)});
  };
  if (!options.watch) {
    if (!match.empty()) {
      if (options.resourceVersion.empty()) {
        forbid("resourceVersionMatch",
               "resourceVersionMatch is forbidden unless resourceVersion is provided");
      }
      if (!options.continueToken.empty()) {
        forbid("resourceVersionMatch",
               "resourceVersionMatch is forbidden when continue is provided");
      }
      if (match != "Exact" && match != "NotOlderThan") {
        problems.push_back(
            {"resourceVersionMatch",
             api::fielderr::unsupported(Json(match), {"Exact", "NotOlderThan", ""})});
      }
      if (match == "Exact" && options.resourceVersion == "0") {
        forbid("resourceVersionMatch",
               "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
      }
    }
    if (options.sendInitialEvents) {
      forbid("sendInitialEvents", "sendInitialEvents is forbidden for list");
    }
  } else if (!defaulted) {
    if (options.sendInitialEvents && match != "NotOlderThan") {
      forbid("resourceVersionMatch",
             "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
    }
    if (!match.empty()) {
      if (!options.sendInitialEvents) {
        forbid("resourceVersionMatch",
               "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided");
      }
      if (match != "NotOlderThan") {
        problems.push_back(
            {"resourceVersionMatch", api::fielderr::unsupported(Json(match), {"NotOlderThan"})});
      }
      if (!options.continueToken.empty()) {
        forbid("resourceVersionMatch",
               "resourceVersionMatch is forbidden when continue is provided");
      }
    }
  }
  if (!problems.empty()) {
    return tl::unexpected(invalidOptions("ListOptions", problems));
  }
  // The defaults only settle validation here: a legacy watch (rv "" or "0") already starts with
  // the initial events, and its end bookmark stays reserved for clients that asked for it.
  return options;
}

api::FieldErrors validateFieldManager(std::string_view fieldManager) {
  api::FieldErrors problems;
  constexpr size_t kMaxLength = 128;  // validation.FieldManagerMaxLength
  if (fieldManager.size() > kMaxLength) {
    problems.push_back({"fieldManager",
                        "Too long: may not be more than " + std::to_string(kMaxLength) + " bytes"});
  }
  for (size_t i = 0; i < fieldManager.size();) {
    size_t at = i;
    char32_t rune = nextRune(fieldManager, i);
    if (!isPrint(rune)) {
      problems.push_back(
          {"fieldManager",
           // field.Invalid renders a string value with %q, so control characters are escaped.
           "Invalid value: " + goQuote(fieldManager) + ": invalid character " +
               formatRune(rune, fieldManager.substr(at, i - at)) + " (at position " +
               std::to_string(at) + ")"});
    }
  }
  return problems;
}

std::optional<ApiError> checkWriteQuery(const http::Request& request,
                                        std::string_view optionsKind) {
  api::FieldErrors problems;
  const std::string fieldManager = firstParam(request, "fieldManager").value_or("");
  if (optionsKind == "PatchOptions") {
    std::string type = request.header("content-type");
    const bool apply = type.rfind("application/apply-patch", 0) == 0;
    if (apply && fieldManager.empty()) {
      problems.push_back({"fieldManager", "Required value: is required for apply patch"});
    }
    if (!apply && firstParam(request, "force")) {
      problems.push_back(
          {"force", api::fielderr::forbidden("may not be specified for non-apply patch")});
    }
  }
  for (auto& problem : validateFieldManager(fieldManager)) {
    problems.push_back(std::move(problem));
  }
  // dryRun is a []string: every value must be "All".
  std::vector<std::string> dryRun = allParams(request, "dryRun");
  for (const auto& value : dryRun) {
    if (value != "All") {
      problems.push_back({"dryRun", "Unsupported value: " + goStringSlice(dryRun) +
                                        ": supported values: \"All\""});
      break;
    }
  }
  std::string validation = firstParam(request, "fieldValidation").value_or("");
  if (validation != "" && validation != "Ignore" && validation != "Warn" &&
      validation != "Strict") {
    problems.push_back(
        {"fieldValidation",
         api::fielderr::unsupported(Json(validation), {"", "Ignore", "Strict", "Warn"})});
  }
  if (problems.empty()) {
    return std::nullopt;
  }
  return invalidOptions(optionsKind, problems);
}

}  // namespace nodewright::apiserver::rest
