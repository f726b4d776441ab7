// The seed 001 filter: which types can carry a node class's network interfaces, and the reason
// users see for the ones that cannot.
#include "cloud/aws/networkinterface/compatibility.h"

#include <gtest/gtest.h>

#include <functional>

namespace nodewright::cloud::aws {
namespace {

using api::karpenter::NetworkInterface;

// The network facts of a few real types (DescribeInstanceTypes, us-east-1).
sdk::InstanceTypeInfo m5Large() {
  sdk::InstanceTypeInfo t;
  t.instanceType = "m5.large";
  t.maximumNetworkInterfaces = 3;
  t.ipv4AddressesPerInterface = 10;
  t.networkCards = {{.index = 0, .maximumNetworkInterfaces = 3}};
  return t;
}

sdk::InstanceTypeInfo m5Xlarge() {
  sdk::InstanceTypeInfo t = m5Large();
  t.instanceType = "m5.xlarge";
  t.maximumNetworkInterfaces = 4;
  t.networkCards = {{.index = 0, .maximumNetworkInterfaces = 4}};
  return t;
}

// Four cards of 15 interfaces, 4 EFA interfaces.
sdk::InstanceTypeInfo p4d() {
  sdk::InstanceTypeInfo t;
  t.instanceType = "p4d.24xlarge";
  t.maximumNetworkInterfaces = 60;
  t.ipv4AddressesPerInterface = 50;
  for (int i = 0; i < 4; ++i) {
    t.networkCards.push_back({.index = i, .maximumNetworkInterfaces = 15});
  }
  t.efaSupported = true;
  t.maximumEfaInterfaces = 4;
  return t;
}

// 32 cards of 2 interfaces, 32 EFA interfaces.
sdk::InstanceTypeInfo p5() {
  sdk::InstanceTypeInfo t;
  t.instanceType = "p5.48xlarge";
  t.maximumNetworkInterfaces = 64;
  t.ipv4AddressesPerInterface = 50;
  for (int i = 0; i < 32; ++i) {
    t.networkCards.push_back({.index = i, .maximumNetworkInterfaces = 2});
  }
  t.efaSupported = true;
  t.maximumEfaInterfaces = 32;
  return t;
}

NetworkInterface iface(std::optional<int32_t> card = std::nullopt, std::string type = "") {
  NetworkInterface n;
  n.networkCardIndex = card;
  n.interfaceType = std::move(type);
  return n;
}

NetworkInterface at(int32_t card, int32_t device) {
  NetworkInterface n = iface(card);
  n.deviceIndex = device;
  return n;
}

std::vector<NetworkInterface> repeat(int n, const NetworkInterface& i) {
  return std::vector<NetworkInterface>(static_cast<size_t>(n), i);
}

struct Case {
  std::string name;
  std::function<sdk::InstanceTypeInfo()> type;
  std::vector<NetworkInterface> interfaces;
  int efaRequested = 0;
  std::optional<std::string> reason;  // nullopt: compatible
};

class CompatibilityTest : public ::testing::TestWithParam<Case> {};

TEST_P(CompatibilityTest, ExplainsWhyATypeCannotCarryTheInterfaces) {
  const Case& c = GetParam();
  EXPECT_EQ(networkInterfaceIncompatibility(c.type(), c.interfaces, c.efaRequested), c.reason);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, CompatibilityTest,
    ::testing::Values(
        // Seed 001's scenario: 4 interfaces fit m5.xlarge, not m5.large.
        Case{"FourInterfacesOnM5Large", m5Large, repeat(4, iface()), 0,
             "4 network interfaces on network card 0, m5.large allows 3"},
        Case{"FourInterfacesOnM5Xlarge", m5Xlarge, repeat(4, iface()), 0, std::nullopt},
        Case{"ThreeInterfacesOnM5Large", m5Large, repeat(3, iface(0)), 0, std::nullopt},
        Case{"NoInterfaces", m5Large, {}, 0, std::nullopt},
        // An interface without networkCardIndex is on card 0.
        Case{"UnsetCardCountsAsCardZero",
             m5Large,
             {iface(0), iface(0), iface(), iface()},
             0,
             "4 network interfaces on network card 0, m5.large allows 3"},
        // Two cards on single-card types.
        Case{"SecondCardOnSingleCardType",
             m5Xlarge,
             {iface(0), iface(1)},
             0,
             "network card 1 requested, m5.xlarge has 1 network card"},
        Case{"SecondCardOnMultiCardType", p4d, {iface(0), iface(1)}, 0, std::nullopt},
        Case{"CardPastTheLastOne",
             p4d,
             {iface(0), iface(4)},
             0,
             "network card 4 requested, p4d.24xlarge has 4 network cards"},
        Case{"ThirdInterfaceOnOneP5Card",
             p5,
             {iface(3), iface(3), iface(3)},
             0,
             "3 network interfaces on network card 3, p5.48xlarge allows 2"},
        // EFA on m5, which has no EFA.
        Case{"EfaOnM5",
             m5Xlarge,
             {iface(0, "efa")},
             0,
             "1 EFA interface requested, m5.xlarge does not support EFA"},
        Case{"EfaOnlyOnM5",
             m5Xlarge,
             {iface(0), iface(0, "efa-only")},
             0,
             "1 EFA interface requested, m5.xlarge does not support EFA"},
        Case{"PlainInterfaceTypeIsNotEfa", m5Xlarge, {iface(0, "interface")}, 0, std::nullopt},
        // EFA count over the maximum on a p4d-like type.
        Case{"FourEfaOnP4d",
             p4d,
             {iface(0, "efa"), iface(1, "efa"), iface(2, "efa"), iface(3, "efa-only")},
             0,
             std::nullopt},
        Case{"FiveEfaOnP4d",
             p4d,
             {iface(0, "efa"), iface(1, "efa"), iface(2, "efa"), iface(3, "efa"),
              iface(3, "efa-only")},
             0,
             "5 EFA interfaces requested, p4d.24xlarge allows 4"},
        // Pods asking for vpc.amazonaws.com/efa.
        Case{"PodEfaOnM5",
             m5Large,
             {},
             1,
             "pods request 1 vpc.amazonaws.com/efa, m5.large does not support EFA"},
        Case{"PodEfaOverP4dMaximum",
             p4d,
             {},
             8,
             "pods request 8 vpc.amazonaws.com/efa, p4d.24xlarge allows 4"},
        Case{"PodEfaOnP5", p5, {}, 32, std::nullopt},
        // EC2 numbers a card's attachments 0..maximum-1: a device index past that is refused
        // even when the card has room for the count.
        Case{"DeviceIndexPastTheCardOnM5Large",
             m5Large,
             {at(0, 0), at(0, 3)},
             0,
             "device index 3 on network card 0, m5.large allows device indexes 0-2"},
        Case{"DeviceIndexThreeOnM5Xlarge", m5Xlarge, {at(0, 0), at(0, 3)}, 0, std::nullopt},
        Case{"DeviceIndexPastAP5Card",
             p5,
             {at(0, 0), at(3, 2)},
             0,
             "device index 2 on network card 3, p5.48xlarge allows device indexes 0-1"},
        Case{"LastDeviceIndexOfAP5Card", p5, {at(0, 0), at(3, 1)}, 0, std::nullopt},
        // The card rules come first: the most concrete reason wins.
        Case{"CardRuleBeforeEfaRule",
             m5Large,
             {iface(1, "efa")},
             0,
             "network card 1 requested, m5.large has 1 network card"}),
    [](const auto& info) { return info.param.name; });

TEST(CompatibilityTest, TypeWithoutCardListHasOneCardOfAllItsInterfaces) {
  sdk::InstanceTypeInfo t = m5Large();
  t.networkCards.clear();
  EXPECT_EQ(networkInterfaceIncompatibility(t, repeat(3, iface())), std::nullopt);
  EXPECT_EQ(networkInterfaceIncompatibility(t, repeat(4, iface())),
            "4 network interfaces on network card 0, m5.large allows 3");
  EXPECT_EQ(networkInterfaceIncompatibility(t, {iface(1)}),
            "network card 1 requested, m5.large has 1 network card");
}

TEST(CompatibilityTest, TotalOverTheTypeMaximumIsRejectedEvenWhenCardsAllowIt) {
  sdk::InstanceTypeInfo t = p4d();
  t.maximumNetworkInterfaces = 4;  // tighter than the cards' sum
  EXPECT_EQ(networkInterfaceIncompatibility(t, {iface(0), iface(1), iface(2), iface(3), iface(0)}),
            "5 network interfaces, p4d.24xlarge allows 4 in all");
}

TEST(EfaInterfacesForTest, IsTheTypeMaximumOrZeroWithoutEfa) {
  EXPECT_EQ(efaInterfacesFor(m5Large()), 0);
  EXPECT_EQ(efaInterfacesFor(p4d()), 4);
  EXPECT_EQ(efaInterfacesFor(p5()), 32);
  sdk::InstanceTypeInfo unsupported = p4d();
  unsupported.efaSupported = false;
  EXPECT_EQ(efaInterfacesFor(unsupported), 0);
}

TEST(EfaInterfacesForTest, EveryCardTheLaunchUsesExistsOnTheType) {
  // One EFA interface per card index 0..n-1: each must be a card of the type, or EC2 would
  // reject the launch this function sizes.
  for (const auto& t : {p4d(), p5()}) {
    std::vector<NetworkInterface> launch;
    for (int i = 0; i < efaInterfacesFor(t); ++i) {
      launch.push_back(iface(i, "efa"));
    }
    EXPECT_EQ(networkInterfaceIncompatibility(t, launch), std::nullopt) << t.instanceType;
  }
}

}  // namespace
}  // namespace nodewright::cloud::aws
