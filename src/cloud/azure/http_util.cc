#include "cloud/azure/http_util.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/text.h"

namespace nodewright::cloud::azure {
namespace {

std::optional<int64_t> parseNonNegative(std::string_view text) {
  text = core::trimSpace(text);
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0) {
    return std::nullopt;
  }
  return value;
}

int monthNumber(const char* name) {
  static constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (std::strcmp(name, kMonths[i]) == 0) {
      return static_cast<int>(i) + 1;
    }
  }
  return 0;
}

// The three HTTP-date forms of RFC 9110 section 5.6.7, always UTC.
std::optional<core::TimePoint> parseHttpDate(std::string_view value) {
  const std::string text(core::trimSpace(value));
  char weekday[16] = {0};
  char month[4] = {0};
  char zone[4] = {0};
  int day = 0;
  int year = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  int consumed = 0;
  bool parsed = std::sscanf(text.c_str(), "%15[A-Za-z], %2d %3s %4d %2d:%2d:%2d %3s%n", weekday,
                            &day, month, &year, &hour, &minute, &second, zone, &consumed) == 8 &&
                consumed == static_cast<int>(text.size());
  if (!parsed) {  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
    consumed = 0;
    parsed = std::sscanf(text.c_str(), "%15[A-Za-z], %2d-%3s-%2d %2d:%2d:%2d %3s%n", weekday, &day,
                         month, &year, &hour, &minute, &second, zone, &consumed) == 8 &&
             consumed == static_cast<int>(text.size());
    if (parsed) {
      // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
      year += year < 70 ? 2000 : 1900;
    }
  }
  if (!parsed) {  // asctime: Sun Nov  6 08:49:37 1994
    consumed = 0;
    parsed = std::sscanf(text.c_str(), "%15[A-Za-z] %3s %2d %2d:%2d:%2d %4d%n", weekday, month,
                         &day, &hour, &minute, &second, &year, &consumed) == 7 &&
             consumed == static_cast<int>(text.size());
    std::strcpy(zone, "GMT");
  }
  const int monthIndex = monthNumber(month);
  if (!parsed || std::strcmp(zone, "GMT") != 0 || monthIndex == 0 || hour > 23 || minute > 59 ||
      second > 60) {
    return std::nullopt;
  }
  const std::chrono::year_month_day date{std::chrono::year(year),
                                         std::chrono::month(static_cast<unsigned>(monthIndex)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) {
    return std::nullopt;
  }
  const auto at = std::chrono::sys_days(date) + std::chrono::hours(hour) +
                  std::chrono::minutes(minute) + std::chrono::seconds(second);
  return std::chrono::time_point_cast<std::chrono::microseconds>(at);
}

}  // namespace

std::optional<std::chrono::milliseconds> parseRetryAfter(std::string_view value,
                                                         core::TimePoint now) {
  if (auto seconds = parseNonNegative(value)) {
    // Beyond a day is nonsense from a server; cap it rather than overflow.
    return std::chrono::milliseconds(std::min<int64_t>(*seconds, 86400) * 1000);
  }
  auto at = parseHttpDate(value);
  if (!at) {
    return std::nullopt;
  }
  if (*at <= now) {
    return std::chrono::milliseconds(0);
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*at - now);
}

std::optional<std::chrono::milliseconds> retryAfterFromHeaders(
    const std::map<std::string, std::string>& headers, core::TimePoint now) {
  for (const char* name : {"retry-after-ms", "x-ms-retry-after-ms"}) {
    auto it = headers.find(name);
    if (it != headers.end()) {
      if (auto ms = parseNonNegative(it->second)) {
        return std::chrono::milliseconds(std::min<int64_t>(*ms, 86400000));
      }
    }
  }
  auto it = headers.find("retry-after");
  if (it == headers.end()) {
    return std::nullopt;
  }
  return parseRetryAfter(it->second, now);
}

std::string percentEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::optional<std::string> urlOrigin(std::string_view url) {
  const size_t schemeEnd = url.find("://");
  if (schemeEnd == std::string_view::npos) {
    return std::nullopt;
  }
  std::string scheme(url.substr(0, schemeEnd));
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (scheme != "https" && scheme != "http") {
    return std::nullopt;
  }
  std::string_view rest = url.substr(schemeEnd + 3);
  const size_t authorityEnd = rest.find_first_of("/?#");
  std::string authority(rest.substr(0, authorityEnd));
  if (authority.empty() || authority.find('@') != std::string::npos) {
    return std::nullopt;  // user info never belongs in an ARM URL
  }
  std::transform(authority.begin(), authority.end(), authority.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const size_t bracket = authority.rfind(']');
  const size_t colon = authority.rfind(':');
  const bool hasPort =
      colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
  if (!hasPort) {
    authority += scheme == "https" ? ":443" : ":80";
  }
  return scheme + "://" + authority;
}

bool plainUrl(std::string_view url) {
  return std::all_of(url.begin(), url.end(),
                     [](unsigned char c) { return c > 0x20 && c < 0x7f; }) &&
         urlOrigin(url).has_value();
}

bool validUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    uint32_t min = 0;
    uint32_t code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      length = 2;
      min = 0x80;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3;
      min = 0x800;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      length = 4;
      min = 0x10000;
      code = c & 0x07;
    } else {
      return false;
    }
    if (i + length > text.size()) {
      return false;
    }
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) {
        return false;
      }
      code = (code << 6) | (next & 0x3F);
    }
    // Overlong forms, surrogates and code points past Unicode's end are not UTF-8.
    if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
      return false;
    }
    i += length;
  }
  return true;
}

std::string withApiVersion(const std::string& url, std::string_view version) {
  const char separator = url.find('?') == std::string::npos ? '?' : '&';
  return url + separator + "api-version=" + percentEncode(version);
}

}  // namespace nodewright::cloud::azure
