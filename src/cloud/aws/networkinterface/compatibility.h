#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_types.h"
#include "cloud/aws/sdk.h"

// Whether an instance type can carry a node class's network interfaces (seed 001,
// /work/shared/seeds/001_*): EC2 rejects a launch whose interfaces the type cannot hold, so the
// instance type provider leaves such types out before any launch, and keeps the reason so users
// can be told why a type was never offered. Pure functions; thread-safe.
namespace nodewright::cloud::aws {

// Why `type` cannot carry `interfaces` plus `efaRequested` EFA devices asked for by pods
// (vpc.amazonaws.com/efa), as one readable line naming the type ("4 network interfaces on
// network card 0, m5.large allows 3"); nullopt when it can. Unset indexes are 0 (slot.h). The
// rules, checked in this order:
//   - a networkCardIndex the type has no card for;
//   - more interfaces on one card than its maximumNetworkInterfaces;
//   - a deviceIndex at or past its card's maximumNetworkInterfaces (EC2 numbers a card's
//     attachments from 0; "device index 3 on network card 0, m5.large allows device indexes
//     0-2");
//   - more interfaces in all than the type's maximumNetworkInterfaces;
//   - an efa or efa-only interface on a type without EFA support;
//   - more efa/efa-only interfaces than the type's maximumEfaInterfaces;
//   - pods asking for EFA devices the type cannot give (no support, or more than
//     maximumEfaInterfaces).
// Pods' EFA requests count whether or not the node class lists interfaces: the pods land on the
// node either way.
std::optional<std::string> networkInterfaceIncompatibility(
    const sdk::InstanceTypeInfo& type,
    const std::vector<api::karpenter::NetworkInterface>& interfaces, int efaRequested = 0);

// The EFA interfaces a launch of `type` gets when pods request vpc.amazonaws.com/efa and the
// node class lists no interfaces: as Karpenter does, one EFA interface per network card index
// 0..n-1 with n = maximumEfaInterfaces, which is also the vpc.amazonaws.com/efa capacity of
// the node. 0 for a type without EFA support.
int efaInterfacesFor(const sdk::InstanceTypeInfo& type);

// True for the interface types that take an EFA device: "efa" and "efa-only".
bool isEfaInterfaceType(const std::string& interfaceType);

}  // namespace nodewright::cloud::aws
