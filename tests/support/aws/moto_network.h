#pragma once

#include <string>
#include <vector>

#include "support/emulators/query_client.h"

// The network a Karpenter cluster needs, made in moto_server (whose default VPC carries no
// discovery tags): what every moto test of the AWS provider starts from.
namespace nodewright::aws::testing {

struct MotoNetwork {
  std::string vpc;
  std::vector<std::string> subnets;  // us-east-1a, us-east-1b
  std::string group;
  std::string imageId;    // an x86_64 image moto's amazon account owns
  std::string imageName;  // its name
};

// A VPC 10.<octet>.0.0/16 with a subnet in each of two zones and a security group, all tagged
// karpenter.sh/discovery=<cluster>. A moto error fails the test.
MotoNetwork createMotoNetwork(emulators::testing::QueryClient& wire, const std::string& cluster,
                              int octet);

}  // namespace nodewright::aws::testing
