// The interruptions fault on a served emulator and a fake clock: PUT /admin/faults turns it on;
// a named instance is warned at once, a share of the running spot instances every interval;
// each is terminated two emulated minutes after its warning, with state-change events after,
// all as EventBridge events in the fault's SQS queue.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include <pugixml.hpp>

#include "api/reflect/json.h"
#include "emulators/ec2/instance.h"
#include "emulators/ec2/resources.h"
#include "support/emulators/ec2_fixture.h"

namespace nodewright::emulators::testing {
namespace {

using namespace std::chrono_literals;
using api::Json;

constexpr const char* kQueue = "interruptions";

class Ec2InterruptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ec2::Ec2EmulatorOptions options;
    options.latencies[std::string(ec2::kLaunchOp)] = Latency::fixed(10s);
    options.latencies[std::string(ec2::kTerminateOp)] = Latency::fixed(30s);
    auto server = startEc2(clock_, std::move(options));
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    client_ = std::make_unique<QueryClient>(server_->url(), clock_);
  }

  void TearDown() override {
    if (server_) {
      server_->stop();
    }
  }

  std::vector<std::string> run(int count, bool spot) {
    std::string image;
    for (const Resource& r : server_->emulator().engine().store().list(ec2::kind::kImage)) {
      if (r.as<ec2::ImageAttributes>()->name == "nodewright-custom-al2023-x86_64") {
        image = r.id;
      }
    }
    aws::ParamPairs params = {{"ImageId", image},
                              {"InstanceType", "m5.large"},
                              {"MinCount", std::to_string(count)},
                              {"MaxCount", std::to_string(count)},
                              {"SubnetId", "subnet-0e2c4a6f8b1d3000a"},  // us-east-1a
                              {"SecurityGroupId.1", "sg-0e2c4a6f8b1d30001"}};
    if (spot) {
      params.emplace_back("InstanceMarketOptions.MarketType", "spot");
    }
    auto response = client_->call("RunInstances", params);
    EXPECT_TRUE(response && response->status == 200)
        << (response ? response->body : response.error().message());
    std::vector<std::string> ids;
    pugi::xml_document doc;
    if (response && doc.load_buffer(response->body.data(), response->body.size())) {
      for (pugi::xpath_node id : doc.select_nodes("//instancesSet/item/instanceId")) {
        ids.emplace_back(id.node().child_value());
      }
    }
    return ids;
  }

  std::string state(const std::string& id) {
    auto r = server_->emulator().engine().store().get(ec2::kind::kInstance, id);
    return r ? r->state : "absent";
  }

  // Advances the clock and lets the interrupter act on it (its thread would too).
  void advance(std::chrono::microseconds by) {
    clock_.advance(by);
    server_->emulator().interrupter().runDue();
  }

  // The events now in the queue as (detail-type, instance id, state), received and deleted.
  std::vector<std::tuple<std::string, std::string, std::string>> drain() {
    std::vector<std::tuple<std::string, std::string, std::string>> out;
    auto& sqs = server_->emulator().sqs();
    while (true) {
      auto got =
          sqs.receive(kQueue, {.maxMessages = 10, .waitSeconds = 0, .visibilitySeconds = 60});
      EXPECT_TRUE(got) << got.error().message;
      if (!got || got->empty()) {
        return out;
      }
      for (const auto& m : *got) {
        Json event = Json::parse(m.body);
        EXPECT_EQ(event["source"], "aws.ec2");
        EXPECT_EQ(event["version"], "0");
        const std::string id = event["detail"]["instance-id"];
        EXPECT_EQ(event["resources"][0], "arn:aws:ec2:us-east-1:123456789012:instance/" + id);
        out.emplace_back(event["detail-type"], id, event["detail"].value("state", ""));
        EXPECT_TRUE(sqs.remove(kQueue, m.receiptHandle));
      }
    }
  }

  core::FakeClock clock_;
  std::unique_ptr<ec2::Ec2Server> server_;
  std::unique_ptr<QueryClient> client_;
};

TEST_F(Ec2InterruptionsTest, WarnsThenTerminatesTwoMinutesLater) {
  const auto spot = run(10, true);
  const auto onDemand = run(1, false);
  ASSERT_EQ(spot.size(), 10U);
  ASSERT_EQ(onDemand.size(), 1U);
  advance(10s);
  ASSERT_EQ(state(spot[0]), "running");

  auto put = putFaults(
      *client_,
      Json{{"interruptions",
            {{"queue", kQueue}, {"every", "5m"}, {"spotShare", 0.2}, {"instances", {onDemand[0]}}}}}
          .dump());
  ASSERT_TRUE(put) << put.error().message();
  advance(0s);
  // The named instance at once; nothing from the share before its first interval.
  using Event = std::tuple<std::string, std::string, std::string>;
  EXPECT_EQ(drain(),
            (std::vector<Event>{{"EC2 Spot Instance Interruption Warning", onDemand[0], ""}}));

  advance(119s);
  EXPECT_EQ(state(onDemand[0]), "running") << "terminated before the notice was over";
  EXPECT_TRUE(drain().empty());
  advance(1s);
  EXPECT_EQ(state(onDemand[0]), "shutting-down");
  EXPECT_EQ(drain(), (std::vector<Event>{{"EC2 Instance State-change Notification", onDemand[0],
                                          "shutting-down"}}));
  advance(30s);
  EXPECT_EQ(state(onDemand[0]), "terminated");
  EXPECT_EQ(
      drain(),
      (std::vector<Event>{{"EC2 Instance State-change Notification", onDemand[0], "terminated"}}));

  // At 5 minutes, 20% of the 10 running spot instances.
  advance(150s);
  auto warned = drain();
  ASSERT_EQ(warned.size(), 2U);
  std::set<std::string> picked;
  for (const auto& [type, id, st] : warned) {
    EXPECT_EQ(type, "EC2 Spot Instance Interruption Warning");
    EXPECT_EQ(state(id), "running");
    picked.insert(id);
  }
  EXPECT_EQ(picked.size(), 2U);
  advance(120s);
  for (const std::string& id : picked) {
    EXPECT_EQ(state(id), "shutting-down") << id;
  }
  const auto records = server_->emulator().interrupter().interruptions();
  ASSERT_EQ(records.size(), 3U);
  EXPECT_EQ(records[1].lifecycle, "spot");
  EXPECT_EQ(records[1].terminateAt - records[1].warned, std::chrono::microseconds(2min));
  EXPECT_TRUE(records[1].terminated);
  EXPECT_EQ(drain().size(), 2U);  // their shutting-down events
}

TEST_F(Ec2InterruptionsTest, AnInstanceTheClientTerminatedFirstIsNotReclaimedAgain) {
  const auto spot = run(1, true);
  advance(10s);
  auto put =
      putFaults(*client_, Json{{"interruptions", {{"queue", kQueue}, {"instances", spot}}}}.dump());
  ASSERT_TRUE(put) << put.error().message();
  advance(0s);
  ASSERT_EQ(drain().size(), 1U);
  // The controller drains and terminates the node within the notice.
  auto terminated = client_->call("TerminateInstances", {{"InstanceId.1", spot[0]}});
  ASSERT_TRUE(terminated && terminated->status == 200);
  advance(2min);
  EXPECT_TRUE(drain().empty()) << "no state change is EC2's to announce";
}

TEST_F(Ec2InterruptionsTest, RebalanceRecommendationsTerminateNothing) {
  const auto spot = run(4, true);
  advance(10s);
  auto put = putFaults(
      *client_,
      Json{{"interruptions", {{"queue", kQueue}, {"every", "1m"}, {"rebalanceShare", 0.5}}}}
          .dump());
  ASSERT_TRUE(put) << put.error().message();
  advance(0s);
  advance(1min);
  auto events = drain();
  ASSERT_EQ(events.size(), 2U);
  for (const auto& [type, id, st] : events) {
    EXPECT_EQ(type, "EC2 Instance Rebalance Recommendation");
  }
  advance(5min);
  for (const std::string& id : spot) {
    EXPECT_EQ(state(id), "running");
  }
}

}  // namespace
}  // namespace nodewright::emulators::testing

namespace nodewright::emulators::ec2 {
namespace {

TEST(InterruptionFaultTest, AFaultFileHoldsInterruptionsBesideTheEnginesFaults) {
  auto parsed = parseEc2FaultConfigText(R"(seed: 7
throttling: false
interruptions:
  queue: spot-events
  every: 1m
  spotShare: 0.25
  instances: [i-0123456789abcdef0]
)");
  ASSERT_TRUE(parsed) << parsed.error().message();
  EXPECT_EQ(parsed->engine.seed, 7U);
  EXPECT_FALSE(parsed->engine.throttling);
  ASSERT_TRUE(parsed->interruptions);
  EXPECT_EQ(parsed->interruptions->queue, "spot-events");
  EXPECT_EQ(parsed->interruptions->every, std::chrono::minutes(1));
  EXPECT_EQ(parsed->interruptions->notice, std::chrono::minutes(2));
  EXPECT_EQ(parsed->interruptions->spotShare, 0.25);
  EXPECT_EQ(parsed->interruptions->instances, std::vector<std::string>{"i-0123456789abcdef0"});

  auto bad = parseEc2FaultConfigText("interruptions: {spotShare: 2, every: 0s, color: red}\n");
  ASSERT_FALSE(bad);
  const std::string message = bad.error().message();
  EXPECT_NE(message.find("interruptions.spotShare"), std::string::npos) << message;
  EXPECT_NE(message.find("interruptions.every"), std::string::npos) << message;
  EXPECT_NE(message.find("interruptions.color"), std::string::npos) << message;

  auto none = parseEc2FaultConfigText("seed: 3\n");
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_FALSE(none->interruptions);
}

}  // namespace
}  // namespace nodewright::emulators::ec2
