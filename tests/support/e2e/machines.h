#pragma once

#include <map>
#include <optional>
#include <string>

#include "support/e2e/cluster.h"

// What the crash tests ask of the cloud once the cluster has converged: which machines are
// live and whose they are, and how often each NodeClaim was launched.
namespace nodewright::e2e::testing {

// The cloud's live machines by provider ID, each with its NodeClaim's name; nullopt while a
// machine has no NodeClaim (garbage collection has yet to remove it) or the cloud cannot list.
std::optional<std::map<std::string, std::string>> machinesWithClaims(EmbeddedCluster& cluster);

// How many instances were ever launched for each NodeClaim, terminated ones included (the EC2
// emulator describes terminated instances): a second launch for a claim shows here even after
// garbage collection removed it.
std::map<std::string, int> launchesPerClaim(EmbeddedCluster& cluster);

}  // namespace nodewright::e2e::testing
