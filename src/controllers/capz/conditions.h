#pragma once

#include <string_view>

#include "api/capi/conditions.h"
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
// known to be wrong with the resource. Messages name the resource. The condition is written
// with api::capi::setCondition (CAPI's conditions.Set).
namespace nodewright::controllers::capz {

void updatePutStatus(api::capi::Conditions& conditions, std::string_view conditionType,
                     const lro::ResourceRef& resource, const lro::Outcome& outcome, core::Time now);
void updatePatchStatus(api::capi::Conditions& conditions, std::string_view conditionType,
                       const lro::ResourceRef& resource, const lro::Outcome& outcome,
                       core::Time now);
void updateDeleteStatus(api::capi::Conditions& conditions, std::string_view conditionType,
                        const lro::ResourceRef& resource, const lro::Outcome& outcome,
                        core::Time now);

}  // namespace nodewright::controllers::capz
