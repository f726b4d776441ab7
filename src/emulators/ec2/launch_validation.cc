#include "emulators/ec2/launch_validation.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <utility>

namespace nodewright::emulators::ec2 {
namespace {

// Every code and message below is either CONFIRMED (quoted from a real EC2 response; the
// source is named) or a GUESS (the closest documented code, with wording of our own or from
// a neighbouring API). Guesses are kept to the patterns EC2 uses elsewhere.

LaunchError error(std::string code, std::string message) {
  return {std::move(code), std::move(message)};
}

// GUESS: code and wording; EC2 checks MinCount/MaxCount but no response was found.
LaunchError invalidCount(int count) {
  return error("InvalidParameterValue",
               fmt::format("Invalid value '{}' for MinCount. It must be at least 1.", count));
}

// CONFIRMED: RunInstances with an unknown type, quoted in getmoto/moto#1695.
LaunchError unknownInstanceType(const std::string& type) {
  return error("InvalidParameterValue", fmt::format("Invalid value '{}' for InstanceType.", type));
}

// CONFIRMED: e.g. ansible amazon.aws in validatedpatterns/agof#57, brikis98/...#41.
LaunchError imageNotFound(const std::string& id) {
  return error("InvalidAMIID.NotFound", fmt::format("The image id '[{}]' does not exist", id));
}

// CONFIRMED: skypilot-org/skypilot#6315, aws/eks-anywhere-build-tooling#2158.
LaunchError architectureMismatch(Architecture type, Architecture image) {
  return error(
      "InvalidParameterValue",
      fmt::format("The architecture '{}' of the specified instance type does not match the "
                  "architecture '{}' of the specified AMI. Specify an instance type and an AMI "
                  "that have matching architectures, and try again. You can use "
                  "'describe-instance-types' or 'describe-images' to discover the architecture "
                  "of the instance type or AMI.",
                  architectureName(type), architectureName(image)));
}

// GUESS: wording follows the InstanceType message above.
LaunchError unknownInterfaceType(const std::string& type) {
  return error("InvalidParameterValue", fmt::format("Invalid value '{}' for InterfaceType.", type));
}

// CONFIRMED: zalando-incubator/kubernetes-on-aws#8733, erlcloud/erlcloud#284. EC2 sends it
// even for AssociatePublicIpAddress=false.
LaunchError publicIpWithSeveralInterfaces() {
  return error("InvalidParameterCombination",
               "The associatePublicIPAddress parameter cannot be specified when launching with "
               "multiple network interfaces");
}

// GUESS: wording ours; the AttachNetworkInterface counterpart (cilium/cilium#42512) is
// "Instance '<id>' already has an interface attached at device index '1'.".
LaunchError duplicateDeviceIndex(int card, int device) {
  return error("InvalidParameterValue",
               fmt::format("Duplicate device index {} on network card index {}. Each network "
                           "interface on a network card requires a unique device index.",
                           device, card));
}

// PARTLY CONFIRMED: the prefix "NetworkCard index 1 exceeds the limit for" is what
// hashicorp/terraform-provider-aws asserts (TestAccVPCNetworkInterfaceAttachment_
// networkCardIndex, AttachNetworkInterface); the code and the rest are a guess.
LaunchError cardIndexOutOfRange(int card, const std::string& type) {
  return error("InvalidParameterValue",
               fmt::format("NetworkCard index {} exceeds the limit for {}", card, type));
}

// GUESS: code only. The wording is EC2's dry-run answer relayed by aws/aws-parallelcluster#5984.
LaunchError missingPrimary() {
  return error("InvalidParameterValue",
               "When specifying network interfaces, you must include a device at index 0 and "
               "network card at index 0.");
}

// GUESS: code and wording; the rule is documented ("You can't use an EFA-only network
// interface as the primary network interface", EC2 User Guide, efa-acc-inst-types).
LaunchError efaOnlyPrimary() {
  return error("InvalidParameterValue",
               "You can't use an EFA-only network interface as the primary network interface "
               "(network card index 0, device index 0).");
}

// CONFIRMED for AttachNetworkInterface (chef/knife-ec2#375: "AttachmentLimitExceeded =>
// Interface count 3 exceeds the limit for m1.small"); assumed the same at launch.
LaunchError tooManyInterfaces(int count, const InstanceTypeInfo& type, int card) {
  std::string where =
      type.networkCards.size() > 1 ? fmt::format(" on network card index {}", card) : "";
  return error(
      "AttachmentLimitExceeded",
      fmt::format("Interface count {} exceeds the limit for {}{}", count, type.name, where));
}

// GUESS: code only. The wording is EC2's launch-template check relayed by EKS in
// eksctl-io/eksctl#7520.
LaunchError deviceIndexOutOfRange(int device, int card, int max) {
  return error("InvalidParameterValue",
               fmt::format("The specified number '{}' for the device index exceeds the maximum "
                           "number of network interfaces supported by the network card at network "
                           "card index {}. The maximum devices for this network card is {}. "
                           "Specify a number from 0 to {}, and try again.",
                           device, card, max, max - 1));
}

// GUESS: code follows EC2's other type/feature conflicts (ENA required, HVM required:
// InvalidParameterCombination); wording is the console's (devopsacademyau/academy#277).
LaunchError efaUnsupported(const std::string& type) {
  return error("InvalidParameterCombination",
               fmt::format("{} instances do not support Elastic Fabric Adapters.", type));
}

// GUESS: code as above, wording ours.
LaunchError tooManyEfas(int count, const InstanceTypeInfo& type) {
  return error("InvalidParameterCombination",
               fmt::format("The number of Elastic Fabric Adapters ({}) exceeds the maximum "
                           "supported by {} ({}).",
                           count, type.name, type.maximumEfaInterfaces));
}

// CONFIRMED: boto/boto3#2398, openshift/openshift-ansible#1053.
LaunchError subnetNotFound(const std::string& id) {
  return error("InvalidSubnetID.NotFound", fmt::format("The subnet ID '{}' does not exist", id));
}

// CONFIRMED: a maintainer quoting AWS in getmoto/moto#5484 (older responses end after
// "does not exist", aws/aws-sdk-java#202).
LaunchError groupNotFound(const std::string& id, const std::string& vpcId) {
  return error("InvalidGroup.NotFound",
               fmt::format("The security group '{}' does not exist in VPC '{}'", id, vpcId));
}

// CONFIRMED: QT-DevOps/DevOpsIssues#256, ansible-collections/amazon.aws#824.
LaunchError groupInOtherVpc(const std::string& group, const std::string& subnet) {
  return error(
      "InvalidParameter",
      fmt::format("Security group {} and subnet {} belong to different networks.", group, subnet));
}

// CONFIRMED: osbuild/osbuild-composer#1575 (RequestSpotInstances), PrairieLearn#3271.
LaunchError insufficientAddresses(const std::string& subnet) {
  return error("InsufficientFreeAddressesInSubnet",
               fmt::format("There are not enough free addresses in subnet '{}' to satisfy the "
                           "requested number of instances.",
                           subnet));
}

bool isEfa(const NetworkInterfaceSpec& spec) {
  return spec.interfaceType == "efa" || spec.interfaceType == "efa-only";
}

// The interfaces the instance gets: the request's, or the implied primary one.
std::vector<NetworkInterfaceSpec> effectiveInterfaces(const LaunchRequest& request) {
  if (!request.networkInterfaces.empty()) {
    return request.networkInterfaces;
  }
  return {NetworkInterfaceSpec{}};
}

std::optional<LaunchError> checkInterfaceLayout(const std::vector<NetworkInterfaceSpec>& specs,
                                                const InstanceTypeInfo& type) {
  for (const NetworkInterfaceSpec& spec : specs) {
    if (spec.interfaceType != "interface" && !isEfa(spec)) {
      return unknownInterfaceType(spec.interfaceType);
    }
  }
  if (specs.size() > 1) {
    for (const NetworkInterfaceSpec& spec : specs) {
      if (spec.associatePublicIpAddress) {
        return publicIpWithSeveralInterfaces();
      }
    }
  }
  std::set<std::pair<int, int>> slots;  // (card, device)
  for (const NetworkInterfaceSpec& spec : specs) {
    if (!slots.insert({spec.networkCardIndex, spec.deviceIndex}).second) {
      return duplicateDeviceIndex(spec.networkCardIndex, spec.deviceIndex);
    }
  }
  // Types the data has no card facts for are not limited here rather than rejected.
  if (!type.networkCards.empty()) {
    for (const NetworkInterfaceSpec& spec : specs) {
      if (type.card(spec.networkCardIndex) == nullptr) {
        return cardIndexOutOfRange(spec.networkCardIndex, type.name);
      }
    }
  }
  const NetworkInterfaceSpec* primary = nullptr;
  for (const NetworkInterfaceSpec& spec : specs) {
    if (spec.networkCardIndex == 0 && spec.deviceIndex == 0) {
      primary = &spec;
    }
  }
  if (primary == nullptr) {
    return missingPrimary();
  }
  if (primary->interfaceType == "efa-only") {
    return efaOnlyPrimary();
  }
  return std::nullopt;
}

std::optional<LaunchError> checkCardLimits(const std::vector<NetworkInterfaceSpec>& specs,
                                           const InstanceTypeInfo& type) {
  std::map<int, int> perCard;
  for (const NetworkInterfaceSpec& spec : specs) {
    ++perCard[spec.networkCardIndex];
  }
  for (const NetworkCard& card : type.networkCards) {
    if (perCard[card.index] > card.maximumNetworkInterfaces) {
      return tooManyInterfaces(perCard[card.index], type, card.index);
    }
  }
  for (const NetworkInterfaceSpec& spec : specs) {
    const NetworkCard* card = type.card(spec.networkCardIndex);
    if (card != nullptr &&
        (spec.deviceIndex < 0 || spec.deviceIndex >= card->maximumNetworkInterfaces)) {
      return deviceIndexOutOfRange(spec.deviceIndex, card->index, card->maximumNetworkInterfaces);
    }
  }
  int efas = 0;
  for (const NetworkInterfaceSpec& spec : specs) {
    efas += isEfa(spec) ? 1 : 0;
  }
  if (efas > 0 && !type.efaSupported) {
    return efaUnsupported(type.name);
  }
  if (efas > type.maximumEfaInterfaces) {
    return tooManyEfas(efas, type);
  }
  return std::nullopt;
}

std::optional<LaunchError> checkNetworkResources(const LaunchRequest& request,
                                                 const std::vector<NetworkInterfaceSpec>& specs) {
  for (const NetworkInterfaceSpec& spec : specs) {
    const SubnetRef& subnet = spec.subnet ? *spec.subnet : request.subnet;
    if (!subnet.exists) {
      return subnetNotFound(subnet.id);
    }
    const auto& groups = spec.groups.empty() ? request.securityGroups : spec.groups;
    for (const SecurityGroupRef& group : groups) {
      if (!group.exists) {
        return groupNotFound(group.id, subnet.vpcId);
      }
      if (group.vpcId != subnet.vpcId) {
        return groupInOtherVpc(group.id, subnet.id);
      }
    }
  }
  return std::nullopt;
}

std::optional<LaunchError> checkFreeAddresses(const LaunchRequest& request,
                                              const std::vector<NetworkInterfaceSpec>& specs) {
  // Subnet id -> (subnet, addresses one instance takes from it); interfaces may share one.
  std::map<std::string, std::pair<const SubnetRef*, int64_t>> needs;
  for (const NetworkInterfaceSpec& spec : specs) {
    const SubnetRef& subnet = spec.subnet ? *spec.subnet : request.subnet;
    auto& need = needs.try_emplace(subnet.id, &subnet, 0).first->second;
    need.second += ipv4AddressesNeeded(spec);
  }
  for (const auto& [id, need] : needs) {
    if (need.second * request.count > need.first->availableIps) {
      return insufficientAddresses(id);
    }
  }
  return std::nullopt;
}

}  // namespace

int64_t ipv4AddressesNeeded(const NetworkInterfaceSpec& spec) {
  if (spec.interfaceType == "efa-only") {
    return 0;  // "You can't assign an IP address to an EFA-only network interface."
  }
  return 1 + int64_t{spec.ipv4AddressCount} + 16 * int64_t{spec.ipv4PrefixCount};
}

std::optional<LaunchError> validateLaunch(const LaunchRequest& request, const Catalog& catalog) {
  if (request.count < 1) {
    return invalidCount(request.count);
  }
  const InstanceTypeInfo* type = catalog.find(request.instanceType);
  if (type == nullptr) {
    return unknownInstanceType(request.instanceType);
  }
  if (!request.image.exists) {
    return imageNotFound(request.image.id);
  }
  if (type->architecture && *type->architecture != request.image.architecture) {
    return architectureMismatch(*type->architecture, request.image.architecture);
  }
  std::vector<NetworkInterfaceSpec> specs = effectiveInterfaces(request);
  if (auto e = checkInterfaceLayout(specs, *type)) {
    return e;
  }
  if (auto e = checkCardLimits(specs, *type)) {
    return e;
  }
  if (auto e = checkNetworkResources(request, specs)) {
    return e;
  }
  return checkFreeAddresses(request, specs);
}

}  // namespace nodewright::emulators::ec2
