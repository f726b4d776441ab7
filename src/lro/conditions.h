#pragma once

#include <string_view>
#include <vector>

#include "api/capi/common.h"
#include "core/time.h"
#include "lro/operation.h"
#include "lro/outcome.h"

// A service's `<Service>Ready` condition from an engine Outcome, as CAPZ's UpdatePutStatus,
// UpdateDeleteStatus and UpdatePatchStatus set it (seed 004, "Proposed New Conditions"):
//
//   verb    Done                  NotDone            Failed / Error
//   PUT     True                  Creating, Info     Failed, Error / Warning
//   PATCH   True                  Updating, Info     Failed, Error / Warning
//   DELETE  Deleted, Info         Deleting, Info     DeletionFailed, Error / Warning
//
// A transient Error (timeout, 5xx, deadline) is a Warning: the call is retried, nothing is
// known to be wrong with the resource. Messages name the resource. lastTransitionTime moves
// when the status, reason, severity or message changes (CAPI's conditions.Set); conditions stay
// in CAPI's order (Ready first, then by type).
namespace nodewright::lro {

inline constexpr const char* kSeverityInfo = "Info";
inline constexpr const char* kSeverityWarning = "Warning";
inline constexpr const char* kSeverityError = "Error";

void updatePutStatus(std::vector<api::capi::CapiCondition>& conditions,
                     std::string_view conditionType, const ResourceRef& resource,
                     const Outcome& outcome, core::Time now);
void updatePatchStatus(std::vector<api::capi::CapiCondition>& conditions,
                       std::string_view conditionType, const ResourceRef& resource,
                       const Outcome& outcome, core::Time now);
void updateDeleteStatus(std::vector<api::capi::CapiCondition>& conditions,
                        std::string_view conditionType, const ResourceRef& resource,
                        const Outcome& outcome, core::Time now);

// Adds or replaces the condition of its type; lastTransitionTime is `now` (truncated to
// seconds, as CAPI stores it) when the condition is new or its status, reason, severity or
// message changed, otherwise kept.
void setCapiCondition(std::vector<api::capi::CapiCondition>& conditions,
                      api::capi::CapiCondition condition, core::Time now);

}  // namespace nodewright::lro
