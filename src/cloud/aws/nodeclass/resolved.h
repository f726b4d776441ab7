#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_types.h"
#include "cloud/aws/sdk.h"

// An EC2NodeClass with its selector terms resolved against EC2: what launch templates and
// fleets are built from, and the status written back to the node class.
namespace nodewright::cloud::aws {

// AMI families, as EC2NodeClass amiFamily and the alias family name them.
inline constexpr const char* kFamilyAL2023 = "AL2023";
inline constexpr const char* kFamilyAL2 = "AL2";
inline constexpr const char* kFamilyBottlerocket = "Bottlerocket";
inline constexpr const char* kFamilyCustom = "Custom";

struct ResolvedImage {
  std::string id;
  std::string name;
  std::string architecture;  // Kubernetes names: "amd64", "arm64"
  // What a node must be to run it: kubernetes.io/arch, and for GPU/Neuron variants the
  // accelerator labels (as in EC2NodeClass status.amis[].requirements).
  std::vector<api::karpenter::NodeSelectorRequirement> requirements;
  std::string creationDate;
  bool deprecated = false;
};

// The subnets and groups one networkInterfaces entry launches with: its own selectors'
// results, or the node class's when it has none.
struct ResolvedInterface {
  std::vector<sdk::Subnet> subnets;
  std::vector<sdk::SecurityGroup> securityGroups;
  bool ownSubnets = false;
  bool ownSecurityGroups = false;
};

struct ResolvedNodeClass {
  // kFamily*: amiFamily when set (Custom stays Custom with an alias, as in Karpenter), else
  // the alias family, else AL2023.
  std::string family;
  std::vector<sdk::Subnet> subnets;
  std::vector<sdk::SecurityGroup> securityGroups;
  std::vector<ResolvedImage> images;          // newest first per architecture and requirement set
  std::vector<ResolvedInterface> interfaces;  // parallel to spec.networkInterfaces
  // The capacity reservations the selectors match, by id (status.capacityReservations).
  std::vector<api::karpenter::CapacityReservationStatus> capacityReservations;
  // spec.placementGroupSelector's name or id (empty: none), and the available group it finds.
  std::string placementGroupSelector;
  std::optional<sdk::PlacementGroup> placementGroup;
  // status.subnets/securityGroups/capacityReservations/amis and the conditions SubnetsReady,
  // SecurityGroupsReady, AMIsReady, CapacityReservationsReady, ValidationSucceeded and Ready.
  api::karpenter::EC2NodeClassStatus status;

  // Every condition is True: the node class can launch.
  bool ready() const;
};

}  // namespace nodewright::cloud::aws
