// The node labels of an instance type, and the small facts they are read from.
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "cloud/aws/instancetype/types.h"
#include "cloud/well_known_labels.h"
#include "core/text.h"

namespace nodewright::cloud::aws {
namespace {

constexpr std::string_view kPrefix = "karpenter.k8s.aws/";

// Karpenter's lowerKabobCase: "Radeon Pro V520" -> "radeon-pro-v520".
std::string lowerKebab(std::string_view s) {
  std::string out = core::lowerAscii(s);
  for (char& c : out) {
    if (c == ' ') {
      c = '-';
    }
  }
  return out;
}

// Karpenter's `(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.` on the type name: the category ("m", "u")
// and generation ("5", "1") of "m5.large" and "u-6tb1.metal".
std::optional<std::pair<std::string, std::string>> categoryAndGeneration(std::string_view name) {
  auto digitsAt = [&](size_t i) {
    size_t j = i;
    while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) {
      ++j;
    }
    return j - i;
  };
  size_t i = 0;
  while (i < name.size() && name[i] >= 'a' && name[i] <= 'z') {
    ++i;
  }
  if (i == 0) {
    return std::nullopt;
  }
  const std::string category(name.substr(0, i));
  size_t start = i;
  if (i < name.size() && name[i] == '-') {
    const size_t n = digitsAt(i + 1);
    if (n > 0 && name.substr(i + 1 + n, 2) == "tb") {
      start = i + 1 + n + 2;
    }
  }
  const size_t n = digitsAt(start);
  if (n == 0 || name.find('.', start + n) == std::string_view::npos) {
    return std::nullopt;
  }
  return std::pair(category, std::string(name.substr(start, n)));
}

}  // namespace

std::optional<std::string> kubeArchitecture(const sdk::InstanceTypeInfo& info) {
  for (const std::string& arch : info.architectures) {
    if (arch == "x86_64") {
      return "amd64";
    }
    if (arch == "arm64") {
      return "arm64";
    }
  }
  return std::nullopt;
}

std::map<std::string, std::string> instanceTypeLabels(const sdk::InstanceTypeInfo& info,
                                                      std::string_view region) {
  std::map<std::string, std::string> out;
  auto set = [&](std::string_view name, std::string value) {
    out[fmt::format("{}instance-{}", kPrefix, name)] = std::move(value);
  };
  out[labels::kArch] = kubeArchitecture(info).value_or("");
  out[labels::kOs] = "linux";
  out[labels::kInstanceType] = info.instanceType;
  if (!region.empty()) {
    out["topology.kubernetes.io/region"] = std::string(region);
  }
  if (auto parts = categoryAndGeneration(info.instanceType)) {
    set("category", parts->first);
    set("generation", parts->second);
  }
  if (const size_t dot = info.instanceType.find('.');
      dot != std::string::npos && info.instanceType.find('.', dot + 1) == std::string::npos) {
    set("family", info.instanceType.substr(0, dot));
    set("size", info.instanceType.substr(dot + 1));
  }
  // Karpenter v1.14: "true" when the family (before the first '.') names a flex variant
  // ("c7i-flex.large"), else "false"; every type answers.
  set("capability-flex",
      info.instanceType.substr(0, info.instanceType.find('.')).find("-flex") != std::string::npos
          ? "true"
          : "false");
  // Karpenter offers every type in both tenancies and labels the node with the one it runs
  // in. nodewright launches default tenancy only (its templates set no Placement.Tenancy), so
  // that is the one its types offer: a requirement on dedicated finds no type rather than
  // launching a shared instance.
  set("tenancy", "default");
  set("cpu", std::to_string(info.defaultVCpus));
  if (!info.cpuManufacturer.empty()) {
    set("cpu-manufacturer", lowerKebab(info.cpuManufacturer));
  }
  if (info.sustainedClockSpeedGhz) {
    set("cpu-sustained-clock-speed-mhz",
        std::to_string(std::lround(*info.sustainedClockSpeedGhz * 1000)));
  }
  set("memory", std::to_string(info.memoryMiB));
  if (info.networkBaselineBandwidthGbps) {
    set("network-bandwidth",
        std::to_string(std::llround(*info.networkBaselineBandwidthGbps * 1000)));
  }
  if (info.ebsMaximumBandwidthMbps) {
    set("ebs-bandwidth", std::to_string(*info.ebsMaximumBandwidthMbps));
  }
  // Bare metal has no hypervisor; Karpenter labels it with the empty value all the same.
  set("hypervisor", info.hypervisor);
  set("encryption-in-transit-supported", info.encryptionInTransitSupported ? "true" : "false");
  if (info.gpuCount > 0) {
    set("gpu-name", lowerKebab(info.gpuName));
    set("gpu-manufacturer", lowerKebab(info.gpuManufacturer));
    set("gpu-count", std::to_string(info.gpuCount));
    if (info.gpuTotalMemoryMiB > 0) {
      // Karpenter's label is the memory of one GPU.
      set("gpu-memory", std::to_string(info.gpuTotalMemoryMiB / info.gpuCount));
    }
  }
  if (info.acceleratorCount > 0) {
    set("accelerator-name", lowerKebab(info.acceleratorName));
    set("accelerator-manufacturer", lowerKebab(info.acceleratorManufacturer));
    set("accelerator-count", std::to_string(info.acceleratorCount));
  }
  if (info.nvmeInstanceStorage && info.instanceStorageGB > 0) {
    set("local-nvme", std::to_string(info.instanceStorageGB));
  }
  return out;
}

}  // namespace nodewright::cloud::aws
