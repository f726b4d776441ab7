#pragma once

#include <vector>

#include "cloud/aws/drift/node_class_drift.h"

// The network half of the node class checks (node_class_drift.h): "Subnet", "SecurityGroups",
// then each network interface's own "NetworkInterfaces[i].Subnet" and ".SecurityGroups".
namespace nodewright::cloud::aws::drift {

void appendNetworkDrift(const NodeClassDriftContext& context, const InstanceFacts& instance,
                        std::vector<DriftCheck>& checks);

}  // namespace nodewright::cloud::aws::drift
