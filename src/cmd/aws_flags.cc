#include "cmd/aws_flags.h"

#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "aws/credentials.h"
#include "aws/endpoints.h"
#include "aws/shared_config.h"

namespace nodewright::cmd {

void addAwsFlags(CLI::App& sub, AwsFlags& flags) {
  sub.add_option("--cluster-name", flags.clusterName, "The cluster's name (CLUSTER_NAME)")
      ->envname("CLUSTER_NAME");
  sub.add_option("--region", flags.region, "AWS region (default: the SDK's resolution)");
  sub.add_option("--ec2-endpoint", flags.ec2Endpoint, "EC2 endpoint URL");
  sub.add_option("--ssm-endpoint", flags.ssmEndpoint, "SSM endpoint URL");
  sub.add_option("--pricing-endpoint", flags.pricingEndpoint,
                 "Price List API endpoint URL (empty: the built-in on-demand prices)");
}

void addInterruptionFlags(CLI::App& sub, AwsFlags& flags) {
  sub.add_option("--interruption-queue", flags.interruptionQueue,
                 "SQS queue of EC2 interruption and AWS Health events (INTERRUPTION_QUEUE); "
                 "empty: interruption handling is off")
      ->envname("INTERRUPTION_QUEUE");
  sub.add_option("--sqs-endpoint", flags.sqsEndpoint, "SQS endpoint URL");
}

core::Result<std::string> resolveSqsEndpoint(const AwsFlags& flags, const std::string& region,
                                             nodewright::aws::EnvLookup env) {
  namespace sdk = nodewright::aws;
  auto profile = sdk::loadProfile(env);
  auto endpoint = sdk::resolveEndpoint(
      "sqs", region,
      flags.sqsEndpoint.empty() ? std::nullopt : std::optional<std::string>(flags.sqsEndpoint), env,
      profile ? &*profile : nullptr);
  if (!endpoint) {
    return core::fail(core::Error::invalid("--sqs-endpoint: " + endpoint.error().message));
  }
  return *endpoint;
}

core::Result<cloud::aws::AwsStackOptions> awsOptions(const AwsFlags& flags,
                                                     nodewright::aws::Transport& transport,
                                                     const core::Clock& clock,
                                                     nodewright::aws::EnvLookup env) {
  namespace sdk = nodewright::aws;
  auto profile = sdk::loadProfile(env);
  const sdk::Profile* p = profile ? &*profile : nullptr;
  auto region = sdk::resolveRegion(
      flags.region.empty() ? std::nullopt : std::optional<std::string>(flags.region), env, p);
  if (!region) {
    return core::fail(core::Error::invalid("--region: " + region.error().message));
  }
  cloud::aws::AwsStackOptions o;
  o.region = *region;
  auto endpoint = [&](const char* service, const std::string& flag) -> sdk::ApiResult<std::string> {
    return sdk::resolveEndpoint(
        service, *region, flag.empty() ? std::nullopt : std::optional<std::string>(flag), env, p);
  };
  auto ec2 = endpoint("ec2", flags.ec2Endpoint);
  auto ssm = endpoint("ssm", flags.ssmEndpoint);
  if (!ec2 || !ssm) {
    return core::fail(
        core::Error::invalid("endpoints: " + (!ec2 ? ec2.error().message : ssm.error().message)));
  }
  o.ec2Endpoint = *ec2;
  o.ssmEndpoint = *ssm;
  o.pricingEndpoint = flags.pricingEndpoint;
  auto chain = std::shared_ptr<sdk::CredentialsProvider>(
      sdk::makeDefaultCredentialsChain(env, transport, clock, *region));
  o.credentials = [chain] { return chain->get(); };
  o.cluster.name = flags.clusterName;
  return o;
}

}  // namespace nodewright::cmd
