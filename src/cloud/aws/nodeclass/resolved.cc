#include "cloud/aws/nodeclass/resolved.h"

#include <algorithm>

namespace nodewright::cloud::aws {

bool ResolvedNodeClass::ready() const {
  return !status.conditions.empty() &&
         std::all_of(status.conditions.begin(), status.conditions.end(),
                     [](const api::Condition& c) { return c.status == "True"; });
}

}  // namespace nodewright::cloud::aws
