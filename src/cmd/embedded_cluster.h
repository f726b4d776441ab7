#pragma once

#include <optional>
#include <string>

#include "core/error.h"

// What `nodewright up` leaves beside its kubeconfig so that the read-only commands (`drift
// explain`, `disruption plan`) find the emulated cloud of that cluster without flags: the
// cluster's name, the region and the EC2 emulator's endpoints. The file describes the last start;
// once `up` stops its endpoints refuse connections.
namespace nodewright::cmd {

inline constexpr const char* kEmbeddedClusterFile = "embedded-cluster.json";

struct EmbeddedCluster {
  std::string clusterName;
  std::string region;
  std::string ec2Endpoint;
  std::string ssmEndpoint;
  std::string pricingEndpoint;
  // The emulator's well-known key, as the AWS CLI reads it (DIR/aws/{config,credentials}).
  std::string awsConfigFile;
  std::string awsCredentialsFile;
};

// Writes DIR/embedded-cluster.json (0600).
core::Status writeEmbeddedCluster(const std::string& dataDir, const EmbeddedCluster& cluster);

// The description beside `kubeconfigPath`, nullopt when that directory holds none (a cluster
// that `up` did not start). Invalid when the file is there but unreadable.
core::Result<std::optional<EmbeddedCluster>> readEmbeddedClusterBeside(
    const std::string& kubeconfigPath);

}  // namespace nodewright::cmd
