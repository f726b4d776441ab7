#pragma once

#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "core/time.h"

// EC2NodeClass status from a resolution: the resolved lists and the conditions, with Karpenter's
// types and reasons.
namespace nodewright::cloud::aws::nodeclass {

inline constexpr const char* kSubnetsReady = "SubnetsReady";
inline constexpr const char* kSecurityGroupsReady = "SecurityGroupsReady";
inline constexpr const char* kAMIsReady = "AMIsReady";
inline constexpr const char* kCapacityReservationsReady = "CapacityReservationsReady";
inline constexpr const char* kPlacementGroupReady = "PlacementGroupReady";
inline constexpr const char* kValidationSucceeded = "ValidationSucceeded";
inline constexpr const char* kReady = "Ready";

// A condition before its bookkeeping (generation, transition time).
struct Verdict {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
};

// A reason a resolved node class cannot launch although every selector matched; the message
// starts with the field path at fault.
struct Problem {
  std::string reason;
  std::string message;
};

// Structural checks: EC2 launches an instance's interfaces with security groups of the VPC of
// their subnets, so every group must be in the VPC of every subnet it is used with (the class's
// groups with its subnets, an interface's with its own); and an interface with its own subnets
// must have one in a zone of the class's subnets, where the instance is placed.
std::vector<Problem> validateNetwork(const ResolvedNodeClass& resolved);

// The verdicts for SubnetsReady, SecurityGroupsReady, AMIsReady, CapacityReservationsReady
// (True once resolved: matching no reservation is no fault, as in Karpenter),
// PlacementGroupReady (True without a selector; False PlacementGroupNotFound when the selector
// finds no available group) and
// ValidationSucceeded (Unknown while a selector matches nothing). `imageDetail` says why no AMI
// matched, when known; `imageReason`, when set, replaces AMINotFound and makes imageDetail the
// whole message (Karpenter's UnsupportedAlias).
std::vector<Verdict> verdicts(const ResolvedNodeClass& resolved, const std::string& imageDetail,
                              const std::string& imageReason = "");

// status.networkInterfaces: one entry per spec.networkInterfaces entry with selectors of its own,
// keyed by (networkCardIndex, deviceIndex) as the launch template numbers them, with the lists
// of its own selectors only.
std::vector<api::karpenter::NetworkInterfaceStatus> interfaceStatuses(
    const ResolvedNodeClass& resolved, const api::karpenter::EC2NodeClassSpec& spec);

// Fills resolved.status: subnets (zone and zone id), security groups and AMIs as resolved, the
// network interfaces' own resolutions (interfaceStatuses),
// instanceProfile kept from `nodeClass.status`, and the conditions of `verdicts` followed by
// Ready (True when all of them are), each at nodeClass's generation. A condition whose status
// is unchanged from nodeClass.status keeps its lastTransitionTime; otherwise it is `now`.
void writeStatus(ResolvedNodeClass& resolved, const api::karpenter::EC2NodeClass& nodeClass,
                 const std::vector<Verdict>& verdicts, core::TimePoint now);

}  // namespace nodewright::cloud::aws::nodeclass
