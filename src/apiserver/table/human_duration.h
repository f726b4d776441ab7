#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "api/reflect/json.h"
#include "core/time.h"

// The age strings kubectl users read in tables, as apimachinery's duration.HumanDuration and
// kube-apiserver's printers produce them. `now` is always passed in: tables never read the clock.
namespace nodewright::apiserver {

// "5s", "3m2s", "15m", "5h3m", "20h", "2d5h", "45d", "2y3d", "9y": at most two units. A negative
// duration within two seconds reads "0s" (clock skew); further in the future, "<invalid>".
std::string humanDuration(std::chrono::microseconds elapsed);

// A metav1.Time JSON value: nullopt when absent, not a string, empty or unparseable.
std::optional<core::TimePoint> parseTimestamp(const api::Json* value);

// translateTimestampSince: "<unknown>" without a timestamp, else humanDuration(now - timestamp).
std::string ageSince(const api::Json* timestamp, core::TimePoint now);

}  // namespace nodewright::apiserver
