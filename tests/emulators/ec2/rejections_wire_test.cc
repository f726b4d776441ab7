// Invalid launches over the wire, each rejected with the error code real EC2 uses, as botocore
// sees it (ClientError's code, or CreateFleet's per-override Errors for instant fleets). The
// expected codes are the ones launch_validation.cc documents (CONFIRMED or GUESS there); the
// network-interface cases follow seed 001 (/work/shared/seeds/001_*.txt). One boto3 run
// (scripts/rejections.py) serves the whole table; each case is checked on its own.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

namespace nodewright::emulators::testing {
namespace {

// An untagged subnet of the discovered VPC with two free addresses.
constexpr char kTinySubnet[] = "subnet-0000000000000a1e2";

struct RejectCase {
  std::string name;
  // {"via": "run"|"fleet", "params": {...}, "nics": [...], "template": {...}}; see rejections.py.
  std::string spec;
  std::string code;
  std::string messagePart;  // a substring of the message; empty: not checked
};

void PrintTo(const RejectCase& c, std::ostream* os) {
  *os << c.name;
}

const std::vector<RejectCase>& rejectCases() {
  static const std::vector<RejectCase> cases{
      // Counts, types and images.
      {"ZeroMinCount", R"({"params": {"MinCount": 0}})", "InvalidParameterValue", "MinCount"},
      // GUESS (the emulator's and ours): EC2 rejects MinCount > MaxCount before launching.
      {"MinCountAboveMaxCount", R"({"params": {"MinCount": 3, "MaxCount": 2}})",
       "InvalidParameterValue", ""},
      {"UnknownInstanceType", R"({"params": {"InstanceType": "m5.huge"}})", "InvalidParameterValue",
       "Invalid value 'm5.huge' for InstanceType."},
      {"UnknownImage", R"({"params": {"ImageId": "ami-00000000000000000"}})",
       "InvalidAMIID.NotFound", "ami-00000000000000000"},
      {"ArmImageOnIntelType", R"({"params": {"ImageId": "$ami_arm"}})", "InvalidParameterValue",
       "does not match the architecture 'arm64' of the specified AMI"},
      {"IntelImageOnGravitonType", R"({"params": {"InstanceType": "m7g.large"}})",
       "InvalidParameterValue", "The architecture 'arm64' of the specified instance type"},
      // Subnets, security groups and addresses.
      {"UnknownSubnet", R"({"params": {"SubnetId": "subnet-00000000000000000"}})",
       "InvalidSubnetID.NotFound", "subnet-00000000000000000"},
      {"UnknownSecurityGroup", R"({"params": {"SecurityGroupIds": ["sg-00000000000000000"]}})",
       "InvalidGroup.NotFound", "sg-00000000000000000"},
      {"SecurityGroupOfAnotherVpc", R"({"params": {"SecurityGroupIds": ["$foreign_sg"]}})",
       "InvalidParameter", "belong to different networks"},
      {"SubnetWithoutFreeAddresses",
       R"({"params": {"SubnetId": "$tiny", "MinCount": 3, "MaxCount": 3}})",
       "InsufficientFreeAddressesInSubnet", "subnet-0000000000000a1e2"},
      // Network interfaces (seed 001).
      {"EfaOnM5Large", R"({"nics": [{"type": "efa"}]})", "InvalidParameterCombination", "m5.large"},
      {"EfaOnlySecondaryOnM5Large",
       R"({"nics": [{"device": 0}, {"device": 1, "type": "efa-only"}]})",
       "InvalidParameterCombination", ""},
      {"NetworkCard1OnSingleCardType", R"({"nics": [{"card": 0}, {"card": 1}]})",
       "InvalidParameterValue", "NetworkCard index 1 exceeds the limit for m5.large"},
      {"NetworkCard4OnP4d",
       R"({"params": {"InstanceType": "p4d.24xlarge"}, "nics": [{"card": 0}, {"card": 4}]})",
       "InvalidParameterValue", "NetworkCard index 4"},
      {"FourInterfacesOnM5Large",
       R"({"nics": [{"device": 0}, {"device": 1}, {"device": 2}, {"device": 3}]})",
       "AttachmentLimitExceeded", "Interface count 4 exceeds the limit for m5.large"},
      {"EfaOnlyPrimary",
       R"({"params": {"InstanceType": "p5.48xlarge"}, "nics": [{"type": "efa-only"}]})",
       "InvalidParameterValue", "primary network interface"},
      {"NoPrimaryInterface", R"({"nics": [{"device": 1}]})", "InvalidParameterValue",
       "device at index 0"},
      {"DuplicateDeviceIndex", R"({"nics": [{"device": 0}, {"device": 0}]})",
       "InvalidParameterValue", "device index"},
      {"DeviceIndexBeyondTheCard", R"({"nics": [{"device": 0}, {"device": 5}]})",
       "InvalidParameterValue", "device index exceeds the maximum"},
      {"PublicIpWithTwoInterfaces",
       R"({"nics": [{"device": 0, "AssociatePublicIpAddress": true}, {"device": 1}]})",
       "InvalidParameterCombination", "associatePublicIPAddress"},
      {"PublicIpFalseWithTwoInterfaces",
       R"({"nics": [{"device": 0, "AssociatePublicIpAddress": false}, {"device": 1}]})",
       "InvalidParameterCombination", "associatePublicIPAddress"},
      {"MoreEfaThanTheTypeAllows",
       R"({"params": {"InstanceType": "p5.4xlarge"},
           "nics": [{"device": 0, "type": "efa"}, {"device": 1, "type": "efa"}]})",
       "InvalidParameterCombination", "Elastic Fabric Adapters"},
      {"UnknownInterfaceType", R"({"nics": [{"type": "turbo"}]})", "InvalidParameterValue",
       "turbo"},
      {"InterfaceInUnknownSubnet",
       R"({"nics": [{"device": 0}, {"device": 1, "SubnetId": "subnet-00000000000000000"}]})",
       "InvalidSubnetID.NotFound", "subnet-00000000000000000"},
      {"InterfaceGroupOfAnotherVpc", R"({"nics": [{"Groups": ["$foreign_sg"]}]})",
       "InvalidParameter", "belong to different networks"},
      {"PrefixDoesNotFitTheSubnet", R"({"nics": [{"SubnetId": "$tiny", "Ipv4PrefixCount": 1}]})",
       "InsufficientFreeAddressesInSubnet", "subnet-0000000000000a1e2"},
      // The same rules through an instant fleet's launch template.
      {"FleetEfaOnM5Large", R"({"via": "fleet", "nics": [{"type": "efa"}]})",
       "InvalidParameterCombination", ""},
      {"FleetFourInterfacesOnM5Large",
       R"({"via": "fleet", "nics": [{"device": 0}, {"device": 1}, {"device": 2}, {"device": 3}]})",
       "AttachmentLimitExceeded", ""},
      {"FleetArmImageOnIntelType", R"({"via": "fleet", "template": {"ImageId": "$ami_arm"}})",
       "InvalidParameterValue", ""},
      {"FleetSecurityGroupOfAnotherVpc",
       R"({"via": "fleet", "template": {"SecurityGroupIds": ["$foreign_sg"]}})", "InvalidParameter",
       ""},
  };
  return cases;
}

class Ec2RejectionsWireTest : public ::testing::TestWithParam<RejectCase> {
 protected:
  // One emulator and one boto3 run for the table.
  static void SetUpTestSuite() {
    if (auto missing = missingPythonClients(/*needMoto=*/false, /*needAwsCli=*/false)) {
      missingClients_ = new std::string(*missing);
      return;
    }
    ec2::Ec2EmulatorOptions options = fastOptions();
    // Rejected launches take tokens too, as on EC2; this table is not about throttling.
    options.engine.faults.throttling = false;
    addTinySubnet(options.world, kTinySubnet, 2);
    auto server = startEc2(core::systemClock(), std::move(options));
    if (!server) {
      setupError_ = new std::string(server.error().message());
      return;
    }
    server_ = server->release();

    api::Json cases = api::Json::array();
    for (const RejectCase& c : rejectCases()) {
      if (!selected(c.name)) {
        continue;
      }
      api::Json spec = api::Json::parse(c.spec);
      spec["name"] = c.name;
      cases.push_back(spec);
    }
    TempFile file(cases.dump(), ".json");
    auto run = runScript("rejections.py",
                         {server_->url(), file.path(), std::string("tiny=") + kTinySubnet});
    auto out =
        run.ok() ? parseScriptOutput(run) : core::fail(core::Error::internal(run.describe()));
    if (!out) {
      setupError_ = new std::string(out.error().message());
      return;
    }
    observed_ = new api::Json(std::move(*out));
  }

  // Whether this run needs case `name`: ctest runs each case in a process of its own, so only
  // the filtered cases are sent; the leak check runs after the whole table.
  static bool selected(const std::string& name) {
    const ::testing::TestSuite* suite = ::testing::UnitTest::GetInstance()->current_test_suite();
    if (suite == nullptr || std::string_view(suite->name()).find('/') == std::string_view::npos) {
      return true;
    }
    for (int i = 0; i < suite->total_test_count(); ++i) {
      const ::testing::TestInfo* test = suite->GetTestInfo(i);
      if (test->should_run() && std::string_view(test->name()).ends_with("/" + name)) {
        return true;
      }
    }
    return false;
  }

  static void TearDownTestSuite() {
    delete server_;
    delete observed_;
    delete missingClients_;
    delete setupError_;
    server_ = nullptr;
    observed_ = nullptr;
    missingClients_ = nullptr;
    setupError_ = nullptr;
  }

  void SetUp() override {
    if (missingClients_ != nullptr) {
      FAIL() << *missingClients_;
    }
    ASSERT_EQ(setupError_, nullptr) << *setupError_;
    ASSERT_NE(observed_, nullptr);
  }

  static ec2::Ec2Server* server_;
  static api::Json* observed_;
  static std::string* missingClients_;
  static std::string* setupError_;
};

ec2::Ec2Server* Ec2RejectionsWireTest::server_ = nullptr;
api::Json* Ec2RejectionsWireTest::observed_ = nullptr;
std::string* Ec2RejectionsWireTest::missingClients_ = nullptr;
std::string* Ec2RejectionsWireTest::setupError_ = nullptr;

TEST_P(Ec2RejectionsWireTest, RejectsWithEc2sCode) {
  const RejectCase& c = GetParam();
  ASSERT_TRUE(observed_->contains(c.name)) << observed_->dump();
  const api::Json& seen = (*observed_)[c.name];
  ASSERT_NE(seen["where"], "accepted")
      << "EC2 rejects this launch; the emulator accepted it: " << seen.dump();
  EXPECT_EQ(seen["code"], c.code) << seen.dump();
  if (!c.messagePart.empty()) {
    EXPECT_NE(seen["message"].get<std::string>().find(c.messagePart), std::string::npos)
        << seen.dump();
  }
  if (seen["where"] == "error") {
    EXPECT_EQ(seen["status"], 400) << seen.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Launches, Ec2RejectionsWireTest, ::testing::ValuesIn(rejectCases()),
                         [](const ::testing::TestParamInfo<RejectCase>& info) {
                           return info.param.name;
                         });

// Rejected launches leave nothing: no instance, no address taken (a valid launch still fits the
// tiny subnet), and every launch template the fleet cases made is gone.
TEST_F(Ec2RejectionsWireTest, RejectedLaunchesLeaveNothingBehind) {
  if (missingClients_ != nullptr || setupError_ != nullptr) {
    FAIL() << "the table did not run";
  }
  QueryClient client(server_->url(), core::systemClock());
  auto stats = adminStats(client);
  ASSERT_TRUE(stats) << stats.error().message();
  EXPECT_EQ(liveCount(*stats, "instance"), 0) << stats->dump();
  EXPECT_EQ(liveCount(*stats, "launch-template"), 0) << stats->dump();
  EXPECT_TRUE((*stats)["duplicateClientTokens"].empty()) << stats->dump();

  auto image = client.call(
      "DescribeImages",
      {{"Owner.1", "amazon"}, {"Filter.1.Name", "architecture"}, {"Filter.1.Value.1", "x86_64"}});
  ASSERT_TRUE(image) << image.error().message();
  auto group = client.call(
      "DescribeSecurityGroups",
      {{"Filter.1.Name", "tag:karpenter.sh/discovery"}, {"Filter.1.Value.1", "nodewright"}});
  ASSERT_TRUE(group) << group.error().message();
  auto run = client.call("RunInstances", {{"ImageId", image->firstText("imageId")},
                                          {"InstanceType", "m5.large"},
                                          {"MinCount", "2"},
                                          {"MaxCount", "2"},
                                          {"SubnetId", kTinySubnet},
                                          {"SecurityGroupId.1", group->firstText("groupId")}});
  ASSERT_TRUE(run) << run.error().message();
  EXPECT_EQ(run->status, 200) << run->body;
  EXPECT_EQ(run->itemTexts("instancesSet").size(), 2u) << run->body;
}

}  // namespace
}  // namespace nodewright::emulators::testing
