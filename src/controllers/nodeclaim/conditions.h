#pragma once

#include <string>
#include <vector>

#include "api/meta.h"
#include "core/time.h"

// metav1.Condition bookkeeping as Karpenter's status conditions keep it: lastTransitionTime moves
// only when the status flips, so it dates the transition (the registration timeout counts from
// the Launched one).
namespace nodewright::controllers::nodeclaim {

inline constexpr const char* kTrue = "True";
inline constexpr const char* kFalse = "False";
inline constexpr const char* kUnknown = "Unknown";

// The condition of `type`, or nullptr.
const api::Condition* findCondition(const std::vector<api::Condition>& conditions,
                                    const std::string& type);
bool isTrue(const std::vector<api::Condition>& conditions, const std::string& type);

// Sets (or adds) the condition of `type`. `now` becomes lastTransitionTime only when the status
// changes (or the condition is new); it is truncated to seconds, as metav1.Time serialises.
void setCondition(std::vector<api::Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, const std::string& message,
                  int64_t generation, core::TimePoint now);

// Adds every type of `types` missing from `conditions` as Unknown/AwaitingReconciliation, as
// Karpenter initialises a new NodeClaim's conditions.
void initConditions(std::vector<api::Condition>& conditions, const std::vector<std::string>& types,
                    int64_t generation, core::TimePoint now);

}  // namespace nodewright::controllers::nodeclaim
