#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/time.h"

// A disruption command, kept on the candidate NodeClaim (annotation nodewright.sh/disruption)
// from before its first side effect until the claim is gone. Everything the controller does
// for it is derived from this record and the API objects, so a controller killed at any point
// resumes the command instead of starting a second one: replacement names are fixed when the
// command starts, and the candidate is deleted only once every replacement is Initialized.
namespace nodewright::controllers::disruption {

// The candidate is tainted and its replacements are being created.
inline constexpr const char* kPhaseLaunching = "Launching";
// Every replacement exists; waiting for all of them to be Initialized.
inline constexpr const char* kPhaseReplacing = "Replacing";
// The candidate is being deleted; the termination flow drains it.
inline constexpr const char* kPhaseDeleting = "Deleting";

struct Command {
  std::string reason;  // Drifted | Expired | Empty
  std::string phase;
  std::vector<std::string> replacements;  // NodeClaim names
  core::TimePoint started;
  // Which budget allowed it, for `kubectl describe` and the plan.
  std::string budget;
  // Consolidation's: the one replacement may only be one of these instance types (those cheaper
  // than the candidate), on this capacity type when set; re-applied whenever the replacement is
  // simulated again, so a resumed command launches what was decided.
  std::vector<std::string> instanceTypes;
  std::string capacityType;
  std::string consolidationType;  // "empty" | "single" | "multi"; "" for drift and expiry
  // Multi-node replacement: several candidates, one new node. One command, the lead's, creates
  // the replacement for the pods of all of them and names the others in `group`; each other
  // candidate carries a command naming the lead in `lead`, with the lead's replacement names
  // and start, and only waits for those replacements before it is deleted. The followers are
  // recorded before the lead, so a follower whose lead never recorded the command gives up.
  std::vector<std::string> group;
  std::string lead;

  bool operator==(const Command&) const = default;
};

std::string encode(const Command& command);
core::Result<Command> decodeCommand(const std::string& text);

// The name of replacement `index` of a command: the pool's name and a suffix fixed by the
// candidate's uid and the command's start, so a resumed command finds what it created and a
// later command on the same candidate does not collide with the leftovers of one that failed.
std::string replacementName(const std::string& pool, const std::string& candidateUid,
                            core::TimePoint started, size_t index);

}  // namespace nodewright::controllers::disruption
