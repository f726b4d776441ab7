#pragma once

#include <cctype>
#include <string>

#include "aws/ec2_types.h"
#include "cloud/aws/sdk.h"
#include "emulators/ec2/catalog.h"

// sdk::InstanceTypeInfo values as DescribeInstanceTypes would give them, built from the shared
// catalog (../shared/data/aws-instance-types.json) without a wire: the pure-logic tests of
// instance types compute on real types' facts. The provider tests go through EC2 instead.
namespace nodewright::cloud::aws::testing {

inline const emulators::ec2::Catalog& sharedCatalog() {
  static const emulators::ec2::Catalog catalog = [] {
    auto loaded = emulators::ec2::loadCatalog(NW_SHARED_DIR "/data/aws-instance-types.json");
    return loaded ? std::move(*loaded) : emulators::ec2::Catalog();
  }();
  return catalog;
}

// EC2 spells manufacturers as products are named ("NVIDIA"); the catalog keeps labels.
inline std::string ec2Manufacturer(const std::string& m) {
  if (m == "nvidia" || m == "amd" || m == "aws") {
    std::string upper = m;
    for (char& c : upper) {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return upper;
  }
  if (m == "intel") {
    return "Intel";
  }
  if (m == "habana") {
    return "Habana";
  }
  if (m == "qualcomm") {
    return "Qualcomm";
  }
  return m;
}

inline sdk::InstanceTypeInfo toSdk(const emulators::ec2::InstanceTypeInfo& t) {
  sdk::InstanceTypeInfo out;
  out.instanceType = t.name;
  if (t.architecture) {
    out.architectures = {std::string(emulators::ec2::architectureName(*t.architecture))};
  }
  out.cpuManufacturer = ec2Manufacturer(t.cpuManufacturer);
  if (t.sustainedClockSpeedMhz) {
    out.sustainedClockSpeedGhz = *t.sustainedClockSpeedMhz / 1000.0;
  }
  out.defaultVCpus = t.vcpu.value_or(0);
  out.memoryMiB = t.memoryMiB.value_or(0);
  out.hypervisor = t.hypervisor.value_or("");
  out.bareMetal = t.bareMetal;
  out.supportedUsageClasses = t.supportedUsageClasses;
  if (out.supportedUsageClasses.empty()) {
    out.supportedUsageClasses = {"on-demand", "spot"};
  }
  out.maximumNetworkInterfaces = t.maxNetworkInterfaces;
  out.ipv4AddressesPerInterface = t.ipv4PerInterface.value_or(0);
  out.defaultNetworkCardIndex = t.defaultNetworkCardIndex;
  for (const auto& card : t.networkCards) {
    out.networkCards.push_back(
        {.index = card.index, .maximumNetworkInterfaces = card.maximumNetworkInterfaces});
  }
  out.efaSupported = t.efaSupported;
  out.maximumEfaInterfaces = t.maximumEfaInterfaces;
  out.encryptionInTransitSupported = t.encryptionInTransit.value_or(false);
  if (t.networkBandwidthMbps) {
    out.networkBaselineBandwidthGbps = *t.networkBandwidthMbps / 1000.0;
  }
  out.gpuCount = t.gpus.count;
  out.gpuManufacturer = ec2Manufacturer(t.gpus.manufacturer);
  out.gpuName = t.gpus.name;
  out.gpuTotalMemoryMiB = t.gpus.memoryMiB.value_or(0) * t.gpus.count;
  out.acceleratorCount = t.accelerators.count;
  out.acceleratorManufacturer = ec2Manufacturer(t.accelerators.manufacturer);
  out.acceleratorName = t.accelerators.name;
  if (t.accelerators.manufacturer == "aws") {  // Neuron devices, as EC2's NeuronInfo lists them
    out.neuronDeviceCount = t.accelerators.count;
    out.neuronCoreCount = t.accelerators.count * t.accelerators.neuronCoresPerDevice;
  }
  out.instanceStorageGB = t.localNvmeGB.value_or(0);
  out.nvmeInstanceStorage = out.instanceStorageGB > 0;
  out.ebsMaximumBandwidthMbps = t.ebsMaximumBandwidthMbps;
  return out;
}

// The named type of the shared catalog; an empty info (no name) when it is missing.
inline sdk::InstanceTypeInfo catalogInfo(const std::string& name) {
  const auto* t = sharedCatalog().find(name);
  return t != nullptr ? toSdk(*t) : sdk::InstanceTypeInfo{};
}

}  // namespace nodewright::cloud::aws::testing
