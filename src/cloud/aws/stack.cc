#include "cloud/aws/stack.h"

namespace nodewright::cloud::aws {

core::Result<std::unique_ptr<AwsStack>> AwsStack::create(const core::Clock& clock,
                                                         sdk::Transport& transport,
                                                         AwsStackOptions options) {
  if (options.ec2Endpoint.empty() || options.ssmEndpoint.empty()) {
    return core::fail(core::Error::invalid("the AWS provider needs EC2 and SSM endpoints"));
  }
  if (options.cluster.name.empty()) {
    return core::fail(core::Error::invalid("the AWS provider needs a cluster name"));
  }
  if (!options.nodeClasses) {
    return core::fail(core::Error::invalid("the AWS provider needs a node class lookup"));
  }
  std::unique_ptr<AwsStack> s(new AwsStack());
  if (options.clientRateLimit) {
    s->limiter_ = sdk::RateLimiter::ec2(clock, {});
  }
  sdk::QueryClientOptions ec2Options;
  ec2Options.endpoint = options.ec2Endpoint;
  ec2Options.region = options.region;
  ec2Options.credentials = options.credentials;
  ec2Options.retry = options.retry;
  ec2Options.limiter = s->limiter_.get();
  s->ec2Query_ = std::make_unique<sdk::QueryClient>(clock, transport, std::move(ec2Options));
  s->ec2_ = std::make_unique<sdk::Ec2Client>(*s->ec2Query_);

  auto jsonOptions = [&](std::string endpoint, std::string region, std::string service,
                         std::string targetPrefix) {
    sdk::JsonClientOptions json;
    json.endpoint = std::move(endpoint);
    json.region = std::move(region);
    json.service = std::move(service);
    json.targetPrefix = std::move(targetPrefix);
    json.credentials = options.credentials;
    json.retry = options.retry;
    return json;
  };
  s->ssmJson_ = std::make_unique<sdk::JsonClient>(
      clock, transport, jsonOptions(options.ssmEndpoint, options.region, "ssm", "AmazonSSM"));
  s->ssm_ = std::make_unique<sdk::SsmClient>(*s->ssmJson_);
  if (!options.pricingEndpoint.empty()) {
    // The Price List API answers from us-east-1 for every region's prices.
    s->pricingJson_ = std::make_unique<sdk::JsonClient>(
        clock, transport,
        jsonOptions(options.pricingEndpoint, "us-east-1", "pricing", "AWSPriceListService"));
    s->pricingClient_ = std::make_unique<sdk::PricingClient>(*s->pricingJson_);
  }
  s->unavailable_ = std::make_unique<UnavailableOfferings>(clock);
  PricingProviderOptions pricing;
  pricing.region = options.region;
  s->pricing_ =
      std::make_unique<PricingProvider>(clock, *s->ec2_, s->pricingClient_.get(), pricing);
  if (s->pricingClient_ != nullptr) {
    // Best effort: the built-in table stands in when the Pricing API cannot be reached (it is
    // logged there), and fresher prices only improve the ranking.
    (void)s->pricing_->refreshOnDemand();
  }
  ResolverOptions resolver;
  resolver.kubernetesVersion = options.kubernetesVersion;
  resolver.ttl = options.resolverTtl;
  s->resolver_ = std::make_unique<NodeClassResolver>(clock, *s->ec2_, *s->ssm_, resolver);
  InstanceTypeProviderOptions types;
  types.region = options.region;
  s->instanceTypes_ = std::make_unique<InstanceTypeProvider>(clock, *s->ec2_, *s->pricing_,
                                                             *s->unavailable_, types);
  LaunchTemplateProviderOptions templates;
  templates.cluster = options.cluster;
  s->launchTemplates_ = std::make_unique<LaunchTemplateProvider>(*s->ec2_, clock, templates);
  options.instances.clusterName = options.cluster.name;
  NodeClassResolver* reservationsOf = s->resolver_.get();
  options.instances.reservationFull = [reservationsOf](const std::string& id) {
    reservationsOf->capacityReservations().markUnavailable(id);
  };
  s->instances_ = std::make_unique<InstanceProvider>(*s->ec2_, *s->launchTemplates_,
                                                     *s->unavailable_, clock, options.instances);
  s->provider_ = std::make_unique<AwsCloudProvider>(
      AwsProviders{*s->resolver_, *s->instanceTypes_, *s->launchTemplates_, *s->instances_},
      std::move(options.nodeClasses), std::move(options.hashPolicy));
  return s;
}

}  // namespace nodewright::cloud::aws
