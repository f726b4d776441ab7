#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/time.h"

namespace nodewright::core {

// A standard five-field cron schedule (minute hour day-of-month month day-of-week), read as
// robfig/cron's ParseStandard reads it, since Karpenter's budget schedules go through it:
// `*` (or `?`), lists, ranges, steps (`*/15`, `1-5/2`, and `N/step` meaning N to the field's end),
// month names JAN-DEC and day names SUN-SAT in any case, and the macros @yearly @annually
// @monthly @weekly @daily @midnight @hourly. Beyond robfig, day-of-week 7 is Sunday as in
// crontab. When both day fields are restricted a day matches if either does (crontab's rule);
// when either is `*`, both must. Evaluated in UTC: time zones (TZ=) and @every are rejected.
// Immutable; safe to share between threads.
class CronSchedule {
 public:
  // Invalid errors name the field: "day-of-week: 8 is out of range 0-7".
  static Result<CronSchedule> parse(std::string_view spec);

  // The first hit strictly after `after`, on a whole minute; nullopt when there is none up to
  // the end of the fifth year after `after`'s (robfig's horizon: "0 0 30 2 *" never fires).
  // Skips whole months, days and hours that cannot match, so a year's search is a few hundred
  // steps at most.
  std::optional<TimePoint> next(TimePoint after) const;

  // Whether the minute containing `t` is a hit.
  bool matches(TimePoint t) const;

  // The text as parsed.
  const std::string& spec() const { return spec_; }

 private:
  CronSchedule() = default;
  bool dayMatches(int dayOfMonth, int dayOfWeek) const;

  std::string spec_;
  uint64_t minutes_ = 0;      // bit m: minute m (0-59)
  uint32_t hours_ = 0;        // bit h: hour h (0-23)
  uint32_t daysOfMonth_ = 0;  // bit d: day d (1-31)
  uint16_t months_ = 0;       // bit m: month m (1-12)
  uint8_t daysOfWeek_ = 0;    // bit d: weekday d (0 = Sunday)
  // Written as `*` (or `?`, unstepped): then the day rule is AND, not OR.
  bool anyDayOfMonth_ = false;
  bool anyDayOfWeek_ = false;
};

// Whether a window of `duration` opened by each hit of `schedule` covers `now`, as Karpenter's
// Budget.IsActive decides: open from a hit's minute until `duration` later (exclusive), so a
// zero duration is never open.
bool windowOpen(const CronSchedule& schedule, std::chrono::microseconds duration, TimePoint now);

}  // namespace nodewright::core
