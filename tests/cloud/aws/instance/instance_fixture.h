#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cloud/aws/cache/unavailable_offerings.h"
#include "cloud/aws/instance/ec2_peer.h"
#include "cloud/aws/instance/instance_provider.h"
#include "cloud/aws/launch/template_provider.h"

// The instance provider wired to the EC2 emulator on a FakeClock, with the seed world's node
// class and two instance types (m5.large cheapest). Batch windows are zero unless a test asks
// for the real ones, so a lone get() runs at once.
namespace nodewright::cloud::aws::testing {

class InstanceProviderFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(peer_.ok());
    resolved_ = peer_.resolved();
    ASSERT_EQ(resolved_.subnets.size(), 3u);
    nodeClass_.metadata.name = "default";
    nodeClass_.spec.tags = {{"team", "storage"}};
    templates_ = std::make_unique<LaunchTemplateProvider>(
        peer_.ec2(), clock_, LaunchTemplateProviderOptions{clusterInfo()});
    instances_ = provider(immediate());
  }

  static InstanceProviderOptions immediate() {
    InstanceProviderOptions o;
    o.clusterName = kCluster;
    o.describeBatch = {std::chrono::milliseconds(0), std::chrono::milliseconds(0), 500};
    o.terminateBatch = o.describeBatch;
    return o;
  }

  std::unique_ptr<InstanceProvider> provider(InstanceProviderOptions options) {
    return std::make_unique<InstanceProvider>(peer_.ec2(), *templates_, unavailable_, clock_,
                                              std::move(options));
  }

  static api::karpenter::NodeClaim claim(const std::string& name,
                                         std::vector<std::string> capacityTypes = {"on-demand"}) {
    api::karpenter::NodeClaim c;
    c.metadata.name = name;
    c.metadata.uid = "uid-" + name;
    c.metadata.labels = {{"karpenter.sh/nodepool", "general"}};
    c.spec.requirements.push_back(
        {"karpenter.sh/capacity-type", "In", std::move(capacityTypes), {}});
    return c;
  }

  core::Result<sdk::Instance> launch(const api::karpenter::NodeClaim& c) {
    return instances_->create({c, nodeClass_, resolved_, pointers(types_)});
  }

  // "type/zone" of each override of the last CreateFleet request, in order.
  std::vector<std::string> lastOverrides() {
    const std::vector<sdk::ParamPairs> requests = peer_.sentRequests("CreateFleet");
    std::vector<std::string> out;
    if (requests.empty()) {
      return out;
    }
    std::map<std::string, std::string> params(requests.back().begin(), requests.back().end());
    for (int c = 1;
         params.contains(fmt::format("LaunchTemplateConfigs.{}.Overrides.1.InstanceType", c));
         ++c) {
      for (int o = 1;; ++o) {
        const std::string prefix = fmt::format("LaunchTemplateConfigs.{}.Overrides.{}.", c, o);
        if (!params.contains(prefix + "InstanceType")) {
          break;
        }
        out.push_back(params[prefix + "InstanceType"] + "/" + params[prefix + "AvailabilityZone"]);
      }
    }
    return out;
  }
  // A parameter of the last CreateFleet request; "" when it was not sent.
  std::string lastFleetParam(const std::string& name) {
    const std::vector<sdk::ParamPairs> requests = peer_.sentRequests("CreateFleet");
    if (requests.empty()) {
      return "";
    }
    for (const auto& [k, v] : requests.back()) {
      if (k == name) {
        return v;
      }
    }
    return "";
  }

  core::FakeClock clock_;
  Ec2Peer peer_{clock_, emulators::testing::fastOptions()};
  UnavailableOfferings unavailable_{clock_};
  ResolvedNodeClass resolved_;
  api::karpenter::EC2NodeClass nodeClass_;
  std::vector<InstanceType> types_ = {instanceType("m5.large", 0.096, 29),
                                      instanceType("m5.xlarge", 0.192, 58)};
  std::unique_ptr<LaunchTemplateProvider> templates_;
  std::unique_ptr<InstanceProvider> instances_;
};

}  // namespace nodewright::cloud::aws::testing
