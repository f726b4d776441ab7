#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "aws/query.h"
#include "emulators/ec2/describe_fixture.h"
#include "emulators/ec2/instance.h"
#include "emulators/ec2/resources.h"

// The mutating actions in process: the describe fixture's seeded world on a FakeClock, with
// launch templates and instances added to its actions, fixed latencies (running 30s after a
// launch, terminated 60s after a termination) and request parameters as name/value pairs.
namespace nodewright::emulators::ec2::testing {

inline constexpr auto kLaunchLatency = std::chrono::seconds(30);
inline constexpr auto kTerminateLatency = std::chrono::seconds(60);

// The default world's ids (world.cc).
inline constexpr std::string_view kSubnetA = "subnet-0e2c4a6f8b1d3000a";  // us-east-1a
inline constexpr std::string_view kSubnetB = "subnet-0e2c4a6f8b1d3000b";  // us-east-1b
inline constexpr std::string_view kNodeGroup = "sg-0e2c4a6f8b1d30001";
inline constexpr std::string_view kOtherVpcGroup = "sg-0f0f0f0f0f0f00002";

class LaunchWorld {
 public:
  explicit LaunchWorld(const WorldConfig& config = defaultWorld()) : w_(config) {
    addDescribeActions(table_);
    addLaunchTemplateActions(table_);
    addInstanceActions(table_);
    addInterfaceActions(table_);
    addCapacityReservationActions(table_);
    addPlacementGroupActions(table_);
    engine().latency().set(std::string(kLaunchOp), Latency::fixed(kLaunchLatency));
    engine().latency().set(std::string(kTerminateOp), Latency::fixed(kTerminateLatency));
  }

  aws::ApiResult<std::string> call(std::string_view action, const aws::ParamPairs& pairs) {
    auto params = aws::Params::fromPairs(pairs);
    if (!params) {
      return tl::unexpected(params.error());
    }
    auto entry = table_.find(action);
    if (entry == table_.end()) {
      return aws::apiFail("InvalidAction", std::string(action));
    }
    ActionContext ctx{engine(), w_.catalog(), w_.world(), *params, action, "req-1", "nodewright"};
    return entry->second.handler(ctx);
  }

  // The response of a call that must succeed (an empty document otherwise).
  Xml ok(std::string_view action, const aws::ParamPairs& pairs) {
    auto body = call(action, pairs);
    EXPECT_TRUE(body) << action << ": " << body.error().code << ": " << body.error().message;
    return Xml(body ? *body : "<failed/>");
  }

  // The error of a call that must fail.
  aws::ApiError fails(std::string_view action, const aws::ParamPairs& pairs) {
    auto body = call(action, pairs);
    EXPECT_FALSE(body) << action << " succeeded: " << body.value_or("").substr(0, 400);
    return body ? aws::ApiError{} : body.error();
  }

  // An image of the world with `arch`: the account's custom AL2023 image.
  std::string image(std::string_view arch = "x86_64") {
    for (const Resource& r : engine().store().list(kind::kImage)) {
      if (r.as<ImageAttributes>()->name == "nodewright-custom-al2023-" + std::string(arch)) {
        return r.id;
      }
    }
    ADD_FAILURE() << "no custom image for " << arch;
    return "";
  }

  // RunInstances parameters for `count` m5.large in subnet A with the node group.
  aws::ParamPairs runParams(int count = 1, std::string_view type = "m5.large") {
    return {{"ImageId", image()},
            {"InstanceType", std::string(type)},
            {"MinCount", std::to_string(count)},
            {"MaxCount", std::to_string(count)},
            {"SubnetId", std::string(kSubnetA)},
            {"SecurityGroupId.1", std::string(kNodeGroup)}};
  }

  // The instance ids of a RunInstances response, in order.
  static std::vector<std::string> instanceIds(const Xml& run) {
    return run.texts("instancesSet", "instanceId");
  }

  // The first instance of a DescribeInstances response.
  static pugi::xml_node firstInstance(const Xml& described) {
    return described.root()
        .child("reservationSet")
        .child("item")
        .child("instancesSet")
        .child("item");
  }

  std::string state(const std::string& id) {
    Xml described = ok("DescribeInstances", {{"InstanceId.1", id}});
    return firstInstance(described).child("instanceState").child_value("name");
  }

  int64_t availableIps(std::string_view subnet) {
    auto r = engine().store().get(kind::kSubnet, subnet);
    EXPECT_TRUE(r);
    return r ? r->as<SubnetAttributes>()->availableIps : -1;
  }

  void advance(std::chrono::microseconds by) { w_.clock().advance(by); }
  Engine& engine() { return w_.engine(); }
  const Catalog& catalog() const { return w_.catalog(); }
  const World& world() const { return w_.world(); }

 private:
  DescribeWorld w_;
  ActionTable table_;
};

// Sets one capacity pool of the faults: without `remaining` it has none.
inline void limitCapacity(Engine& engine, std::string type, std::string zone,
                          std::string capacityType, std::optional<int64_t> remaining = {}) {
  FaultConfig faults = engine.faults().config();
  faults.capacity.push_back({std::move(type), std::move(zone), std::move(capacityType), remaining});
  engine.faults().replace(std::move(faults));
}

}  // namespace nodewright::emulators::ec2::testing
