#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aws/ec2_client.h"
#include "aws/query_client.h"
#include "aws/transport.h"
#include "cloud/aws/amifamily/bootstrap.h"
#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/instance_type.h"
#include "core/clock.h"
#include "emulators/ec2/emulator.h"
#include "support/aws/moto_server.h"
#include "support/aws/recording_transport.h"
#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

// The EC2 peers the launch template and instance tests run against: the project's emulator on
// a FakeClock, or moto's server, each with an Ec2Client and the raw test query client (to read
// back what the peer recorded), plus the node class its world resolves to. One per test.
namespace nodewright::cloud::aws::testing {

inline constexpr const char* kCluster = "nodewright";
inline constexpr const char* kImageName = "amazon-eks-node-al2023-x86_64-standard-1.31-v20241115";
// One of moto's default AMIs (moto has no EKS images).
inline constexpr const char* kMotoImageName =
    "ubuntu/images/hvm-ssd/ubuntu-trusty-14.04-amd64-server-20170727";

inline ClusterInfo clusterInfo() {
  return {kCluster, "https://127.0.0.1:6443", "Y2EtYnVuZGxl", "10.100.0.0/16"};
}

class Ec2Peer {
 public:
  // ADD_FAILUREs (check ok()) when the emulator cannot start.
  Ec2Peer(core::FakeClock& clock, emulators::ec2::Ec2EmulatorOptions options) : clock_(clock) {
    auto server = emulators::testing::startEc2(clock_, std::move(options));
    if (!server) {
      ADD_FAILURE() << server.error().message();
      return;
    }
    server_ = std::move(*server);
    connect(server_->url());
    // Throttling is the client layer's to test; here every request must reach the actions.
    putFaults(R"({"throttling": false})");
  }

  struct Moto {};
  // moto's server, seeded with what the emulator's seed world has and the node class selects:
  // a VPC with one discovery-tagged subnet per zone and a tagged security group.
  Ec2Peer(core::FakeClock& clock, Moto) : clock_(clock), imageName_(kMotoImageName) {
    if (auto missing = emulators::testing::missingPythonClients(true, false)) {
      ADD_FAILURE() << *missing;
      return;
    }
    moto_ = std::make_unique<sdk::testing::MotoServer>();
    if (!moto_->error().empty()) {
      ADD_FAILURE() << moto_->error();
      return;
    }
    connect(moto_->url());
    seedMoto();
  }

  bool ok() const { return ec2_ != nullptr; }
  bool isMoto() const { return moto_ != nullptr; }
  sdk::Ec2Client& ec2() { return *ec2_; }
  emulators::testing::QueryClient& wire() { return *wire_; }
  const std::string& url() const { return url_; }
  // What the code under test sent (see RecordingTransport::values).
  std::vector<std::string> sent(const std::string& action, const std::string& pattern) const {
    return recording_.values(action, pattern);
  }
  std::vector<sdk::ParamPairs> sentRequests(const std::string& action) const {
    return recording_.requests(action);
  }

  // PUT /admin/faults with `json` (throttling stays off unless it says otherwise).
  void putFaults(const std::string& json) {
    nlohmann::json body = nlohmann::json::parse(json);
    if (!body.contains("throttling")) {
      body["throttling"] = false;
    }
    auto put = emulators::testing::putFaults(*wire_, body.dump());
    ASSERT_TRUE(put) << put.error().message();
  }

  api::Json stats() {
    auto stats = emulators::testing::adminStats(*wire_);
    EXPECT_TRUE(stats) << stats.error().message();
    return stats ? *stats : api::Json::object();
  }
  // Requests of `action` the emulator answered, errors included.
  int64_t requests(const std::string& action) {
    api::Json s = stats();
    if (!s["requests"].contains(action)) {
      return 0;
    }
    return s["requests"][action]["count"].get<int64_t>();
  }
  int64_t creates(const std::string& clientToken) {
    api::Json s = stats();
    if (!s["createsByClientToken"].contains(clientToken)) {
      return 0;
    }
    return s["createsByClientToken"][clientToken].get<int64_t>();
  }

  // The image `name` of the seed world, for nodes of `arch` ("amd64", "arm64").
  ResolvedImage image(const std::string& name, const std::string& arch) {
    ResolvedImage image;
    auto images = ec2_->describeImages({{"name", {name}}});
    EXPECT_TRUE(images && images->size() == 1) << name;
    if (images && !images->empty()) {
      image.id = images->front().imageId;
      image.name = name;
    }
    image.architecture = arch;
    image.requirements = {{"kubernetes.io/arch", "In", {arch}}};
    return image;
  }

  // The seed world's discovery-tagged subnets and group and its AL2023 x86_64 image, as the
  // node class resolver would find them.
  ResolvedNodeClass resolved() {
    ResolvedNodeClass r;
    r.family = kFamilyAL2023;
    const std::vector<sdk::Filter> discovery = {{"tag:karpenter.sh/discovery", {"nodewright"}}};
    auto subnets = ec2_->describeSubnets(discovery);
    EXPECT_TRUE(subnets) << subnets.error().message;
    auto groups = ec2_->describeSecurityGroups(discovery);
    EXPECT_TRUE(groups) << groups.error().message;
    if (!subnets || !groups) {
      return r;
    }
    r.subnets = *subnets;
    r.securityGroups = *groups;
    const ResolvedImage image = this->image(imageName_, "amd64");
    r.images = {image};
    return r;
  }

 private:
  std::string wireCall(const std::string& action, const sdk::ParamPairs& params,
                       const std::string& field) {
    auto response = wire_->call(action, params);
    EXPECT_TRUE(response && response->status == 200)
        << action << ": " << (response ? response->body : response.error().message());
    return response ? response->firstText(field) : "";
  }

  void seedMoto() {
    const std::string vpc = wireCall("CreateVpc", {{"CidrBlock", "10.0.0.0/16"}}, "vpcId");
    const char* zones[] = {"us-east-1a", "us-east-1b", "us-east-1c"};
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) {
      ids.push_back(wireCall("CreateSubnet",
                             {{"VpcId", vpc},
                              {"CidrBlock", "10.0." + std::to_string(i * 32) + ".0/19"},
                              {"AvailabilityZone", zones[i]}},
                             "subnetId"));
    }
    ids.push_back(wireCall("CreateSecurityGroup",
                           {{"GroupName", "nodewright-node"},
                            {"GroupDescription", "Nodes of the nodewright cluster"},
                            {"VpcId", vpc}},
                           "groupId"));
    sdk::ParamPairs tags;
    for (size_t i = 0; i < ids.size(); ++i) {
      tags.emplace_back("ResourceId." + std::to_string(i + 1), ids[i]);
    }
    tags.emplace_back("Tag.1.Key", "karpenter.sh/discovery");
    tags.emplace_back("Tag.1.Value", "nodewright");
    wireCall("CreateTags", tags, "return");
  }

  void connect(const std::string& url) {
    url_ = url;
    sdk::QueryClientOptions o;
    o.endpoint = url;
    o.region = "us-east-1";
    o.credentials = [] {
      return sdk::ApiResult<sdk::sigv4::Credentials>(
          sdk::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    o.retry.maxAttempts = 1;  // a fault must show, not be retried away
    o.sleep = [this](std::chrono::nanoseconds d) {
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(d));
    };
    query_ = std::make_unique<sdk::QueryClient>(clock_, recording_, std::move(o));
    ec2_ = std::make_unique<sdk::Ec2Client>(*query_);
    wire_ = std::make_unique<emulators::testing::QueryClient>(url, clock_);
  }

  core::FakeClock& clock_;
  std::string imageName_ = kImageName;
  std::unique_ptr<sdk::testing::MotoServer> moto_;
  sdk::TransportPtr transport_ = sdk::makeCurlTransport();
  sdk::testing::RecordingTransport recording_{*transport_};
  std::unique_ptr<emulators::ec2::Ec2Server> server_;
  std::string url_;
  std::unique_ptr<sdk::QueryClient> query_;
  std::unique_ptr<sdk::Ec2Client> ec2_;
  std::unique_ptr<emulators::testing::QueryClient> wire_;
};

// The types as a LaunchRequest takes them, in order; `types` must outlive the result.
inline std::vector<const InstanceType*> pointers(const std::vector<InstanceType>& types) {
  std::vector<const InstanceType*> out;
  for (const InstanceType& t : types) {
    out.push_back(&t);
  }
  return out;
}

// A type as the instance type provider would give it: amd64, its pods, and an offering per
// zone and capacity type (spot at `spotShare` of the on-demand price).
inline InstanceType instanceType(const std::string& name, double onDemand, int64_t pods,
                                 double spotShare = 0.4) {
  InstanceType t;
  t.name = name;
  t.labels = {{"kubernetes.io/arch", "amd64"}, {"node.kubernetes.io/instance-type", name}};
  t.capacity["pods"] = core::Quantity::fromInt(pods);
  for (const char* zone : {"us-east-1a", "us-east-1b", "us-east-1c"}) {
    t.offerings.push_back({zone, kCapacityTypeOnDemand, onDemand, true});
    t.offerings.push_back({zone, kCapacityTypeSpot, onDemand * spotShare, true});
  }
  return t;
}

}  // namespace nodewright::cloud::aws::testing
