#include "cloud/aws/instancetype/types.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cloud/aws/nodeclass/resolved.h"
#include "cloud/aws/nodeclass/windows.h"
#include "cloud/well_known_labels.h"

namespace nodewright::cloud::aws {
namespace {

constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * kMi;
// Karpenter's DefaultEBS volume size, the root (ephemeral) volume of every family but Windows,
// whose default /dev/sda1 is 50Gi.
constexpr int64_t kDefaultVolumeBytes = 20 * kGi;
constexpr int64_t kWindowsVolumeBytes = 50 * kGi;
// The kubelet's default maxPods, which Windows nodes keep (their pods are not ENI-limited).
constexpr int64_t kDefaultMaxPods = 110;
constexpr const char* kWindowsBuildLabel = "node.kubernetes.io/windows-build";
constexpr const char* kPrivateIPv4Address = "vpc.amazonaws.com/PrivateIPv4Address";

// Karpenter's AMI family feature flags (amifamily FeatureFlags): Bottlerocket sizes kube-reserved
// memory on its own pod count, ignores podsPerCore and has no soft eviction; Windows sizes it
// on its pods too and runs 110 pods whatever its ENIs; the others (AL2023, AL2, Custom) share
// the defaults.
bool usesEniLimitedMemoryOverhead(std::string_view family) {
  return family != kFamilyBottlerocket && !isWindowsFamily(family);
}
bool supportsEniLimitedPodDensity(std::string_view family) {
  return !isWindowsFamily(family);
}
bool podsPerCoreEnabled(std::string_view family) {
  return family != kFamilyBottlerocket;
}
bool evictionSoftEnabled(std::string_view family) {
  return family != kFamilyBottlerocket;
}
// The device whose size is the node's ephemeral storage.
std::string_view ephemeralDevice(std::string_view family) {
  if (isWindowsFamily(family)) {
    return "/dev/sda1";
  }
  return family == kFamilyBottlerocket ? "/dev/xvdb" : "/dev/xvda";
}

core::Result<cloud::ResourceList> parseResources(const std::map<std::string, std::string>& in,
                                                 std::string_view field) {
  cloud::ResourceList out;
  for (const auto& [name, text] : in) {
    auto quantity = core::Quantity::parse(text);
    if (!quantity) {
      return core::fail(core::Error::invalid(
          fmt::format("spec.kubelet.{}[{}]: {}", field, name, quantity.error().message())));
    }
    out[name] = *quantity;
  }
  return out;
}

// "10%" -> 10; nullopt unless the text is a number followed by '%'.
std::optional<double> parsePercent(std::string_view text) {
  if (text.size() < 2 || text.back() != '%') {
    return std::nullopt;
  }
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, value);
  if (ec != std::errc() || end != text.data() + text.size() - 1 || value < 0 || value > 100) {
    return std::nullopt;
  }
  return value;
}

cloud::ResourceList maxResources(cloud::ResourceList a, const cloud::ResourceList& b) {
  for (const auto& [name, quantity] : b) {
    auto [it, inserted] = a.try_emplace(name, quantity);
    if (!inserted && it->second < quantity) {
      it->second = quantity;
    }
  }
  return a;
}

}  // namespace

std::optional<int64_t> eniLimitedPods(const sdk::InstanceTypeInfo& info, int reservedENIs) {
  if (info.ipv4AddressesPerInterface <= 0) {
    return std::nullopt;
  }
  // The VPC CNI only uses the interfaces of the default card.
  int interfaces = info.maximumNetworkInterfaces;
  if (const sdk::NetworkCardInfo* card = info.card(info.defaultNetworkCardIndex)) {
    interfaces = card->maximumNetworkInterfaces;
  }
  const int64_t usable = std::max(interfaces - reservedENIs, 0);
  if (usable == 0) {
    return 0;
  }
  return usable * (info.ipv4AddressesPerInterface - 1) + 2;
}

core::Result<InstanceTypeBuilder> InstanceTypeBuilder::create(InstanceTypeSettings settings) {
  if (settings.family.empty()) {
    settings.family = kFamilyAL2023;
  }
  InstanceTypeBuilder builder(std::move(settings));
  const auto& kubelet = builder.settings_.kubelet;
  if (!kubelet) {
    return builder;
  }
  auto kubeReserved = parseResources(kubelet->kubeReserved, "kubeReserved");
  if (!kubeReserved) {
    return core::fail(kubeReserved.error());
  }
  builder.kubeReservedOverrides_ = std::move(*kubeReserved);
  auto systemReserved = parseResources(kubelet->systemReserved, "systemReserved");
  if (!systemReserved) {
    return core::fail(systemReserved.error());
  }
  builder.systemReserved_ = std::move(*systemReserved);

  std::vector<std::pair<const std::map<std::string, std::string>*, std::string_view>> sources = {
      {&kubelet->evictionHard, "evictionHard"}};
  if (evictionSoftEnabled(builder.settings_.family)) {
    sources.emplace_back(&kubelet->evictionSoft, "evictionSoft");
  }
  for (const auto& [source, field] : sources) {
    Signals signals;
    for (const auto& [name, text] : *source) {
      std::string resource;
      if (name == "memory.available") {
        resource = "memory";
      } else if (name == "nodefs.available") {
        resource = "ephemeral-storage";
      } else {
        continue;  // other signals hold nothing back from allocatable
      }
      Signal signal;
      if (auto percent = parsePercent(text)) {
        // 100% turns the threshold off (kubelet-config.v1beta1).
        signal.percent = *percent == 100 ? 0 : *percent;
      } else if (auto quantity = core::Quantity::parse(text)) {
        signal.quantity = *quantity;
      } else {
        return core::fail(core::Error::invalid(
            fmt::format("spec.kubelet.{}[{}]: \"{}\" is neither a quantity nor a percentage", field,
                        name, text)));
      }
      signals[resource] = signal;
    }
    builder.evictionSignals_.push_back(std::move(signals));
  }
  return builder;
}

core::Result<cloud::InstanceType> InstanceTypeBuilder::build(
    const sdk::InstanceTypeInfo& info) const {
  if (!kubeArchitecture(info)) {
    return core::fail(core::Error::invalid(
        info.architectures.empty()
            ? fmt::format("{} has no known architecture", info.instanceType)
            : fmt::format("{} has no amd64 or arm64 architecture ({})", info.instanceType,
                          fmt::join(info.architectures, ", "))));
  }
  const std::optional<int64_t> eniPods = eniLimitedPods(info, settings_.reservedENIs);
  if (!eniPods) {
    return core::fail(core::Error::invalid(fmt::format(
        "{} has no known IPv4 addresses per network interface, so its pod limit is unknown",
        info.instanceType)));
  }
  const std::optional<std::string> build = windowsBuild(settings_.family);
  if (build && kubeArchitecture(info) != "amd64") {
    // Karpenter offers Windows on no other architecture (getOS: no kubernetes.io/os value).
    return core::fail(
        core::Error::invalid(fmt::format("{} is {}, and {} runs on amd64 only", info.instanceType,
                                         *kubeArchitecture(info), settings_.family)));
  }
  cloud::InstanceType it;
  it.name = info.instanceType;
  it.labels = instanceTypeLabels(info, settings_.region);
  if (build) {
    it.labels[labels::kOs] = "windows";
    it.labels[kWindowsBuildLabel] = *build;
  }

  const int64_t podCount = pods(info, *eniPods);
  auto& capacity = it.capacity;
  capacity["cpu"] = core::Quantity::fromInt(info.defaultVCpus);
  capacity["memory"] = memory(info);
  capacity["ephemeral-storage"] = ephemeralStorage(info);
  capacity["pods"] = core::Quantity::fromInt(podCount);
  // Extended resources only where the type has them; an absent resource is zero to the
  // scheduler.
  if (info.gpuCount > 0) {
    std::string manufacturer = info.gpuManufacturer;
    std::transform(manufacturer.begin(), manufacturer.end(), manufacturer.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (manufacturer == "nvidia") {
      capacity["nvidia.com/gpu"] = core::Quantity::fromInt(info.gpuCount);
    } else if (manufacturer == "amd") {
      capacity["amd.com/gpu"] = core::Quantity::fromInt(info.gpuCount);
    } else if (manufacturer == "habana") {
      capacity["habana.ai/gaudi"] = core::Quantity::fromInt(info.gpuCount);
    }
  }
  // Neuron devices only: an inference accelerator of another maker (Qualcomm) has no device
  // plugin resource in Karpenter.
  if (info.neuronDeviceCount > 0) {
    capacity["aws.amazon.com/neuron"] = core::Quantity::fromInt(info.neuronDeviceCount);
  }
  if (info.neuronCoreCount > 0) {
    capacity["aws.amazon.com/neuroncore"] = core::Quantity::fromInt(info.neuronCoreCount);
  }
  if (info.efaSupported && info.maximumEfaInterfaces > 0) {
    capacity["vpc.amazonaws.com/efa"] = core::Quantity::fromInt(info.maximumEfaInterfaces);
  }
  if (build) {
    // The VPC resource controller hands Windows pods secondary IPv4 addresses of the primary
    // ENI: one fewer than the ENI holds.
    capacity[kPrivateIPv4Address] =
        core::Quantity::fromInt(std::max(info.ipv4AddressesPerInterface - 1, 0));
  }

  it.kubeReserved = kubeReserved(info, podCount, *eniPods);
  it.systemReserved = systemReserved_;
  it.evictionThreshold = evictionThreshold(capacity);
  return it;
}

int64_t InstanceTypeBuilder::pods(const sdk::InstanceTypeInfo& info, int64_t eniPods) const {
  const auto& kubelet = settings_.kubelet;
  int64_t count = kDefaultMaxPods;
  if (kubelet && kubelet->maxPods) {
    count = *kubelet->maxPods;
  } else if (supportsEniLimitedPodDensity(settings_.family)) {
    count = eniPods;
  }
  if (kubelet && kubelet->podsPerCore.value_or(0) > 0 && podsPerCoreEnabled(settings_.family)) {
    count = std::min<int64_t>(count, int64_t{*kubelet->podsPerCore} * info.defaultVCpus);
  }
  return count;
}

core::Quantity InstanceTypeBuilder::memory(const sdk::InstanceTypeInfo& info) const {
  int64_t mib = info.memoryMiB;
  // Graviton keeps 64 MiB of CMA memory from the kernel.
  if (!info.architectures.empty() && info.architectures.front() == "arm64") {
    mib -= 64;
  }
  // The same float operations as Karpenter, so the rounding agrees to the MiB.
  const auto overheadMiB = static_cast<int64_t>(
      std::ceil(static_cast<double>(mib * kMi) * settings_.vmMemoryOverheadPercent / 1024 / 1024));
  return core::Quantity::fromInt((mib - overheadMiB) * kMi, core::Quantity::Format::BinarySI);
}

core::Quantity InstanceTypeBuilder::ephemeralStorage(const sdk::InstanceTypeInfo& info) const {
  if (settings_.instanceStorePolicy == "RAID0" && info.instanceStorageGB > 0) {
    return core::Quantity::fromInt(info.instanceStorageGB * 1'000'000'000);
  }
  const auto& mappings = settings_.blockDeviceMappings;
  auto sizeOf = [](const api::karpenter::BlockDeviceMapping& m) {
    return m.ebs ? m.ebs->volumeSize : std::nullopt;
  };
  if (!mappings.empty()) {
    for (const auto& m : mappings) {
      if (m.rootVolume && sizeOf(m)) {
        return *sizeOf(m);
      }
    }
    if (settings_.family == kFamilyCustom) {
      // A custom AMI's root device is unknown; Karpenter takes the last mapping.
      if (auto size = sizeOf(mappings.back())) {
        return *size;
      }
    } else {
      for (const auto& m : mappings) {
        if (m.deviceName == ephemeralDevice(settings_.family) && sizeOf(m)) {
          return *sizeOf(m);
        }
      }
    }
  }
  return core::Quantity::fromInt(
      isWindowsFamily(settings_.family) ? kWindowsVolumeBytes : kDefaultVolumeBytes,
      core::Quantity::Format::BinarySI);
}

cloud::ResourceList InstanceTypeBuilder::kubeReserved(const sdk::InstanceTypeInfo& info,
                                                      int64_t pods, int64_t eniPods) const {
  // Memory for the kubelet and runtime grows with the pods the node can hold. Karpenter sizes
  // it on the ENI-limited count (with no reserved ENIs) even when maxPods says otherwise.
  const int64_t memoryPods = usesEniLimitedMemoryOverhead(settings_.family)
                                 ? eniLimitedPods(info, 0).value_or(eniPods)
                                 : pods;
  cloud::ResourceList reserved;
  reserved["memory"] =
      core::Quantity::fromInt((11 * memoryPods + 255) * kMi, core::Quantity::Format::BinarySI);
  reserved["ephemeral-storage"] = core::Quantity::fromInt(kGi, core::Quantity::Format::BinarySI);
  // CPU: 6% of the first core, 1% of the second, 0.5% of the next two, 0.25% of the rest
  // (Bottlerocket's ladder, which Karpenter uses for every family).
  struct Range {
    int64_t start, end;
    double fraction;
  };
  constexpr Range kRanges[] = {
      {0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, int64_t{1} << 31, 0.0025}};
  const int64_t cpuMilli = int64_t{info.defaultVCpus} * 1000;
  int64_t cpuReserved = 0;
  for (const Range& r : kRanges) {
    if (cpuMilli >= r.start) {
      const double span = static_cast<double>(std::min(cpuMilli, r.end) - r.start);
      cpuReserved += static_cast<int64_t>(span * r.fraction);
    }
  }
  reserved["cpu"] = core::Quantity::fromMilli(cpuReserved);
  for (const auto& [name, quantity] : kubeReservedOverrides_) {
    reserved[name] = quantity;
  }
  return reserved;
}

cloud::ResourceList InstanceTypeBuilder::evictionThreshold(
    const cloud::ResourceList& capacity) const {
  const core::Quantity& memory = capacity.at("memory");
  const core::Quantity& storage = capacity.at("ephemeral-storage");
  // The kubelet's defaults: memory.available<100Mi, nodefs.available<10%.
  cloud::ResourceList threshold;
  threshold["memory"] = core::Quantity::fromInt(100 * kMi, core::Quantity::Format::BinarySI);
  threshold["ephemeral-storage"] = core::Quantity::fromInt(
      static_cast<int64_t>(std::ceil(static_cast<double>(storage.value()) / 100 * 10)));

  cloud::ResourceList overrides;
  for (const Signals& signals : evictionSignals_) {
    cloud::ResourceList set;
    for (const auto& [resource, signal] : signals) {
      if (signal.quantity) {
        set[resource] = *signal.quantity;
        continue;
      }
      const core::Quantity& base = resource == "memory" ? memory : storage;
      set[resource] = core::Quantity::fromInt(
          static_cast<int64_t>(std::ceil(base.asDouble() / 100 * signal.percent)));
    }
    overrides = maxResources(std::move(overrides), set);
  }
  for (auto& [name, quantity] : overrides) {
    threshold[name] = quantity;
  }
  return threshold;
}

}  // namespace nodewright::cloud::aws
