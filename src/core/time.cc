#include "core/time.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace nodewright::core {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

bool isLeapYear(int64_t year) {
  return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

int daysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && isLeapYear(year) ? 29 : kDays[month - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (the era-based civil calendar algorithm).
int64_t daysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t yearOfEra = year - era * 400;  // [0, 399]
  const int64_t dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const int64_t dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
  return era * 146'097 + dayOfEra - 719'468;
}

struct CivilDate {
  int64_t year;
  int month;
  int day;
};

// The inverse of daysFromCivil.
CivilDate civilFromDays(int64_t days) {
  days += 719'468;
  const int64_t era = (days >= 0 ? days : days - 146'096) / 146'097;
  const int64_t dayOfEra = days - era * 146'097;  // [0, 146096]
  const int64_t yearOfEra =
      (dayOfEra - dayOfEra / 1460 + dayOfEra / 36'524 - dayOfEra / 146'096) / 365;  // [0, 399]
  const int64_t dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
  const int64_t shiftedMonth = (5 * dayOfYear + 2) / 153;  // [0, 11], March first
  const int day = static_cast<int>(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1);
  const int month = static_cast<int>(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9);
  return {yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// Reads a fixed-width run of digits; nullopt if any is not a digit.
std::optional<int> readDigits(std::string_view text, size_t pos, size_t width) {
  int value = 0;
  for (size_t i = pos; i < pos + width; ++i) {
    if (!isDigit(text[i])) {
      return std::nullopt;
    }
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  out.append(text);
  out += '"';
  return out;
}

Error shapeError(std::string_view text) {
  return Error::invalid("parsing time " + quote(text) +
                        ": not RFC 3339 (like \"2006-01-02T15:04:05Z07:00\")");
}

Error rangeError(std::string_view text, std::string_view field) {
  return Error::invalid("parsing time " + quote(text) + ": " + std::string(field) +
                        " out of range");
}

}  // namespace

Result<Time> Time::parse(std::string_view text) {
  // Fixed part: "2006-01-02T15:04:05".
  constexpr size_t kFixedLength = 19;
  if (text.size() < kFixedLength || text[4] != '-' || text[7] != '-' || text[10] != 'T' ||
      text[13] != ':' || text[16] != ':') {
    return fail(shapeError(text));
  }
  const std::optional<int> year = readDigits(text, 0, 4);
  const std::optional<int> month = readDigits(text, 5, 2);
  const std::optional<int> day = readDigits(text, 8, 2);
  const std::optional<int> hour = readDigits(text, 11, 2);
  const std::optional<int> minute = readDigits(text, 14, 2);
  const std::optional<int> second = readDigits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) {
    return fail(shapeError(text));
  }
  if (*month < 1 || *month > 12) {
    return fail(rangeError(text, "month"));
  }
  if (*day < 1 || *day > daysInMonth(*year, *month)) {
    return fail(rangeError(text, "day"));
  }
  if (*hour > 23) {
    return fail(rangeError(text, "hour"));
  }
  if (*minute > 59) {
    return fail(rangeError(text, "minute"));
  }
  if (*second > 59) {  // like Go, no leap seconds
    return fail(rangeError(text, "second"));
  }

  // Optional fraction; Go's parser also takes a comma. Digits past microseconds are dropped.
  size_t pos = kFixedLength;
  int64_t micros = 0;
  if (pos + 1 < text.size() && (text[pos] == '.' || text[pos] == ',') && isDigit(text[pos + 1])) {
    ++pos;
    int64_t scale = kMicrosPerSecond;
    while (pos < text.size() && isDigit(text[pos])) {
      if (scale > 1) {
        scale /= 10;
        micros += (text[pos] - '0') * scale;
      }
      ++pos;
    }
  }

  // Zone: "Z" or a numeric offset "+hh:mm" / "-hh:mm".
  const std::string_view zone = text.substr(pos);
  int64_t offsetSeconds = 0;
  if (zone != "Z") {
    if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':') {
      return fail(shapeError(text));
    }
    const std::optional<int> offsetHours = readDigits(zone, 1, 2);
    const std::optional<int> offsetMinutes = readDigits(zone, 4, 2);
    if (!offsetHours || !offsetMinutes) {
      return fail(shapeError(text));
    }
    if (*offsetHours > 23 || *offsetMinutes > 59) {
      return fail(rangeError(text, "time zone offset"));
    }
    offsetSeconds = (int64_t{*offsetHours} * 60 + *offsetMinutes) * 60;
    if (zone[0] == '-') {
      offsetSeconds = -offsetSeconds;
    }
  }

  const int64_t days = daysFromCivil(*year, *month, *day);
  const int64_t seconds =
      days * 86'400 + int64_t{*hour} * 3600 + int64_t{*minute} * 60 + *second - offsetSeconds;
  return Time(TimePoint(std::chrono::microseconds(seconds * kMicrosPerSecond + micros)));
}

std::string Time::toString() const {
  const int64_t micros = point_.time_since_epoch().count();
  // Floor division, so instants before 1970 land on the right day.
  int64_t days = micros / kMicrosPerDay;
  int64_t ofDay = micros % kMicrosPerDay;
  if (ofDay < 0) {
    ofDay += kMicrosPerDay;
    --days;
  }
  const CivilDate date = civilFromDays(days);
  const int64_t secondOfDay = ofDay / kMicrosPerSecond;
  const int64_t fraction = ofDay % kMicrosPerSecond;

  // Years are at least four digits with the sign in front, as Go prints them.
  char buffer[64];
  const int length = std::snprintf(
      buffer, sizeof(buffer), "%s%04lld-%02d-%02dT%02lld:%02lld:%02lld", date.year < 0 ? "-" : "",
      static_cast<long long>(std::llabs(date.year)), date.month, date.day,
      static_cast<long long>(secondOfDay / 3600), static_cast<long long>(secondOfDay / 60 % 60),
      static_cast<long long>(secondOfDay % 60));
  std::string out(buffer, static_cast<size_t>(length));
  if (fraction != 0) {
    std::snprintf(buffer, sizeof(buffer), ".%06lld", static_cast<long long>(fraction));
    out += buffer;
  }
  out += 'Z';
  return out;
}

}  // namespace nodewright::core
