#pragma once

#include <string>

#include "kube/errors.h"
#include "runtime/reconciler.h"

namespace nodewright::runtime {

// A reconcile's answer to an API error: a Conflict (someone wrote since our read) is looked at
// again soon without counting as a failure; anything else backs off as an error naming what was
// being done.
Outcome apiFailure(const kube::ApiError& error, const std::string& doing);

}  // namespace nodewright::runtime
