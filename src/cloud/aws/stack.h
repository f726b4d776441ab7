#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "aws/ec2_client.h"
#include "aws/json_client.h"
#include "aws/pricing_client.h"
#include "aws/query_client.h"
#include "aws/rate_limiter.h"
#include "aws/ssm_client.h"
#include "aws/transport.h"
#include "cloud/aws/cache/unavailable_offerings.h"
#include "cloud/aws/cloud_provider.h"
#include "cloud/aws/pricing/pricing_provider.h"

// Everything the AWS provider is made of, wired together and owned in one place: clients on
// one transport and one rate limiter, the providers, and the CloudProvider over them.
namespace nodewright::cloud::aws {

struct AwsStackOptions {
  std::string region = "us-east-1";
  // Absolute endpoints (endpoints.h resolves them from flags, AWS_ENDPOINT_URL* and profiles).
  std::string ec2Endpoint;
  std::string ssmEndpoint;
  std::string pricingEndpoint;  // empty: the built-in on-demand table only
  sdk::CredentialsFn credentials;
  sdk::RetryOptions retry;
  // Stay under EC2's published request buckets (ec2_buckets.h); off only in tests that want to
  // see the service throttle.
  bool clientRateLimit = true;
  ClusterInfo cluster;
  std::string kubernetesVersion = "1.32";
  // How long subnet, security group and AMI lookups are reused: dynamic drift shows within it.
  std::chrono::seconds resolverTtl{60};
  NodeClassLookup nodeClasses;
  InstanceProviderOptions instances;  // clusterName is taken from cluster.name
  // The node class drift hashes claims are stamped with and compared against; a test build
  // changes the version or salt to stand in for an upgrade that changed every hash.
  api::karpenter::HashPolicy hashPolicy = api::karpenter::defaultHashPolicy();
};

class AwsStack {
 public:
  // `clock` and `transport` must outlive the stack. Invalid when an endpoint or the cluster
  // name is missing.
  static core::Result<std::unique_ptr<AwsStack>> create(const core::Clock& clock,
                                                        sdk::Transport& transport,
                                                        AwsStackOptions options);

  AwsCloudProvider& provider() { return *provider_; }
  NodeClassResolver& resolver() { return *resolver_; }
  InstanceTypeProvider& instanceTypes() { return *instanceTypes_; }
  LaunchTemplateProvider& launchTemplates() { return *launchTemplates_; }
  InstanceProvider& instances() { return *instances_; }
  PricingProvider& pricing() { return *pricing_; }
  UnavailableOfferings& unavailableOfferings() { return *unavailable_; }
  sdk::Ec2Client& ec2() { return *ec2_; }

 private:
  AwsStack() = default;

  // Declared in construction order: each one uses only those above it.
  std::unique_ptr<sdk::RateLimiter> limiter_;
  std::unique_ptr<sdk::QueryClient> ec2Query_;
  std::unique_ptr<sdk::Ec2Client> ec2_;
  std::unique_ptr<sdk::JsonClient> ssmJson_;
  std::unique_ptr<sdk::SsmClient> ssm_;
  std::unique_ptr<sdk::JsonClient> pricingJson_;
  std::unique_ptr<sdk::PricingClient> pricingClient_;
  std::unique_ptr<UnavailableOfferings> unavailable_;
  std::unique_ptr<PricingProvider> pricing_;
  std::unique_ptr<NodeClassResolver> resolver_;
  std::unique_ptr<InstanceTypeProvider> instanceTypes_;
  std::unique_ptr<LaunchTemplateProvider> launchTemplates_;
  std::unique_ptr<InstanceProvider> instances_;
  std::unique_ptr<AwsCloudProvider> provider_;
};

}  // namespace nodewright::cloud::aws
