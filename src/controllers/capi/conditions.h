#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/capi/common.h"
#include "core/time.h"

// CAPI v1beta1 conditions on the core kinds. (lro::setCapiCondition does the same for the CAPZ
// kinds; nw_capi does not link nw_lro, which is about cloud futures.)
namespace nodewright::controllers::capi {

using Conditions = std::vector<api::capi::CapiCondition>;

inline constexpr const char* kSeverityInfo = "Info";
inline constexpr const char* kSeverityWarning = "Warning";
inline constexpr const char* kSeverityError = "Error";

// Adds or replaces the condition of its type. lastTransitionTime becomes `now` (whole seconds,
// as CAPI stores it) only when the status, reason, severity or message changed, so rewriting
// the same state is not a change. Ready stays first, the rest by type (CAPI's order).
void setCondition(Conditions& conditions, api::capi::CapiCondition condition, core::Time now);
void markTrue(Conditions& conditions, std::string_view type, core::Time now);
void markFalse(Conditions& conditions, std::string_view type, std::string_view reason,
               std::string_view severity, std::string message, core::Time now);

const api::capi::CapiCondition* findCondition(const Conditions& conditions, std::string_view type);
bool isTrue(const Conditions& conditions, std::string_view type);

}  // namespace nodewright::controllers::capi
