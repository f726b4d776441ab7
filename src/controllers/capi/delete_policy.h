#pragma once

#include <string>
#include <vector>

#include "api/capi/machine.h"

// Which Machines a MachineSet removes when it has too many, as CAPI's deletePolicy: the Random
// (default), Newest and Oldest policies all take first Machines that must go (already being
// deleted, or annotated cluster.x-k8s.io/delete-machine), then failed ones, then ones that are not
// Ready; only among equally healthy Machines does the policy decide. Random is deterministic per
// name (CAPI's is a hash order too), so a retried scale-down picks the same victims.
namespace nodewright::controllers::capi {

// Up to `count` machines of `machines`, most deletable first.
std::vector<api::capi::Machine> machinesToDelete(std::vector<api::capi::Machine> machines,
                                                 size_t count, const std::string& policy);

}  // namespace nodewright::controllers::capi
