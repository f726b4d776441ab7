#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "aws/transport.h"
#include "cloud/aws/stack.h"
#include "emulators/ec2/catalog.h"
#include "support/aws/recording_transport.h"
#include "support/emulators/ec2_fixture.h"

// The whole AWS provider (AwsStack) against the project's EC2 emulator on a loopback port,
// every request recorded, so tests assert both what the provider decided and what it sent.
namespace nodewright::cloud::aws::testing {

// The instance-type catalog of ../shared/data (about 1,400 types), loaded once.
const emulators::ec2::Catalog& sharedCatalog();

// Selector terms that find the emulator's seed world (karpenter.sh/discovery: nodewright).
api::karpenter::EC2NodeClass discoveryNodeClass(const std::string& name);
api::karpenter::NetworkInterface networkInterface(int deviceIndex, int networkCardIndex = 0,
                                                  const std::string& type = "");
api::karpenter::NodePool nodePool(const std::string& name, const std::string& nodeClass);
// A claim of `pool` allowing `types` (none: any) and `capacityTypes`.
api::karpenter::NodeClaim nodeClaim(const std::string& name, const std::string& nodeClass,
                                    const std::vector<std::string>& types,
                                    const std::vector<std::string>& capacityTypes = {"on-demand"});

class ProviderTest : public ::testing::Test {
 protected:
  // Starts the emulator with `catalog` and the stack against it.
  void start(emulators::ec2::Catalog catalog = emulators::ec2::builtinCatalog());
  // The stack against `endpoint` for EC2 and SSM (another peer, e.g. moto), with the Pricing
  // API at `pricingEndpoint` when it is not empty.
  void startStack(const std::string& endpoint, const std::string& pricingEndpoint);

  AwsCloudProvider& provider() { return stack_->provider(); }
  AwsStack& stack() { return *stack_; }
  // The instance types of every CreateFleet override sent, in order.
  std::vector<std::string> fleetOverrideTypes() const;
  // LaunchTemplateData.NetworkInterface.N.<field> of each CreateLaunchTemplate sent (one
  // template per AMI, max pods and EFA count, so one launch may send several).
  std::vector<std::vector<std::string>> templateInterfaceValues(const std::string& field) const;

  std::map<std::string, api::karpenter::EC2NodeClass> nodeClasses_;
  std::unique_ptr<emulators::ec2::Ec2Server> server_;
  std::unique_ptr<nodewright::aws::Transport> curl_;
  std::unique_ptr<nodewright::aws::testing::RecordingTransport> recorder_;
  std::unique_ptr<AwsStack> stack_;
};

}  // namespace nodewright::cloud::aws::testing
