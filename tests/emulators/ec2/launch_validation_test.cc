// Launches EC2 rejects, each with its code, and launches it accepts. The network-interface
// cases follow seed 001 (/work/shared/seeds/001_*.txt): EFA, card indexes, interface counts,
// public IPs and prefixes.
#include "emulators/ec2/launch_validation.h"

#include <gtest/gtest.h>

#include <functional>
#include <ostream>
#include <string>

namespace nodewright::emulators::ec2 {
namespace {

using Edit = std::function<void(LaunchRequest&)>;

SubnetRef subnetA() {
  return {"subnet-a", "vpc-1", 250, "us-east-1a", true};
}
SubnetRef subnetB() {
  return {"subnet-b", "vpc-1", 250, "us-east-1a", true};
}

// A launch EC2 accepts: an m5.large with the implied primary interface.
LaunchRequest baseLaunch() {
  LaunchRequest r;
  r.instanceType = "m5.large";
  r.image = {"ami-x86", Architecture::X86_64, true};
  r.subnet = subnetA();
  r.securityGroups = {{"sg-1", "vpc-1", true}};
  return r;
}

NetworkInterfaceSpec nic(int card, int device, std::string type = "interface") {
  NetworkInterfaceSpec spec;
  spec.networkCardIndex = card;
  spec.deviceIndex = device;
  spec.interfaceType = std::move(type);
  return spec;
}

// Edits that turn the base launch into the named instance type with these interfaces.
Edit withInterfaces(std::string type, std::vector<NetworkInterfaceSpec> specs) {
  return [type = std::move(type), specs = std::move(specs)](LaunchRequest& r) {
    r.instanceType = type;
    r.networkInterfaces = specs;
  };
}

// p5.48xlarge as the EC2 guide lays it out: ENA primary, then an EFA-only interface on every
// card (card 0 device 1, cards 1..31 device 0).
std::vector<NetworkInterfaceSpec> p5Layout() {
  std::vector<NetworkInterfaceSpec> specs{nic(0, 0), nic(0, 1, "efa-only")};
  for (int card = 1; card < 32; ++card) {
    specs.push_back(nic(card, 0, "efa-only"));
  }
  return specs;
}

class LaunchValidationTest : public ::testing::Test {
 protected:
  std::optional<LaunchError> validate(const LaunchRequest& r) {
    return validateLaunch(r, catalog_);
  }
  Catalog catalog_ = builtinCatalog();
};

TEST_F(LaunchValidationTest, AcceptsTheBaseLaunch) {
  auto e = validate(baseLaunch());
  EXPECT_FALSE(e) << e->code << ": " << e->message;
}

struct RejectCase {
  std::string name;
  Edit edit;
  std::string code;
  std::string message;  // a substring of EC2's message
};

void PrintTo(const RejectCase& c, std::ostream* os) {
  *os << c.name;
}

class LaunchRejectTest : public LaunchValidationTest,
                         public ::testing::WithParamInterface<RejectCase> {};

TEST_P(LaunchRejectTest, RejectsWithEc2sCode) {
  LaunchRequest r = baseLaunch();
  GetParam().edit(r);
  auto e = validate(r);
  ASSERT_TRUE(e) << "accepted";
  EXPECT_EQ(e->code, GetParam().code) << e->message;
  EXPECT_NE(e->message.find(GetParam().message), std::string::npos) << e->message;
}

INSTANTIATE_TEST_SUITE_P(
    Launches, LaunchRejectTest,
    ::testing::Values(
        RejectCase{"ZeroCount", [](LaunchRequest& r) { r.count = 0; }, "InvalidParameterValue",
                   "MinCount"},
        RejectCase{"UnknownInstanceType", [](LaunchRequest& r) { r.instanceType = "m5.huge"; },
                   "InvalidParameterValue", "Invalid value 'm5.huge' for InstanceType."},
        RejectCase{"UnknownImage",
                   [](LaunchRequest& r) { r.image = {"ami-gone", Architecture::X86_64, false}; },
                   "InvalidAMIID.NotFound", "The image id '[ami-gone]' does not exist"},
        RejectCase{"ArmImageOnIntelType",
                   [](LaunchRequest& r) { r.image.architecture = Architecture::Arm64; },
                   "InvalidParameterValue",
                   "The architecture 'x86_64' of the specified instance type does not match the "
                   "architecture 'arm64' of the specified AMI."},
        RejectCase{"IntelImageOnGravitonType",
                   [](LaunchRequest& r) { r.instanceType = "m7g.large"; }, "InvalidParameterValue",
                   "The architecture 'arm64' of the specified instance type does not match the "
                   "architecture 'x86_64' of the specified AMI."},
        RejectCase{"UnknownSubnet", [](LaunchRequest& r) { r.subnet = {"subnet-gone", "", 0, "", false}; },
                   "InvalidSubnetID.NotFound", "The subnet ID 'subnet-gone' does not exist"},
        RejectCase{"UnknownInterfaceSubnet",
                   [](LaunchRequest& r) {
                     r.networkInterfaces = {nic(0, 0), nic(0, 1)};
                     r.networkInterfaces[1].subnet = SubnetRef{"subnet-gone", "", 0, "", false};
                   },
                   "InvalidSubnetID.NotFound", "'subnet-gone'"},
        RejectCase{"UnknownSecurityGroup",
                   [](LaunchRequest& r) { r.securityGroups.push_back({"sg-gone", "", false}); },
                   "InvalidGroup.NotFound",
                   "The security group 'sg-gone' does not exist in VPC 'vpc-1'"},
        RejectCase{"SecurityGroupFromOtherVpc",
                   [](LaunchRequest& r) { r.securityGroups = {{"sg-other", "vpc-2", true}}; },
                   "InvalidParameter",
                   "Security group sg-other and subnet subnet-a belong to different networks."},
        RejectCase{"InterfaceGroupFromOtherVpc",
                   [](LaunchRequest& r) {
                     r.networkInterfaces = {nic(0, 0)};
                     r.networkInterfaces[0].groups = {{"sg-other", "vpc-2", true}};
                   },
                   "InvalidParameter", "belong to different networks"},
        RejectCase{"SubnetWithoutFreeAddresses", [](LaunchRequest& r) { r.subnet.availableIps = 0; },
                   "InsufficientFreeAddressesInSubnet",
                   "There are not enough free addresses in subnet 'subnet-a' to satisfy the "
                   "requested number of instances."},
        RejectCase{"MoreInstancesThanAddresses",
                   [](LaunchRequest& r) {
                     r.subnet.availableIps = 3;
                     r.count = 4;
                   },
                   "InsufficientFreeAddressesInSubnet", "'subnet-a'"},
        // Seed 001: ipv4PrefixCount. Two /28 prefixes and the primary address need 33.
        RejectCase{"PrefixesExhaustSubnet",
                   [](LaunchRequest& r) {
                     r.subnet.availableIps = 32;
                     r.networkInterfaces = {nic(0, 0)};
                     r.networkInterfaces[0].ipv4PrefixCount = 2;
                   },
                   "InsufficientFreeAddressesInSubnet", "'subnet-a'"},
        RejectCase{"SecondInterfacePrefixesExhaustItsSubnet",
                   [](LaunchRequest& r) {
                     r.networkInterfaces = {nic(0, 0), nic(0, 1)};
                     r.networkInterfaces[1].subnet = subnetB();
                     r.networkInterfaces[1].subnet->availableIps = 40;
                     r.networkInterfaces[1].ipv4PrefixCount = 1;
                     r.count = 3;  // 3 x 17 = 51 > 40
                   },
                   "InsufficientFreeAddressesInSubnet", "'subnet-b'"},
        // Seed 001: EFA on a type without EFA support.
        RejectCase{"EfaOnM5Large", withInterfaces("m5.large", {nic(0, 0, "efa")}),
                   "InvalidParameterCombination",
                   "m5.large instances do not support Elastic Fabric Adapters."},
        RejectCase{"EfaOnlyOnM5Large",
                   withInterfaces("m5.large", {nic(0, 0), nic(0, 1, "efa-only")}),
                   "InvalidParameterCombination", "do not support Elastic Fabric Adapters"},
        // Seed 001: network card index 1 on a single-card type.
        RejectCase{"CardIndexOneOnSingleCardType",
                   withInterfaces("m5.large", {nic(0, 0), nic(1, 0)}), "InvalidParameterValue",
                   "NetworkCard index 1 exceeds the limit for m5.large"},
        RejectCase{"CardIndexFourOnP4d",
                   withInterfaces("p4d.24xlarge", {nic(0, 0, "efa"), nic(4, 0, "efa")}),
                   "InvalidParameterValue", "NetworkCard index 4 exceeds the limit for p4d"},
        // Seed 001: 4 interfaces on m5.large, whose only card allows 3.
        RejectCase{"FourInterfacesOnM5Large",
                   withInterfaces("m5.large", {nic(0, 0), nic(0, 1), nic(0, 2), nic(0, 3)}),
                   "AttachmentLimitExceeded", "Interface count 4 exceeds the limit for m5.large"},
        RejectCase{"ThreeInterfacesOnOneP5Card",
                   withInterfaces("p5.48xlarge", {nic(0, 0), nic(3, 0, "efa-only"),
                                                  nic(3, 1), nic(3, 2)}),
                   "AttachmentLimitExceeded", "on network card index 3"},
        RejectCase{"DeviceIndexBeyondTheCard",
                   withInterfaces("m5.large", {nic(0, 0), nic(0, 5)}), "InvalidParameterValue",
                   "The specified number '5' for the device index exceeds the maximum number of "
                   "network interfaces supported by the network card at network card index 0."},
        // Seed 001: efa-only cannot be the primary interface.
        RejectCase{"EfaOnlyAsPrimary", withInterfaces("p5.48xlarge", {nic(0, 0, "efa-only")}),
                   "InvalidParameterValue", "EFA-only network interface as the primary"},
        // Seed 001: more EFAs than p4d.24xlarge's four.
        RejectCase{"FiveEfasOnP4d",
                   withInterfaces("p4d.24xlarge",
                                  {nic(0, 0, "efa"), nic(0, 1, "efa"), nic(1, 0, "efa"),
                                   nic(2, 0, "efa"), nic(3, 0, "efa")}),
                   "InvalidParameterCombination",
                   "The number of Elastic Fabric Adapters (5) exceeds the maximum supported by "
                   "p4d.24xlarge (4)."},
        // Seed 001: associatePublicIPAddress with two interfaces, even when false.
        RejectCase{"PublicIpWithTwoInterfaces",
                   [](LaunchRequest& r) {
                     r.networkInterfaces = {nic(0, 0), nic(0, 1)};
                     r.networkInterfaces[0].associatePublicIpAddress = true;
                   },
                   "InvalidParameterCombination",
                   "The associatePublicIPAddress parameter cannot be specified when launching "
                   "with multiple network interfaces"},
        RejectCase{"PublicIpFalseWithTwoInterfaces",
                   [](LaunchRequest& r) {
                     r.networkInterfaces = {nic(0, 0), nic(0, 1)};
                     r.networkInterfaces[1].associatePublicIpAddress = false;
                   },
                   "InvalidParameterCombination", "associatePublicIPAddress"},
        // Seed 001: deviceIndex is per card, so a repeat on the same card is an error.
        RejectCase{"DuplicateDeviceIndex",
                   withInterfaces("m5.large", {nic(0, 0), nic(0, 1), nic(0, 1)}),
                   "InvalidParameterValue", "Duplicate device index 1 on network card index 0"},
        // Seed 001: the primary interface must be card 0, device 0.
        RejectCase{"PrimaryOnCardOne", withInterfaces("p4d.24xlarge", {nic(1, 0, "efa")}),
                   "InvalidParameterValue",
                   "you must include a device at index 0 and network card at index 0"},
        RejectCase{"NoDeviceIndexZero", withInterfaces("m5.large", {nic(0, 1)}),
                   "InvalidParameterValue", "you must include a device at index 0"},
        RejectCase{"UnknownInterfaceType", withInterfaces("m5.large", {nic(0, 0, "ena")}),
                   "InvalidParameterValue", "Invalid value 'ena' for InterfaceType."}),
    [](const auto& info) { return info.param.name; });

struct AcceptCase {
  std::string name;
  Edit edit;
};

void PrintTo(const AcceptCase& c, std::ostream* os) {
  *os << c.name;
}

class LaunchAcceptTest : public LaunchValidationTest,
                         public ::testing::WithParamInterface<AcceptCase> {};

TEST_P(LaunchAcceptTest, Accepts) {
  LaunchRequest r = baseLaunch();
  GetParam().edit(r);
  auto e = validate(r);
  EXPECT_FALSE(e) << e->code << ": " << e->message;
}

INSTANTIATE_TEST_SUITE_P(Launches, LaunchAcceptTest,
                         ::
                             testing::Values(AcceptCase{"P4dWithFourEfasOnCardsZeroToThree",
                                                        withInterfaces(
                                                            "p4d.24xlarge",
                                                            {nic(0, 0, "efa"), nic(1, 0, "efa"),
                                                             nic(2, 0, "efa"), nic(3, 0, "efa")})},
                                             AcceptCase{"P5WithThirtyTwoEfaOnly",
                                                        withInterfaces("p5.48xlarge", p5Layout())},
                                             AcceptCase{
                                                 "M5LargeWithThreeInterfaces",
                                                 withInterfaces("m5.large",
                                                                {nic(0, 0), nic(0, 1), nic(0, 2)})},
                                             AcceptCase{"CarrierIpOnASingleInterface",
                                                        [](LaunchRequest& r) {
                                                          r.networkInterfaces = {nic(0, 0)};
                                                          r.networkInterfaces[0]
                                                              .associateCarrierIpAddress = true;
                                                        }},
                                             AcceptCase{
                                                 "PublicIpOnASingleInterface",
                                                 [](LaunchRequest& r) {
                                                   r.networkInterfaces = {nic(0, 0)};
                                                   r.networkInterfaces[0].associatePublicIpAddress =
                                                       true;
                                                 }},
                                             AcceptCase{"GravitonWithArmImage",
                                                        [](LaunchRequest& r) {
                                                          r.instanceType = "c7g.large";
                                                          r.image.architecture =
                                                              Architecture::Arm64;
                                                        }},
                                             AcceptCase{"PrefixesThatJustFit",
                                                        [](LaunchRequest& r) {
                                                          r.subnet.availableIps =
                                                              34;  // 2 instances x (1 + 16)
                                                          r.count = 2;
                                                          r.networkInterfaces = {nic(0, 0)};
                                                          r.networkInterfaces[0].ipv4PrefixCount =
                                                              1;
                                                          r.networkInterfaces[0].ipv6PrefixCount =
                                                              4;  // IPv6 is not counted
                                                        }},
                                             AcceptCase{"EfaOnlyTakesNoAddress",
                                                        [](LaunchRequest& r) {
                                                          withInterfaces("p5.48xlarge",
                                                                         p5Layout())(r);
                                                          r.image.architecture =
                                                              Architecture::X86_64;
                                                          r.subnet.availableIps = 1;
                                                        }},
                                             AcceptCase{
                                                 "SecondInterfaceInAnotherSubnetOfTheVpc",
                                                 [](LaunchRequest& r) {
                                                   r.networkInterfaces = {nic(0, 0), nic(0, 1)};
                                                   r.networkInterfaces[1].subnet = subnetB();
                                                   r.networkInterfaces[1].groups = {
                                                       {"sg-2", "vpc-1", true}};
                                                 }}),
                         [](const auto& info) { return info.param.name; });

TEST(Ipv4AddressesNeededTest, CountsPrimarySecondariesAndPrefixes) {
  NetworkInterfaceSpec spec;
  EXPECT_EQ(ipv4AddressesNeeded(spec), 1);
  spec.ipv4AddressCount = 2;
  spec.ipv4PrefixCount = 3;
  EXPECT_EQ(ipv4AddressesNeeded(spec), 1 + 2 + 48);
  spec.interfaceType = "efa-only";
  EXPECT_EQ(ipv4AddressesNeeded(spec), 0);
}

}  // namespace
}  // namespace nodewright::emulators::ec2
