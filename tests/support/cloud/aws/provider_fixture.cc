#include "support/cloud/aws/provider_fixture.h"

#include <regex>

#include "core/clock.h"

namespace nodewright::cloud::aws::testing {

const emulators::ec2::Catalog& sharedCatalog() {
  static const emulators::ec2::Catalog catalog = [] {
    auto loaded =
        emulators::ec2::loadCatalog(std::string(NW_SHARED_DIR) + "/data/aws-instance-types.json");
    EXPECT_TRUE(loaded) << loaded.error().message();
    return loaded ? std::move(*loaded) : emulators::ec2::Catalog();
  }();
  return catalog;
}

api::karpenter::EC2NodeClass discoveryNodeClass(const std::string& name) {
  api::karpenter::EC2NodeClass nc;
  nc.apiVersion = "karpenter.k8s.aws/v1";
  nc.kind = "EC2NodeClass";
  nc.metadata.name = name;
  nc.metadata.generation = 1;
  api::karpenter::SubnetSelectorTerm subnets;
  subnets.tags = {{"karpenter.sh/discovery", "nodewright"}};
  nc.spec.subnetSelectorTerms = {subnets};
  api::karpenter::SecurityGroupSelectorTerm groups;
  groups.tags = {{"karpenter.sh/discovery", "nodewright"}};
  nc.spec.securityGroupSelectorTerms = {groups};
  api::karpenter::AMISelectorTerm ami;
  ami.alias = "al2023@latest";
  nc.spec.amiSelectorTerms = {ami};
  nc.spec.role = "KarpenterNodeRole-nodewright";
  return nc;
}

api::karpenter::NetworkInterface networkInterface(int deviceIndex, int networkCardIndex,
                                                  const std::string& type) {
  api::karpenter::NetworkInterface ni;
  ni.deviceIndex = deviceIndex;
  ni.networkCardIndex = networkCardIndex;
  ni.interfaceType = type;
  ni.deleteOnTermination = true;
  ni.description = "eth" + std::to_string(deviceIndex);
  return ni;
}

api::karpenter::NodePool nodePool(const std::string& name, const std::string& nodeClass) {
  api::karpenter::NodePool pool;
  pool.metadata.name = name;
  pool.spec.template_.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", nodeClass};
  return pool;
}

api::karpenter::NodeClaim nodeClaim(const std::string& name, const std::string& nodeClass,
                                    const std::vector<std::string>& types,
                                    const std::vector<std::string>& capacityTypes) {
  api::karpenter::NodeClaim claim;
  claim.metadata.name = name;
  claim.metadata.uid = "uid-" + name;
  claim.metadata.labels = {{"karpenter.sh/nodepool", "default"}};
  claim.spec.nodeClassRef = {"karpenter.k8s.aws", "EC2NodeClass", nodeClass};
  if (!types.empty()) {
    claim.spec.requirements.push_back(
        {"node.kubernetes.io/instance-type", "In", types, std::nullopt});
  }
  claim.spec.requirements.push_back(
      {"karpenter.sh/capacity-type", "In", capacityTypes, std::nullopt});
  return claim;
}

void ProviderTest::start(emulators::ec2::Catalog catalog) {
  auto options = emulators::testing::fastOptions();
  options.catalog = std::move(catalog);
  auto server = emulators::testing::startEc2(core::systemClock(), std::move(options));
  ASSERT_TRUE(server) << server.error().message();
  server_ = std::move(*server);
  startStack(server_->url(), server_->url());
}

void ProviderTest::startStack(const std::string& endpoint, const std::string& pricingEndpoint) {
  curl_ = nodewright::aws::makeCurlTransport();
  recorder_ = std::make_unique<nodewright::aws::testing::RecordingTransport>(*curl_);

  AwsStackOptions stack;
  stack.ec2Endpoint = endpoint;
  stack.ssmEndpoint = endpoint;
  stack.pricingEndpoint = pricingEndpoint;
  stack.credentials = [] {
    return nodewright::aws::ApiResult<nodewright::aws::sigv4::Credentials>(
        nodewright::aws::sigv4::Credentials{"nodewright", "nodewright", ""});
  };
  stack.cluster.name = "nodewright";
  stack.cluster.endpoint = "https://127.0.0.1:6443";
  stack.cluster.caBundle = "Y2E=";
  stack.cluster.serviceCidr = "10.100.0.0/16";
  stack.nodeClasses =
      [this](const std::string& name) -> core::Result<api::karpenter::EC2NodeClass> {
    auto it = nodeClasses_.find(name);
    if (it == nodeClasses_.end()) {
      return core::fail(core::Error::notFound("no EC2NodeClass " + name));
    }
    return it->second;
  };
  auto created = AwsStack::create(core::systemClock(), *recorder_, std::move(stack));
  ASSERT_TRUE(created) << created.error().message();
  stack_ = std::move(*created);
}

std::vector<std::string> ProviderTest::fleetOverrideTypes() const {
  return recorder_->values("CreateFleet",
                           R"(LaunchTemplateConfigs\.\d+\.Overrides\.\d+\.InstanceType)");
}

std::vector<std::vector<std::string>> ProviderTest::templateInterfaceValues(
    const std::string& field) const {
  const std::regex name(R"(LaunchTemplateData\.NetworkInterface\.\d+\.)" + field);
  std::vector<std::vector<std::string>> out;
  for (const auto& request : recorder_->requests("CreateLaunchTemplate")) {
    auto& values = out.emplace_back();
    for (const auto& [key, value] : request) {
      if (std::regex_match(key, name)) {
        values.push_back(value);
      }
    }
  }
  return out;
}

}  // namespace nodewright::cloud::aws::testing
