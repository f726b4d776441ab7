#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_client.h"
#include "aws/json_client.h"
#include "aws/query_client.h"
#include "aws/ssm_client.h"
#include "aws/transport.h"
#include "cloud/aws/sdk.h"
#include "core/clock.h"
#include "emulators/ec2/emulator.h"
#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

// The EC2 emulator (EC2 and SSM) on a FakeClock with the clients a NodeClassResolver takes,
// talking to it over loopback HTTP, and the node class the seed world's discovery tags select.
// One per test.
namespace nodewright::cloud::aws::testing {

inline constexpr const char* kSubnetA = "subnet-0e2c4a6f8b1d3000a";
inline constexpr const char* kSubnetB = "subnet-0e2c4a6f8b1d3000b";
inline constexpr const char* kSubnetC = "subnet-0e2c4a6f8b1d3000c";
inline constexpr const char* kOtherSubnet = "subnet-0f0f0f0f0f0f0000a";  // the other VPC
inline constexpr const char* kNodeGroup = "sg-0e2c4a6f8b1d30001";
inline constexpr const char* kDefaultGroup = "sg-0e2c4a6f8b1d30000";
inline constexpr const char* kOtherGroup = "sg-0f0f0f0f0f0f00002";  // the other VPC

// karpenter.sh/discovery: nodewright for subnets and groups, al2023@latest.
inline api::karpenter::EC2NodeClass discoveryNodeClass() {
  api::karpenter::EC2NodeClass nc;
  nc.metadata.name = "default";
  nc.metadata.generation = 1;
  nc.spec.subnetSelectorTerms = {{{{"karpenter.sh/discovery", "nodewright"}}, ""}};
  nc.spec.securityGroupSelectorTerms = {{{{"karpenter.sh/discovery", "nodewright"}}, "", ""}};
  api::karpenter::AMISelectorTerm alias;
  alias.alias = "al2023@latest";
  nc.spec.amiSelectorTerms = {alias};
  return nc;
}

class EmulatedPeer {
 public:
  // ADD_FAILUREs (check ok()) when the emulator cannot start.
  EmulatedPeer(core::FakeClock& clock, emulators::ec2::Ec2EmulatorOptions options) : clock_(clock) {
    auto server = emulators::testing::startEc2(clock_, std::move(options));
    if (!server) {
      ADD_FAILURE() << server.error().message();
      return;
    }
    server_ = std::move(*server);
    connect(server_->url());
    putFaults(R"({"throttling": false})");  // no token bucket may empty on a frozen clock
  }

  // Clients of `url` (the emulator, or a port nothing listens on).
  void connect(const std::string& url) {
    auto credentials = [] {
      return sdk::ApiResult<sdk::sigv4::Credentials>(
          sdk::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    auto sleep = [this](std::chrono::nanoseconds d) {
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(d));
    };
    sdk::QueryClientOptions q;
    q.endpoint = url;
    q.region = "us-east-1";
    q.credentials = credentials;
    q.retry.maxAttempts = 1;  // a fault must show, not be retried away
    q.sleep = sleep;
    q.attemptTimeout = std::chrono::seconds(5);
    query_ = std::make_unique<sdk::QueryClient>(clock_, *transport_, std::move(q));
    ec2_ = std::make_unique<sdk::Ec2Client>(*query_);
    sdk::JsonClientOptions j;
    j.endpoint = url;
    j.region = "us-east-1";
    j.service = "ssm";
    j.targetPrefix = "AmazonSSM";
    j.credentials = credentials;
    j.retry.maxAttempts = 1;
    j.sleep = sleep;
    j.attemptTimeout = std::chrono::seconds(5);
    json_ = std::make_unique<sdk::JsonClient>(clock_, *transport_, std::move(j));
    ssm_ = std::make_unique<sdk::SsmClient>(*json_);
  }

  bool ok() const { return server_ != nullptr; }
  sdk::Ec2Client& ec2() { return *ec2_; }
  sdk::SsmClient& ssm() { return *ssm_; }
  emulators::ec2::Ec2Server& server() { return *server_; }

  // The image id the world's SSM parameter `name` holds ("" when none).
  std::string parameter(const std::string& name) const {
    const auto& p = server_->emulator().world().ssmParameters;
    auto it = p.find(name);
    return it == p.end() ? "" : it->second;
  }

  void putFaults(const std::string& json) {
    emulators::testing::QueryClient admin(server_->url(), clock_);
    auto put = emulators::testing::putFaults(admin, json);
    ASSERT_TRUE(put) << put.error().message();
  }

  // Requests of `action` ("DescribeSubnets", "ssm:GetParameter") the emulator answered.
  int64_t requests(const std::string& action) {
    emulators::testing::QueryClient admin(server_->url(), clock_);
    auto stats = emulators::testing::adminStats(admin);
    EXPECT_TRUE(stats) << stats.error().message();
    if (!stats || !(*stats)["requests"].contains(action)) {
      return 0;
    }
    return (*stats)["requests"][action]["count"].get<int64_t>();
  }

  // Every request the resolver makes, summed.
  int64_t resolverRequests() {
    return requests("DescribeSubnets") + requests("DescribeSecurityGroups") +
           requests("DescribeImages") + requests("ssm:GetParameter");
  }

 private:
  core::FakeClock& clock_;
  sdk::TransportPtr transport_ = sdk::makeCurlTransport();
  std::unique_ptr<emulators::ec2::Ec2Server> server_;
  std::unique_ptr<sdk::QueryClient> query_;
  std::unique_ptr<sdk::Ec2Client> ec2_;
  std::unique_ptr<sdk::JsonClient> json_;
  std::unique_ptr<sdk::SsmClient> ssm_;
};

}  // namespace nodewright::cloud::aws::testing
