#pragma once

#include "api/conversion/common.h"
#include "api/karpenter/nodeclaim.h"
#include "api/seedera/machine.h"

// karpenter.sh/v1alpha5 Machine <-> karpenter.sh/v1 NodeClaim. The spec carries over field by
// field (machineTemplateRef becomes nodeClassRef {karpenter.k8s.aws, EC2NodeClass, name}), the
// status too, with the condition types renamed as Karpenter renamed them (MachineLaunched ->
// Launched, MachineRegistered -> Registered, MachineInitialized -> Initialized, MachineEmpty ->
// Empty, MachineExpired -> Expired, MachineDrifted -> Drifted). Labels and annotations are
// kept as they are.
namespace nodewright::api::conversion {

// Fails with every field that has no v1 home, or that would not survive the way back.
Converted<karpenter::NodeClaim> toNodeClaim(const seedera::Machine& machine);

// Restores a converted Machine exactly; for other NodeClaims, fails with every v1-only setting
// (terminationGracePeriod, an expireAfter other than the 720h default, minValues, ...). The
// status fields v1 added (imageID, lastPodEventTime, observedGeneration) are not kept.
Converted<seedera::Machine> toMachine(const karpenter::NodeClaim& nodeClaim);

}  // namespace nodewright::api::conversion
