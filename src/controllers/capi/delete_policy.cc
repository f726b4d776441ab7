#include "controllers/capi/delete_policy.h"

#include <algorithm>

#include "api/capi/conditions.h"
#include "controllers/capi/well_known.h"
#include "core/hash.h"

namespace nodewright::controllers::capi {
namespace {

using api::capi::Machine;

// Lower goes first.
int priority(const Machine& machine) {
  if (machine.metadata.deletionTimestamp ||
      machine.metadata.annotations.contains(kDeleteMachineAnnotation)) {
    return 0;
  }
  if (machine.status.failureReason || machine.status.failureMessage) {
    return 1;
  }
  if (!api::capi::isTrue(machine.status.conditions, api::capi::kReadyCondition)) {
    return 2;
  }
  return 3;
}

uint64_t nameHash(const Machine& machine) {
  core::Hasher hasher;
  hasher.addString(machine.metadata.name);
  return hasher.value();
}

}  // namespace

std::vector<Machine> machinesToDelete(std::vector<Machine> machines, size_t count,
                                      const std::string& policy) {
  auto created = [](const Machine& m) { return m.metadata.creationTimestamp.point(); };
  std::stable_sort(machines.begin(), machines.end(), [&](const Machine& a, const Machine& b) {
    const int pa = priority(a);
    const int pb = priority(b);
    if (pa != pb) {
      return pa < pb;
    }
    if (policy == kNewestDeletePolicy && created(a) != created(b)) {
      return created(a) > created(b);
    }
    if (policy == kOldestDeletePolicy && created(a) != created(b)) {
      return created(a) < created(b);
    }
    if (policy != kNewestDeletePolicy && policy != kOldestDeletePolicy &&
        nameHash(a) != nameHash(b)) {
      return nameHash(a) < nameHash(b);
    }
    return a.metadata.name < b.metadata.name;
  });
  machines.resize(std::min(count, machines.size()));
  return machines;
}

}  // namespace nodewright::controllers::capi
