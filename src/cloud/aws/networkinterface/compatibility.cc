#include "cloud/aws/networkinterface/compatibility.h"

#include <map>

#include <fmt/format.h>

#include "cloud/aws/networkinterface/slot.h"

namespace nodewright::cloud::aws {
namespace {

// "1 network interface", "4 network interfaces".
std::string count(int n, std::string_view singular) {
  return fmt::format("{} {}{}", n, singular, n == 1 ? "" : "s");
}

// The type's cards. Some types in EC2's answers (and in hand-written test data) list no
// NetworkCards; such a type has one card carrying all of maximumNetworkInterfaces.
std::vector<sdk::NetworkCardInfo> cardsOf(const sdk::InstanceTypeInfo& type) {
  if (!type.networkCards.empty()) {
    return type.networkCards;
  }
  return {
      sdk::NetworkCardInfo{.index = 0, .maximumNetworkInterfaces = type.maximumNetworkInterfaces}};
}

const sdk::NetworkCardInfo* findCard(const std::vector<sdk::NetworkCardInfo>& cards, int index) {
  for (const sdk::NetworkCardInfo& card : cards) {
    if (card.index == index) {
      return &card;
    }
  }
  return nullptr;
}

std::optional<std::string> checkCards(const sdk::InstanceTypeInfo& type,
                                      const std::vector<api::karpenter::NetworkInterface>& ifaces) {
  const std::vector<sdk::NetworkCardInfo> cards = cardsOf(type);
  std::map<int, int> perCard;
  for (const api::karpenter::NetworkInterface& iface : ifaces) {
    const int index = slotOf(iface).card;
    if (findCard(cards, index) == nullptr) {
      return fmt::format("network card {} requested, {} has {}", index, type.instanceType,
                         count(static_cast<int>(cards.size()), "network card"));
    }
    ++perCard[index];
  }
  for (const auto& [index, n] : perCard) {
    const int allowed = findCard(cards, index)->maximumNetworkInterfaces;
    if (n > allowed) {
      return fmt::format("{} on network card {}, {} allows {}", count(n, "network interface"),
                         index, type.instanceType, allowed);
    }
  }
  // EC2 numbers a card's attachments 0..maximumNetworkInterfaces-1 and refuses a launch whose
  // DeviceIndex is past that (InvalidParameterValue, "exceeds the maximum number of network
  // interfaces supported by the network card"), however few interfaces the launch has.
  for (const api::karpenter::NetworkInterface& iface : ifaces) {
    const InterfaceSlot slot = slotOf(iface);
    const int allowed = findCard(cards, slot.card)->maximumNetworkInterfaces;
    if (slot.device >= allowed) {
      return fmt::format("device index {} on network card {}, {} allows device indexes {}",
                         slot.device, slot.card, type.instanceType,
                         allowed <= 1 ? std::string("0") : fmt::format("0-{}", allowed - 1));
    }
  }
  const int total = static_cast<int>(ifaces.size());
  if (type.maximumNetworkInterfaces > 0 && total > type.maximumNetworkInterfaces) {
    return fmt::format("{}, {} allows {} in all", count(total, "network interface"),
                       type.instanceType, type.maximumNetworkInterfaces);
  }
  return std::nullopt;
}

std::optional<std::string> checkEfa(const sdk::InstanceTypeInfo& type,
                                    const std::vector<api::karpenter::NetworkInterface>& ifaces) {
  int efa = 0;
  for (const api::karpenter::NetworkInterface& iface : ifaces) {
    efa += isEfaInterfaceType(iface.interfaceType) ? 1 : 0;
  }
  if (efa == 0) {
    return std::nullopt;
  }
  if (!type.efaSupported) {
    return fmt::format("{} requested, {} does not support EFA", count(efa, "EFA interface"),
                       type.instanceType);
  }
  if (efa > type.maximumEfaInterfaces) {
    return fmt::format("{} requested, {} allows {}", count(efa, "EFA interface"), type.instanceType,
                       type.maximumEfaInterfaces);
  }
  return std::nullopt;
}

std::optional<std::string> checkPodEfa(const sdk::InstanceTypeInfo& type, int efaRequested) {
  if (efaRequested <= 0) {
    return std::nullopt;
  }
  if (!type.efaSupported) {
    return fmt::format("pods request {} vpc.amazonaws.com/efa, {} does not support EFA",
                       efaRequested, type.instanceType);
  }
  if (efaRequested > type.maximumEfaInterfaces) {
    return fmt::format("pods request {} vpc.amazonaws.com/efa, {} allows {}", efaRequested,
                       type.instanceType, type.maximumEfaInterfaces);
  }
  return std::nullopt;
}

}  // namespace

bool isEfaInterfaceType(const std::string& interfaceType) {
  return interfaceType == "efa" || interfaceType == "efa-only";
}

std::optional<std::string> networkInterfaceIncompatibility(
    const sdk::InstanceTypeInfo& type,
    const std::vector<api::karpenter::NetworkInterface>& interfaces, int efaRequested) {
  if (auto reason = checkCards(type, interfaces)) {
    return reason;
  }
  if (auto reason = checkEfa(type, interfaces)) {
    return reason;
  }
  return checkPodEfa(type, efaRequested);
}

int efaInterfacesFor(const sdk::InstanceTypeInfo& type) {
  return type.efaSupported ? type.maximumEfaInterfaces : 0;
}

}  // namespace nodewright::cloud::aws
