#include "core/cron.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace nodewright::core {
namespace {

namespace chr = std::chrono;

// One cron field. `openEnd` is where `*` and `N/step` stop: day-of-week accepts 7 (Sunday) when
// written, but `*/2` must mean 0,2,4,6 as in robfig, not 0,2,4,6,7.
struct FieldRule {
  const char* name;
  int min;
  int max;
  int openEnd;
  const char* nameKind;                      // "month name (JAN-DEC)"; nullptr: numbers only
  const std::array<const char*, 13>* names;  // lower case, indexed by value
};

constexpr std::array<const char*, 13> kMonthNames = {
    "", "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<const char*, 13> kDayNames = {"sun", "mon", "tue", "wed", "thu", "fri", "sat",
                                                   "",    "",    "",    "",    "",    ""};

constexpr FieldRule kMinute{"minute", 0, 59, 59, nullptr, nullptr};
constexpr FieldRule kHour{"hour", 0, 23, 23, nullptr, nullptr};
constexpr FieldRule kDayOfMonth{"day-of-month", 1, 31, 31, nullptr, nullptr};
constexpr FieldRule kMonth{"month", 1, 12, 12, "month name (JAN-DEC)", &kMonthNames};
constexpr FieldRule kDayOfWeek{"day-of-week", 0, 7, 6, "day name (SUN-SAT)", &kDayNames};

struct Field {
  uint64_t bits = 0;
  bool any = false;  // written as an unstepped `*` or `?`
};

Error fieldError(const FieldRule& rule, const std::string& message) {
  return Error::invalid(std::string(rule.name) + ": " + message);
}

std::string quote(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

// Splits at each character `isSep` accepts; empty parts only when `keepEmpty`.
template <class Pred>
std::vector<std::string_view> split(std::string_view text, Pred isSep, bool keepEmpty = true) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || isSep(text[i])) {
      if (keepEmpty || i > start) {
        parts.push_back(text.substr(start, i - start));
      }
      start = i + 1;
    }
  }
  return parts;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  return split(text, [sep](char c) { return c == sep; });
}

// Digits only: robfig rejects signs ("negative number not allowed"); 6 digits is ample.
std::optional<int> parseNumber(std::string_view text) {
  if (text.empty() || text.size() > 6) {
    return std::nullopt;
  }
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + (c - '0');
  }
  return value;
}

Result<int> parseValue(const FieldRule& rule, std::string_view text) {
  int value = 0;
  if (auto number = parseNumber(text)) {
    value = *number;
  } else {
    std::string lower;
    for (char c : text) {
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    bool found = false;
    for (size_t i = 0; rule.names != nullptr && i < rule.names->size(); ++i) {
      if (*(*rule.names)[i] != '\0' && lower == (*rule.names)[i]) {
        value = static_cast<int>(i);
        found = true;
      }
    }
    if (!found) {
      std::string kind = rule.nameKind ? std::string("a number or ") + rule.nameKind : "a number";
      return fail(fieldError(rule, quote(text) + " is not " + kind));
    }
  }
  if (value < rule.min || value > rule.max) {
    return fail(fieldError(rule, std::to_string(value) + " is out of range " +
                                     std::to_string(rule.min) + "-" + std::to_string(rule.max)));
  }
  return value;
}

// One list element: `*`, `?`, N, N-M, each optionally /step.
Status parseRange(const FieldRule& rule, std::string_view text, Field& field) {
  if (text.empty()) {
    return fail(fieldError(rule, "empty list element"));
  }
  if (text[0] == '-') {
    return fail(fieldError(rule, quote(text) + ": negative numbers are not allowed"));
  }
  auto slash = split(text, '/');
  if (slash.size() > 2) {
    return fail(fieldError(rule, quote(text) + " has more than one '/'"));
  }
  int step = 1;
  if (slash.size() == 2) {
    auto parsed = parseNumber(slash[1]);
    if (!parsed) {
      return fail(fieldError(rule, "step " + quote(slash[1]) + " is not a number"));
    }
    if (*parsed == 0) {
      return fail(fieldError(rule, "step must be positive in " + quote(text)));
    }
    step = *parsed;
  }
  int low = rule.min;
  int high = rule.openEnd;
  bool any = false;
  if (slash[0] == "*" || slash[0] == "?") {
    any = step == 1;
  } else {
    auto hyphen = split(slash[0], '-');
    if (hyphen.size() > 2) {
      return fail(fieldError(rule, quote(text) + " has more than one '-'"));
    }
    auto first = parseValue(rule, hyphen[0]);
    if (!first) {
      return fail(first.error());
    }
    low = *first;
    if (hyphen.size() == 2) {
      auto last = parseValue(rule, hyphen[1]);
      if (!last) {
        return fail(last.error());
      }
      high = *last;
    } else {
      // robfig: "N/step" runs from N to the field's end; a plain N is just N.
      high = slash.size() == 2 ? std::max(low, rule.openEnd) : low;
    }
    if (low > high) {
      return fail(fieldError(rule, "range " + std::to_string(low) + "-" + std::to_string(high) +
                                       " ends before it starts"));
    }
  }
  for (int v = low; v <= high; v += step) {
    field.bits |= uint64_t{1} << v;
  }
  field.any = field.any || any;
  return ok();
}

Result<Field> parseField(const FieldRule& rule, std::string_view text) {
  Field field;
  for (std::string_view part : split(text, ',')) {
    if (auto status = parseRange(rule, part, field); !status) {
      return fail(status.error());
    }
  }
  return field;
}

// The robfig descriptors, as the five fields they stand for.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kMacros = {
    {{"@yearly", "0 0 1 1 *"},
     {"@annually", "0 0 1 1 *"},
     {"@monthly", "0 0 1 * *"},
     {"@weekly", "0 0 * * 0"},
     {"@daily", "0 0 * * *"},
     {"@midnight", "0 0 * * *"},
     {"@hourly", "0 * * * *"}}};

std::optional<std::string_view> expandMacro(std::string_view spec) {
  for (const auto& [name, fields] : kMacros) {
    if (spec == name) {
      return fields;
    }
  }
  return std::nullopt;
}

std::vector<std::string_view> fields(std::string_view text) {
  return split(
      text, [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }, false);
}

// The lowest set bit of `mask` at or above `from`, or -1.
int nextBit(uint64_t mask, int from) {
  if (from >= 64) {
    return -1;
  }
  uint64_t rest = (mask >> from) << from;
  return rest == 0 ? -1 : std::countr_zero(rest);
}

int daysIn(int year, int month) {
  return static_cast<int>(static_cast<unsigned>(
      chr::year_month_day_last(chr::year(year), chr::month_day_last(chr::month(month))).day()));
}

int weekdayOf(int year, int month, int day) {
  chr::sys_days days{chr::year(year) / chr::month(month) / chr::day(day)};
  return static_cast<int>(chr::weekday(days).c_encoding());
}

// std::chrono::year stops at 32767; searches never get near it in practice.
constexpr int kLastSearchableYear = 32000;

}  // namespace

Result<CronSchedule> CronSchedule::parse(std::string_view spec) {
  auto parts = fields(spec);
  if (parts.empty()) {
    return fail(Error::invalid("empty schedule"));
  }
  if (parts[0].starts_with("TZ=") || parts[0].starts_with("CRON_TZ=")) {
    return fail(Error::invalid("time zones (" + std::string(parts[0]) +
                               ") are not supported: schedules are evaluated in UTC"));
  }
  std::string_view text = spec;
  if (parts[0].starts_with("@")) {
    auto expanded = parts.size() == 1 ? expandMacro(parts[0]) : std::nullopt;
    if (!expanded) {
      return fail(Error::invalid(
          "unknown macro " + quote(parts.size() == 1 ? parts[0] : spec) +
          ": want one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly"));
    }
    text = *expanded;
    parts = fields(text);
  }
  if (parts.size() != 5) {
    return fail(
        Error::invalid("expected 5 fields (minute hour day-of-month month day-of-week), "
                       "found " +
                       std::to_string(parts.size())));
  }
  CronSchedule schedule;
  std::array<Field, 5> parsed;
  const std::array<const FieldRule*, 5> rules = {&kMinute, &kHour, &kDayOfMonth, &kMonth,
                                                 &kDayOfWeek};
  for (size_t i = 0; i < 5; ++i) {
    auto field = parseField(*rules[i], parts[i]);
    if (!field) {
      return fail(field.error());
    }
    parsed[i] = *field;
  }
  schedule.spec_ = std::string(spec);
  schedule.minutes_ = parsed[0].bits;
  schedule.hours_ = static_cast<uint32_t>(parsed[1].bits);
  schedule.daysOfMonth_ = static_cast<uint32_t>(parsed[2].bits);
  schedule.months_ = static_cast<uint16_t>(parsed[3].bits);
  // Day-of-week 7 is Sunday.
  uint64_t dow = parsed[4].bits;
  schedule.daysOfWeek_ = static_cast<uint8_t>((dow | (dow >> 7)) & 0x7F);
  schedule.anyDayOfMonth_ = parsed[2].any;
  schedule.anyDayOfWeek_ = parsed[4].any;
  return schedule;
}

bool CronSchedule::dayMatches(int dayOfMonth, int dayOfWeek) const {
  bool domMatch = ((daysOfMonth_ >> dayOfMonth) & 1U) != 0;
  bool dowMatch = ((daysOfWeek_ >> dayOfWeek) & 1U) != 0;
  // robfig's rule: a `*` in either day field makes them AND (the `*` matches anyway); both
  // restricted OR, so "0 0 1 * MON" fires on the 1st and on every Monday.
  if (anyDayOfMonth_ || anyDayOfWeek_) {
    return domMatch && dowMatch;
  }
  return domMatch || dowMatch;
}

bool CronSchedule::matches(TimePoint t) const {
  auto minute = chr::floor<chr::minutes>(t);
  auto day = chr::floor<chr::days>(minute);
  chr::year_month_day ymd(day);
  chr::hh_mm_ss<chr::minutes> clock(minute - day);
  return ((months_ >> static_cast<unsigned>(ymd.month())) & 1U) != 0 &&
         dayMatches(static_cast<int>(static_cast<unsigned>(ymd.day())),
                    static_cast<int>(chr::weekday(day).c_encoding())) &&
         ((hours_ >> clock.hours().count()) & 1U) != 0 &&
         ((minutes_ >> clock.minutes().count()) & 1U) != 0;
}

std::optional<TimePoint> CronSchedule::next(TimePoint after) const {
  // The first whole minute strictly after `after`.
  auto start = chr::floor<chr::minutes>(after) + chr::minutes(1);
  auto startDay = chr::floor<chr::days>(start);
  chr::year_month_day ymd(startDay);
  int year = static_cast<int>(ymd.year());
  int month = static_cast<int>(static_cast<unsigned>(ymd.month()));
  int day = static_cast<int>(static_cast<unsigned>(ymd.day()));
  chr::hh_mm_ss<chr::minutes> clock(start - startDay);
  int hour = static_cast<int>(clock.hours().count());
  int minute = static_cast<int>(clock.minutes().count());
  const int yearLimit = year + 5;
  if (yearLimit > kLastSearchableYear) {
    return std::nullopt;
  }

  // Each step moves to the earliest time the failing field allows, resetting the smaller
  // fields; at most (months + days + hours) steps per year. Bits above a field's range are
  // never set, so nextBit() finds only valid values.
  auto startMonth = [&](int m) {  // 13: January of the next year
    if (m > 12) {
      ++year;
      m = 1;
    }
    month = m;
    day = 1;
    hour = 0;
    minute = 0;
  };
  auto nextDay = [&] {
    ++day;
    hour = 0;
    minute = 0;
  };
  while (year <= yearLimit) {
    if (((months_ >> month) & 1U) == 0) {
      int m = nextBit(months_, month + 1);
      startMonth(m < 0 ? 13 : m);
      continue;
    }
    if (day > daysIn(year, month)) {
      startMonth(month + 1);
      continue;
    }
    if (!dayMatches(day, weekdayOf(year, month, day))) {
      nextDay();
      continue;
    }
    int h = nextBit(hours_, hour);
    if (h < 0) {
      nextDay();
      continue;
    }
    if (h != hour) {
      hour = h;
      minute = 0;
    }
    int m = nextBit(minutes_, minute);
    if (m < 0) {
      ++hour;
      minute = 0;
      if (hour > 23) {
        nextDay();
      }
      continue;
    }
    chr::sys_days date{chr::year(year) / chr::month(month) / chr::day(day)};
    return chr::time_point_cast<chr::microseconds>(date + chr::hours(hour) + chr::minutes(m));
  }
  return std::nullopt;
}

bool windowOpen(const CronSchedule& schedule, chr::microseconds duration, TimePoint now) {
  auto hit = schedule.next(now - duration);
  return hit.has_value() && *hit <= now;
}

}  // namespace nodewright::core
