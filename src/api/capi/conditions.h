#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/capi/common.h"
#include "core/time.h"

// CAPI v1beta1's condition setters (util/conditions): the one implementation, used by the CAPI
// controllers for the core kinds and by the CAPZ controllers for the infrastructure kinds.
namespace nodewright::api::capi {

using Conditions = std::vector<CapiCondition>;

// Severities of a False condition.
inline constexpr const char* kSeverityInfo = "Info";
inline constexpr const char* kSeverityWarning = "Warning";
inline constexpr const char* kSeverityError = "Error";

// Adds or replaces the condition of its type. lastTransitionTime becomes `now` (whole seconds,
// as CAPI stores it) only when the condition is new or its status, reason, severity or message
// changed, so rewriting the same state is not a transition. Ready stays first, the rest by type
// (CAPI's order, which kubectl shows).
void setCondition(Conditions& conditions, CapiCondition condition, core::Time now);
void markTrue(Conditions& conditions, std::string_view type, core::Time now);
void markFalse(Conditions& conditions, std::string_view type, std::string_view reason,
               std::string_view severity, std::string message, core::Time now);

// The condition of `type`, or nullptr; valid until `conditions` changes.
const CapiCondition* findCondition(const Conditions& conditions, std::string_view type);
bool isTrue(const Conditions& conditions, std::string_view type);

}  // namespace nodewright::api::capi
