#include "runtime/api_outcome.h"

namespace nodewright::runtime {

Outcome apiFailure(const kube::ApiError& error, const std::string& doing) {
  if (error.is(kube::Reason::Conflict)) {
    return Result::again();
  }
  return core::fail(error.toError().wrap(doing));
}

}  // namespace nodewright::runtime
