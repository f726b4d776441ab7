#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/karpenter/hashing.h"
#include "api/karpenter/nodeclaim.h"
#include "cloud/cloud_provider.h"
#include "controllers/provisioning/cluster_snapshot.h"

// What replacing some nodes would take, by running the provisioning scheduler over their pods as
// if the nodes were gone (Karpenter's SimulateScheduling): the pods that fit on the other nodes
// stay out of it, the rest need new NodeClaims, and a pod that fits nowhere blocks the
// disruption.
namespace nodewright::controllers::disruption {

struct Simulation {
  size_t pods = 0;        // to place
  size_t onExisting = 0;  // fitting on other nodes or in-flight claims
  // New NodeClaims for the rest, ready to create (names still to be given).
  std::vector<api::karpenter::NodeClaim> replacements;
  // Pods that fit nowhere, by "namespace/name", with why.
  std::map<std::string, std::string> unschedulable;
  // "2 x m5.large ($0.192/h)" per replacement, for events and the plan.
  std::vector<std::string> summaries;
  // The new NodeClaims' price, each at its cheapest instance type, $/h.
  double price = 0;
  // Where each pod to place would go, "namespace/name" -> a node's name, or "a new <pool>
  // node (cheapest <type>)".
  std::map<std::string, std::string> moves;
};

core::Result<Simulation> simulate(const provisioning::ClusterCaches& caches,
                                  const provisioning::DisruptionScope& scope,
                                  cloud::CloudProvider& cloud,
                                  const api::karpenter::HashPolicy& policy);

// The instance types each NodePool could launch, by pool name: the destinations of a
// simulation. Static pools and pools whose types cannot be read now are left out (no
// destination), as in the provisioner.
using TypesByPool = std::map<std::string, std::vector<cloud::InstanceType>>;
TypesByPool destinationTypes(const std::map<std::string, const api::karpenter::NodePool*>& pools,
                             cloud::CloudProvider& cloud);

// The same over types already read: consolidation simulates many prefixes of its candidates in
// one pass and asks the cloud once.
Simulation simulate(const provisioning::ClusterCaches& caches,
                    const provisioning::DisruptionScope& scope, const TypesByPool& types,
                    const api::karpenter::HashPolicy& policy);

}  // namespace nodewright::controllers::disruption
