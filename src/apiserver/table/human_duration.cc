#include "apiserver/table/human_duration.h"

#include <cstdint>

namespace nodewright::apiserver {
namespace {

std::string units(int64_t major, const char* majorUnit, int64_t minor, const char* minorUnit) {
  std::string out = std::to_string(major) + majorUnit;
  if (minor != 0) {
    out += std::to_string(minor) + minorUnit;
  }
  return out;
}

}  // namespace

std::string humanDuration(std::chrono::microseconds elapsed) {
  using std::chrono::duration_cast;
  // Truncating toward zero, as Go's int(d.Seconds()) does, is what lets -1.9s read "0s".
  const int64_t seconds = duration_cast<std::chrono::seconds>(elapsed).count();
  if (seconds < -1) {
    return "<invalid>";
  }
  if (seconds < 0) {
    return "0s";
  }
  if (seconds < 60 * 2) {
    return std::to_string(seconds) + "s";
  }
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    return units(minutes, "m", seconds % 60, "s");
  }
  if (minutes < 60 * 3) {
    return std::to_string(minutes) + "m";
  }
  const int64_t hours = minutes / 60;
  if (hours < 8) {
    return units(hours, "h", minutes % 60, "m");
  }
  if (hours < 48) {
    return std::to_string(hours) + "h";
  }
  if (hours < 24 * 8) {
    return units(hours / 24, "d", hours % 24, "h");
  }
  if (hours < 24 * 365 * 2) {
    return std::to_string(hours / 24) + "d";
  }
  if (hours < 24 * 365 * 8) {
    return units(hours / 24 / 365, "y", (hours / 24) % 365, "d");
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::optional<core::TimePoint> parseTimestamp(const api::Json* value) {
  if (value == nullptr || !value->is_string() || value->get_ref<const std::string&>().empty()) {
    return std::nullopt;
  }
  const std::string& text = value->get_ref<const std::string&>();
  // Go's zero time is how a cleared metav1.Time can still be spelled.
  if (text.starts_with("0001-01-01T00:00:00")) {
    return std::nullopt;
  }
  auto parsed = core::Time::parse(text);
  if (!parsed) {
    return std::nullopt;
  }
  return parsed->point();
}

std::string ageSince(const api::Json* timestamp, core::TimePoint now) {
  const std::optional<core::TimePoint> then = parseTimestamp(timestamp);
  if (!then) {
    return "<unknown>";
  }
  return humanDuration(now - *then);
}

}  // namespace nodewright::apiserver
