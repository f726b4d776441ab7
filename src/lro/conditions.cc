#include "lro/conditions.h"

#include <algorithm>
#include <string>
#include <utility>

#include "api/capz/conditions.h"

namespace nodewright::lro {
namespace {

using api::capi::CapiCondition;

// What the condition says for each kind of outcome of one verb.
struct Wording {
  const char* notDoneReason;
  const char* failedReason;
  bool doneIsTrue;  // DELETE's Done is False/Deleted: the resource is not ready, it is gone
};

CapiCondition falseCondition(std::string_view type, const char* reason, const char* severity,
                             std::string message) {
  CapiCondition c;
  c.type = std::string(type);
  c.status = "False";
  c.severity = severity;
  c.reason = reason;
  c.message = std::move(message);
  return c;
}

void update(std::vector<CapiCondition>& conditions, std::string_view type,
            const ResourceRef& resource, const Outcome& outcome, core::Time now, const Wording& w) {
  CapiCondition c;
  switch (outcome.kind) {
    case Outcome::Kind::Done:
      if (w.doneIsTrue) {
        c.type = std::string(type);
        c.status = "True";
      } else {
        c = falseCondition(type, api::capz::kDeletedReason, kSeverityInfo,
                           describeResource(resource) + " has been deleted");
      }
      break;
    case Outcome::Kind::NotDone:
      c = falseCondition(type, w.notDoneReason, kSeverityInfo,
                         outcome.message.empty()
                             ? describeResource(resource) + ": operation is not done"
                             : outcome.message);
      break;
    case Outcome::Kind::Failed:
    case Outcome::Kind::Error:
      c = falseCondition(type, w.failedReason,
                         outcome.kind == Outcome::Kind::Failed ? kSeverityError : kSeverityWarning,
                         outcome.message.empty() ? describeResource(resource) + ": operation failed"
                                                 : outcome.message);
      break;
  }
  setCapiCondition(conditions, std::move(c), now);
}

// CAPI's order: Ready first, then by type.
bool before(const CapiCondition& a, const CapiCondition& b) {
  bool aReady = a.type == api::capi::kReadyCondition;
  bool bReady = b.type == api::capi::kReadyCondition;
  if (aReady != bReady) {
    return aReady;
  }
  return a.type < b.type;
}

}  // namespace

void updatePutStatus(std::vector<CapiCondition>& conditions, std::string_view conditionType,
                     const ResourceRef& resource, const Outcome& outcome, core::Time now) {
  update(conditions, conditionType, resource, outcome, now,
         Wording{api::capz::kCreatingReason, api::capz::kFailedReason, true});
}

void updatePatchStatus(std::vector<CapiCondition>& conditions, std::string_view conditionType,
                       const ResourceRef& resource, const Outcome& outcome, core::Time now) {
  update(conditions, conditionType, resource, outcome, now,
         Wording{api::capz::kUpdatingReason, api::capz::kFailedReason, true});
}

void updateDeleteStatus(std::vector<CapiCondition>& conditions, std::string_view conditionType,
                        const ResourceRef& resource, const Outcome& outcome, core::Time now) {
  update(conditions, conditionType, resource, outcome, now,
         Wording{api::capz::kDeletingReason, api::capz::kDeletionFailedReason, false});
}

void setCapiCondition(std::vector<CapiCondition>& conditions, CapiCondition condition,
                      core::Time now) {
  core::Time stamp(std::chrono::floor<std::chrono::seconds>(now.point()));
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const CapiCondition& c) { return c.type == condition.type; });
  if (it != conditions.end()) {
    // CAPI's conditions.Set: any change of what the condition says is a transition.
    bool same = it->status == condition.status && it->reason == condition.reason &&
                it->severity == condition.severity && it->message == condition.message;
    condition.lastTransitionTime = same ? it->lastTransitionTime : stamp;
    *it = std::move(condition);
    return;
  }
  condition.lastTransitionTime = stamp;
  conditions.insert(std::upper_bound(conditions.begin(), conditions.end(), condition, before),
                    std::move(condition));
}

}  // namespace nodewright::lro
