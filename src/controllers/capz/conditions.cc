#include "controllers/capz/conditions.h"

#include <string>
#include <utility>

#include "api/capz/conditions.h"

namespace nodewright::controllers::capz {
namespace {

using api::capi::CapiCondition;
using lro::Outcome;

// What the condition says for each kind of outcome of one verb.
struct Wording {
  const char* notDoneReason;
  const char* failedReason;
  bool doneIsTrue;  // DELETE's Done is False/Deleted: the resource is not ready, it is gone
};

void update(api::capi::Conditions& conditions, std::string_view type,
            const lro::ResourceRef& resource, const Outcome& outcome, core::Time now,
            const Wording& w) {
  const std::string what = lro::describeResource(resource);
  switch (outcome.kind) {
    case Outcome::Kind::Done:
      if (w.doneIsTrue) {
        api::capi::markTrue(conditions, type, now);
      } else {
        api::capi::markFalse(conditions, type, api::capz::kDeletedReason, api::capi::kSeverityInfo,
                             what + " has been deleted", now);
      }
      return;
    case Outcome::Kind::NotDone:
      api::capi::markFalse(
          conditions, type, w.notDoneReason, api::capi::kSeverityInfo,
          outcome.message.empty() ? what + ": operation is not done" : outcome.message, now);
      return;
    case Outcome::Kind::Failed:
    case Outcome::Kind::Error:
      api::capi::markFalse(conditions, type, w.failedReason,
                           outcome.kind == Outcome::Kind::Failed ? api::capi::kSeverityError
                                                                 : api::capi::kSeverityWarning,
                           outcome.message.empty() ? what + ": operation failed" : outcome.message,
                           now);
      return;
  }
}

}  // namespace

void updatePutStatus(api::capi::Conditions& conditions, std::string_view conditionType,
                     const lro::ResourceRef& resource, const Outcome& outcome, core::Time now) {
  update(conditions, conditionType, resource, outcome, now,
         Wording{api::capz::kCreatingReason, api::capz::kFailedReason, true});
}

void updatePatchStatus(api::capi::Conditions& conditions, std::string_view conditionType,
                       const lro::ResourceRef& resource, const Outcome& outcome, core::Time now) {
  update(conditions, conditionType, resource, outcome, now,
         Wording{api::capz::kUpdatingReason, api::capz::kFailedReason, true});
}

void updateDeleteStatus(api::capi::Conditions& conditions, std::string_view conditionType,
                        const lro::ResourceRef& resource, const Outcome& outcome, core::Time now) {
  update(conditions, conditionType, resource, outcome, now,
         Wording{api::capz::kDeletingReason, api::capz::kDeletionFailedReason, false});
}

}  // namespace nodewright::controllers::capz
