// The EC2 emulator's state file over the wire: what clients launched, tagged and templated is
// there after a restart, in the same states, and goes on from there.
#include <gtest/gtest.h>

#include <set>

#include "emulators/ec2/instance.h"
#include "emulators/ec2/resources.h"
#include "support/emulators/ec2_fixture.h"
#include "support/emulators/state_dir.h"

namespace nodewright::emulators::ec2 {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::QueryClient;
using testing::StateDir;
using testing::WireResponse;

constexpr std::string_view kSubnetA = "subnet-0e2c4a6f8b1d3000a";
constexpr std::string_view kNodeGroup = "sg-0e2c4a6f8b1d30001";

// The part of a Describe response that is about resources (not the request id).
std::string section(const WireResponse& r, std::string_view element) {
  const std::string open = "<" + std::string(element) + ">";
  const std::string close = "</" + std::string(element) + ">";
  const size_t from = r.body.find(open);
  const size_t to = r.body.rfind(close);
  return from == std::string::npos || to == std::string::npos ? "<none/>"
                                                              : r.body.substr(from, to - from);
}

class Ec2StateTest : public ::testing::Test {
 protected:
  Ec2EmulatorOptions options(double timeScale = 1) {
    Ec2EmulatorOptions o;
    o.engine.timeScale = timeScale;
    o.latencies[std::string(kLaunchOp)] = Latency::fixed(seconds(30));
    o.latencies[std::string(kTerminateOp)] = Latency::fixed(seconds(60));
    o.stateFile = dir_.file("ec2-state.json");
    return o;
  }

  void start(const core::Clock& clock, double timeScale = 1) {
    auto server = testing::startEc2(clock, options(timeScale));
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    client_ = std::make_unique<QueryClient>(server_->url(), clock);
  }

  void restart(const core::Clock& clock, double timeScale = 1) {
    client_.reset();
    server_->stop();
    server_.reset();
    start(clock, timeScale);
  }

  WireResponse ok(std::string_view action, const aws::ParamPairs& params = {}) {
    auto r = client_->call(action, params);
    EXPECT_TRUE(r) << action << ": " << r.error().message();
    if (!r) {
      return {};
    }
    EXPECT_EQ(r->status, 200) << action << ": " << r->body.substr(0, 600);
    return *r;
  }

  std::string image() {
    for (const Resource& r : server_->emulator().engine().store().list(kind::kImage)) {
      if (r.as<ImageAttributes>()->name == "nodewright-custom-al2023-x86_64") {
        return r.id;
      }
    }
    ADD_FAILURE() << "no custom image";
    return "";
  }

  void createTemplate() {
    ok("CreateLaunchTemplate", {{"LaunchTemplateName", "nodes"},
                                {"LaunchTemplateData.ImageId", image()},
                                {"LaunchTemplateData.InstanceType", "m5.large"},
                                {"LaunchTemplateData.SecurityGroupId.1", std::string(kNodeGroup)},
                                {"LaunchTemplateData.UserData", "aGVsbG8="},
                                {"LaunchTemplateData.MetadataOptions.HttpTokens", "required"},
                                {"LaunchTemplateData.TagSpecification.1.ResourceType", "instance"},
                                {"LaunchTemplateData.TagSpecification.1.Tag.1.Key", "from"},
                                {"LaunchTemplateData.TagSpecification.1.Tag.1.Value", "template"}});
  }

  std::vector<std::string> ids(const WireResponse& run) {
    std::vector<std::string> out;
    pugi::xml_document doc;
    doc.load_string(run.body.c_str());
    for (pugi::xpath_node n : doc.select_nodes("//instancesSet/item/instanceId")) {
      out.push_back(n.node().child_value());
    }
    return out;
  }

  std::string state(const std::string& id) {
    WireResponse r = ok("DescribeInstances", {{"InstanceId.1", id}});
    pugi::xml_document doc;
    doc.load_string(r.body.c_str());
    return doc.select_node("//instancesSet/item/instanceState/name").node().child_value();
  }

  WireResponse runIds(int count, std::vector<std::string>& out) {
    WireResponse r = ok("RunInstances", {{"LaunchTemplate.LaunchTemplateName", "nodes"},
                                         {"MinCount", std::to_string(count)},
                                         {"MaxCount", std::to_string(count)},
                                         {"SubnetId", std::string(kSubnetA)}});
    out = ids(r);
    EXPECT_EQ(out.size(), static_cast<size_t>(count)) << r.body.substr(0, 600);
    return r;
  }

  StateDir dir_;
  core::FakeClock clock_;
  core::FakeClock behind_;  // starts where clock_ does
  std::unique_ptr<Ec2Server> server_;
  std::unique_ptr<QueryClient> client_;
};

TEST_F(Ec2StateTest, InstancesTemplatesTagsAndAddressesSurviveARestart) {
  start(clock_);
  createTemplate();
  std::vector<std::string> running;
  runIds(2, running);
  clock_.advance(seconds(30));
  std::vector<std::string> pending;
  runIds(1, pending);
  ok("CreateTags", {{"ResourceId.1", running[0]}, {"Tag.1.Key", "team"}, {"Tag.1.Value", "a"}});
  ok("CreateTags", {{"ResourceId.1", std::string(kSubnetA)}, {"Tag.1.Key", "seen"}});
  const std::string instances = section(ok("DescribeInstances"), "reservationSet");
  const std::string templates =
      section(ok("DescribeLaunchTemplateVersions", {{"LaunchTemplateName", "nodes"}}),
              "launchTemplateVersionSet");
  const std::string subnets =
      section(ok("DescribeSubnets", {{"SubnetId.1", std::string(kSubnetA)}}), "subnetSet");
  ASSERT_NE(instances.find("team"), std::string::npos);

  restart(clock_);
  EXPECT_EQ(section(ok("DescribeInstances"), "reservationSet"), instances);
  EXPECT_EQ(section(ok("DescribeLaunchTemplateVersions", {{"LaunchTemplateName", "nodes"}}),
                    "launchTemplateVersionSet"),
            templates);
  EXPECT_EQ(section(ok("DescribeSubnets", {{"SubnetId.1", std::string(kSubnetA)}}), "subnetSet"),
            subnets);
  EXPECT_EQ(state(running[0]), "running");
  EXPECT_EQ(state(pending[0]), "pending");
  clock_.advance(seconds(30));
  EXPECT_EQ(state(pending[0]), "running");

  ok("TerminateInstances", {{"InstanceId.1", running[0]}});
  EXPECT_EQ(state(running[0]), "shutting-down");
  clock_.advance(seconds(60));
  EXPECT_EQ(state(running[0]), "terminated");

  std::vector<std::string> later;
  runIds(3, later);
  for (const std::string& id : later) {
    EXPECT_FALSE(id == running[0] || id == running[1] || id == pending[0]) << id;
  }
  std::set<std::string> addresses;
  WireResponse all = ok("DescribeInstances");
  pugi::xml_document doc;
  doc.load_string(all.body.c_str());
  for (pugi::xpath_node n : doc.select_nodes("//instancesSet/item/privateIpAddress")) {
    EXPECT_TRUE(addresses.insert(n.node().child_value()).second) << n.node().child_value();
  }
  EXPECT_EQ(addresses.size(), 5u);  // the terminated one has none
}

TEST_F(Ec2StateTest, CreateFleetRetriedAfterARestartReturnsTheSameFleet) {
  start(clock_);
  createTemplate();
  const aws::ParamPairs fleet{
      {"Type", "instant"},
      {"ClientToken", "karpenter-claim-1"},
      {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName", "nodes"},
      {"LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version", "$Latest"},
      {"LaunchTemplateConfigs.1.Overrides.1.InstanceType", "m5.large"},
      {"LaunchTemplateConfigs.1.Overrides.1.SubnetId", std::string(kSubnetA)},
      {"TargetCapacitySpecification.TotalTargetCapacity", "2"},
      {"TargetCapacitySpecification.DefaultTargetCapacityType", "on-demand"}};
  WireResponse first = ok("CreateFleet", fleet);
  const std::string fleetId = first.firstText("fleetId");
  ASSERT_FALSE(fleetId.empty()) << first.body;
  const std::vector<std::string> launched = first.itemTexts("instanceIds");
  ASSERT_EQ(launched.size(), 2u) << first.body;

  restart(clock_);
  WireResponse retried = ok("CreateFleet", fleet);
  EXPECT_EQ(retried.firstText("fleetId"), fleetId);
  EXPECT_EQ(retried.itemTexts("instanceIds"), launched);
  clock_.advance(seconds(30));
  EXPECT_EQ(state(launched[0]), "running");
  EXPECT_EQ(state(launched[1]), "running");
}

TEST_F(Ec2StateTest, SavesSoonAfterAChangeWithoutAStop) {
  start(clock_);
  std::vector<std::string> launched;
  createTemplate();
  runIds(1, launched);
  clock_.advance(seconds(2));
  ASSERT_TRUE(testing::eventually([&] {
    return testing::readWhole(dir_.file("ec2-state.json")).find(launched[0]) != std::string::npos;
  }));
  EXPECT_FALSE(std::filesystem::exists(dir_.file("ec2-state.json.tmp")));
}

TEST_F(Ec2StateTest, RestartWithTimeScaleContinuesEmulatedTimeWhereItStopped) {
  // Time scale 10: the 30 s launch takes 3 s of the clock.
  start(clock_, 10);
  createTemplate();
  std::vector<std::string> launched;
  runIds(1, launched);
  clock_.advance(seconds(2));
  ASSERT_EQ(state(launched[0]), "pending");
  const std::string launchTime = ok("DescribeInstances").firstText("launchTime");

  // A fresh clock at the first one's start: 2 s behind the saved time.
  core::FakeClock& behind = behind_;
  restart(behind, 10);
  EXPECT_EQ(state(launched[0]), "pending");
  behind.advance(milliseconds(900));
  EXPECT_EQ(state(launched[0]), "pending");
  behind.advance(milliseconds(100));  // 3 s after the launch in emulated time
  EXPECT_EQ(state(launched[0]), "running");
  EXPECT_EQ(ok("DescribeInstances").firstText("launchTime"), launchTime);

  std::vector<std::string> later;
  WireResponse run = runIds(1, later);
  EXPECT_GT(run.firstText("launchTime"), launchTime);
}

TEST_F(Ec2StateTest, CorruptStateFileFailsTheStartNamingTheFile) {
  const std::string path = dir_.file("ec2-state.json");
  testing::writeWhole(path, R"({"format": "nodewright-ec2-emulator-state", "version": 1,)");
  auto server = testing::startEc2(clock_, options());
  ASSERT_FALSE(server);
  EXPECT_NE(server.error().message().find(path), std::string::npos) << server.error().message();

  testing::writeWhole(path, R"({"format": "nodewright-ec2-emulator-state", "version": 1,
      "savedAt": 0, "store": {"idStream": 1, "resources": [
        {"type": "instance", "id": "i-1", "state": "running", "created": 0,
         "attributes": {"architecture": "sparc"}}]}})");
  server = testing::startEc2(clock_, options());
  ASSERT_FALSE(server);
  EXPECT_NE(server.error().message().find(path), std::string::npos) << server.error().message();
  EXPECT_NE(server.error().message().find("sparc"), std::string::npos) << server.error().message();
  EXPECT_NE(testing::readWhole(path).find("sparc"), std::string::npos);  // left as it was
}

}  // namespace
}  // namespace nodewright::emulators::ec2
