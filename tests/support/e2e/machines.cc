#include "support/e2e/machines.h"

#include <set>

#include <gtest/gtest.h>

#include "cloud/aws/launch/tags.h"

namespace nodewright::e2e::testing {

std::optional<std::map<std::string, std::string>> machinesWithClaims(EmbeddedCluster& cluster) {
  auto machines = cluster.agentStack().provider().list();
  if (!machines) {
    return std::nullopt;
  }
  std::set<std::string> claims;
  for (const auto& claim : cluster.nodeClaims()) {
    claims.insert(claim.metadata.name);
  }
  std::map<std::string, std::string> claimOf;
  for (const auto& m : *machines) {
    if (!claims.contains(m.nodeClaimName)) {
      return std::nullopt;
    }
    claimOf[m.providerID] = m.nodeClaimName;
  }
  return claimOf;
}

std::map<std::string, int> launchesPerClaim(EmbeddedCluster& cluster) {
  auto everLaunched =
      cluster.agentStack().ec2().describeInstances({}, {{"tag-key", {cloud::aws::kTagNodeClaim}}});
  std::map<std::string, int> launches;
  if (!everLaunched) {
    ADD_FAILURE() << "describing instances: " << everLaunched.error().message;
    return launches;
  }
  for (const auto& instance : *everLaunched) {
    ++launches[instance.tags.at(cloud::aws::kTagNodeClaim)];
  }
  return launches;
}

}  // namespace nodewright::e2e::testing
