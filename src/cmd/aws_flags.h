#pragma once

#include <string>

#include "aws/credentials.h"
#include "aws/transport.h"
#include "cloud/aws/stack.h"
#include "core/clock.h"
#include "core/error.h"

namespace CLI {
class App;
}  // namespace CLI

// The AWS flags every command that talks to EC2 takes, the way `nodewright controller` always
// took them: the cluster's name, the region and the EC2, SSM and Pricing endpoints. Endpoints
// follow the SDK's rules (flag, AWS_ENDPOINT_URL_*, profile), so the same binary talks to AWS,
// the project's emulator or moto_server.
namespace nodewright::cmd {

struct AwsFlags {
  std::string clusterName;
  std::string region;
  std::string ec2Endpoint;
  std::string ssmEndpoint;
  std::string pricingEndpoint;
  // The interruption queue (Karpenter's --interruption-queue); empty: no interruption handling.
  std::string interruptionQueue;
  std::string sqsEndpoint;
};

// Registers --cluster-name (or CLUSTER_NAME), --region, --ec2-endpoint, --ssm-endpoint and
// --pricing-endpoint on `sub`; `flags` must outlive the parse.
void addAwsFlags(CLI::App& sub, AwsFlags& flags);

// Registers --interruption-queue (or INTERRUPTION_QUEUE) and --sqs-endpoint on `sub`, for the
// commands that run the controllers.
void addInterruptionFlags(CLI::App& sub, AwsFlags& flags);

// The SQS endpoint for `region` by the SDK's rules (flag, AWS_ENDPOINT_URL_SQS, profile);
// Invalid, naming the flag, when it cannot be resolved.
core::Result<std::string> resolveSqsEndpoint(
    const AwsFlags& flags, const std::string& region,
    nodewright::aws::EnvLookup env = nodewright::aws::processEnvironment());

// The stack's region, endpoints, credentials (the SDK's default chain over `env`) and cluster
// name. Invalid, naming the flag, when the region or an endpoint cannot be resolved. `transport`
// and `clock` must outlive what the options are used for (the credentials chain keeps them).
core::Result<cloud::aws::AwsStackOptions> awsOptions(
    const AwsFlags& flags, nodewright::aws::Transport& transport, const core::Clock& clock,
    nodewright::aws::EnvLookup env = nodewright::aws::processEnvironment());

}  // namespace nodewright::cmd
