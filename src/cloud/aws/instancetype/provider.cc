#include "cloud/aws/instancetype/provider.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "aws/error_class.h"
#include "cloud/aws/instancetype/compatibility.h"
#include "cloud/aws/networkinterface/compatibility.h"
#include "cloud/aws/networkinterface/slot.h"
#include "cloud/aws/nodeclass/lookup.h"
#include "cloud/aws/nodeclass/windows.h"
#include "core/log.h"

namespace nodewright::cloud::aws {
namespace {

void appendMap(std::string& key, const std::map<std::string, std::string>& map) {
  for (const auto& [k, v] : map) {
    fmt::format_to(std::back_inserter(key), "{}={},", k, v);
  }
  key += ';';
}

// Everything list() reads from its arguments, as text: equal keys give equal results for the
// same EC2 answers, prices and unavailable offerings.
std::string cacheKey(const InstanceTypeSettings& settings,
                     const api::karpenter::EC2NodeClassSpec& spec,
                     const std::vector<std::string>& zones, int efaRequested) {
  const std::vector<api::karpenter::NetworkInterface>& interfaces = spec.networkInterfaces;
  std::string key = fmt::format("{}|{}|{}|{}|", settings.family, settings.instanceStorePolicy,
                                efaRequested, requiresNestedVirtualization(spec));
  for (const auto& m : settings.blockDeviceMappings) {
    const bool sized = m.ebs && m.ebs->volumeSize;
    fmt::format_to(std::back_inserter(key), "{}:{}:{},", m.deviceName, m.rootVolume,
                   sized ? m.ebs->volumeSize->toString() : "-");
  }
  key += '|';
  for (const auto& iface : interfaces) {
    const InterfaceSlot slot = slotOf(iface);
    fmt::format_to(std::back_inserter(key), "{}:{}:{},", slot.card, slot.device,
                   iface.interfaceType);
  }
  key += '|';
  if (const auto& k = settings.kubelet) {
    fmt::format_to(std::back_inserter(key), "{}:{};", k->maxPods.value_or(-1),
                   k->podsPerCore.value_or(-1));
    appendMap(key, k->kubeReserved);
    appendMap(key, k->systemReserved);
    appendMap(key, k->evictionHard);
    appendMap(key, k->evictionSoft);
  }
  fmt::format_to(std::back_inserter(key), "|{}", fmt::join(zones, ","));
  return key;
}

}  // namespace

InstanceTypeProvider::InstanceTypeProvider(const core::Clock& clock, sdk::Ec2Client& ec2,
                                           PricingProvider& pricing,
                                           UnavailableOfferings& unavailable,
                                           InstanceTypeProviderOptions options)
    : clock_(clock),
      ec2_(ec2),
      pricing_(pricing),
      unavailable_(unavailable),
      options_(std::move(options)) {}

core::Result<cloud::InstanceTypes> InstanceTypeProvider::list(
    const api::karpenter::EC2NodeClass& nodeClass,
    const std::optional<api::karpenter::KubeletConfiguration>& kubelet,
    const std::vector<std::string>& zones, int efaRequested) {
  auto shared = listShared(nodeClass, kubelet, zones, efaRequested);
  if (!shared) {
    return core::fail(shared.error());
  }
  return **shared;
}

core::Result<std::shared_ptr<const cloud::InstanceTypes>> InstanceTypeProvider::listShared(
    const api::karpenter::EC2NodeClass& nodeClass,
    const std::optional<api::karpenter::KubeletConfiguration>& kubelet,
    const std::vector<std::string>& zones, int efaRequested) {
  auto snap = snapshot();
  if (!snap) {
    return core::fail(snap.error());
  }
  // Before the generations are read, so prices fetched now are not built under an older one.
  (void)pricing_.refreshSpotIfStale();

  std::vector<std::string> wanted = zones;
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  auto builder = InstanceTypeBuilder::create(InstanceTypeSettings{
      .family = nodeclass::familyOf(nodeClass.spec),
      .blockDeviceMappings = nodeClass.spec.blockDeviceMappings,
      .instanceStorePolicy = nodeClass.spec.instanceStorePolicy,
      .kubelet = kubelet,
      .region = options_.region,
      .vmMemoryOverheadPercent = options_.vmMemoryOverheadPercent,
      .reservedENIs = options_.reservedENIs,
  });
  if (!builder) {
    return core::fail(builder.error());
  }
  std::string key = cacheKey(builder->settings(), nodeClass.spec, wanted, efaRequested);
  const uint64_t unavailableGeneration = unavailable_.generation();
  const uint64_t pricingGeneration = pricing_.generation();
  {
    std::lock_guard lock(cacheMu_);
    auto it = cache_.find(key);
    if (it != cache_.end() && it->second.snapshot == (*snap)->sequence &&
        it->second.unavailableGeneration == unavailableGeneration &&
        it->second.pricingGeneration == pricingGeneration) {
      it->second.lastUsed = ++uses_;
      releaseExpired(it->second);
      return it->second.types;
    }
  }
  auto entry = build(**snap, *builder, nodeClass, wanted, efaRequested);
  if (!entry) {
    return core::fail(entry.error());
  }
  entry->snapshot = (*snap)->sequence;
  entry->unavailableGeneration = unavailableGeneration;
  entry->pricingGeneration = pricingGeneration;
  std::shared_ptr<const cloud::InstanceTypes> out = entry->types;
  std::lock_guard lock(cacheMu_);
  store(std::move(key), std::move(*entry));
  return out;
}

void InstanceTypeProvider::releaseExpired(Entry& entry) {
  std::vector<std::pair<size_t, size_t>> expired;
  std::erase_if(entry.heldBack, [&](const std::pair<size_t, size_t>& at) {
    const cloud::InstanceType& type = entry.types->compatible[at.first];
    const cloud::Offering& offering = type.offerings[at.second];
    if (unavailable_.isUnavailable(type.name, offering.zone, offering.capacityType)) {
      return false;
    }
    expired.push_back(at);
    return true;
  });
  if (expired.empty()) {
    return;
  }
  // Answers already handed out stay as they were; the entry moves to a corrected copy.
  auto next = std::make_shared<cloud::InstanceTypes>(*entry.types);
  for (const auto& [type, offering] : expired) {
    next->compatible[type].offerings[offering].available = true;
  }
  entry.types = std::move(next);
}

const sdk::InstanceTypeInfo* InstanceTypeProvider::info(std::string_view name) {
  auto snap = snapshot();
  if (!snap) {
    return nullptr;
  }
  auto it = (*snap)->byName.find(name);
  return it == (*snap)->byName.end() ? nullptr : it->second;
}

core::Result<InstanceTypeProvider::SnapshotPtr> InstanceTypeProvider::snapshot() {
  auto fresh = [&]() -> bool {  // REQUIRES: mu_ held
    const auto now = clock_.steadyNow();
    if (current_ && now - current_->fetched < options_.ttl) {
      return true;
    }
    // A stale snapshot serves while a failed refresh waits to be retried.
    return current_ && lastFailure_ && now - *lastFailure_ < options_.retryAfterError;
  };
  {
    std::lock_guard lock(mu_);
    if (fresh()) {
      return current_;
    }
  }
  std::lock_guard refresh(refreshMu_);
  uint64_t sequence = 0;
  {
    std::lock_guard lock(mu_);
    if (fresh()) {  // refreshed by another caller meanwhile
      return current_;
    }
    sequence = current_ ? current_->sequence + 1 : 1;
  }
  auto next = fetch(sequence);
  std::lock_guard lock(mu_);
  if (!next) {
    lastFailure_ = clock_.steadyNow();
    if (current_) {
      core::logWarn("aws: instance type refresh failed, using the last answers",
                    {{"error", next.error()}});
      return current_;
    }
    return core::fail(next.error());
  }
  lastFailure_.reset();
  previous_ = std::move(current_);
  current_ = std::move(*next);
  return current_;
}

core::Result<InstanceTypeProvider::SnapshotPtr> InstanceTypeProvider::fetch(uint64_t sequence) {
  auto infos = ec2_.describeInstanceTypes();
  if (!infos) {
    return core::fail(sdk::toCoreError(infos.error()).wrap("describing instance types"));
  }
  auto offerings = ec2_.describeInstanceTypeOfferings();
  if (!offerings) {
    return core::fail(
        sdk::toCoreError(offerings.error()).wrap("describing instance type offerings"));
  }
  auto snap = std::make_shared<Snapshot>();
  snap->sequence = sequence;
  snap->fetched = clock_.steadyNow();
  snap->infos = std::move(*infos);
  std::sort(snap->infos.begin(), snap->infos.end(),
            [](const auto& a, const auto& b) { return a.instanceType < b.instanceType; });
  for (const sdk::InstanceTypeInfo& info : snap->infos) {
    snap->byName.emplace(info.instanceType, &info);
  }
  for (const sdk::InstanceTypeOffering& offering : *offerings) {
    auto it = snap->byName.find(offering.instanceType);
    if (it != snap->byName.end()) {
      snap->zones[it->second->instanceType].push_back(offering.location);
    }
  }
  for (auto& [type, zones] : snap->zones) {
    std::sort(zones.begin(), zones.end());
    zones.erase(std::unique(zones.begin(), zones.end()), zones.end());
  }
  return SnapshotPtr(std::move(snap));
}

core::Result<InstanceTypeProvider::Entry> InstanceTypeProvider::build(
    const Snapshot& snap, const InstanceTypeBuilder& builder,
    const api::karpenter::EC2NodeClass& nodeClass, const std::vector<std::string>& zones,
    int efaRequested) {
  Entry entry;
  auto types = std::make_shared<cloud::InstanceTypes>();
  // The rules, worded to fit every type they exclude, so they can be counted (cloud/exclusions.h).
  static const std::string kInterfaces = "cannot carry the network interfaces asked for";
  static const std::string kZones = "not offered in the node class's zones";
  static const std::string kUnusable = "have no amd64/arm64 architecture or no known pod limit";
  static const std::string kCpuOptions = "cannot run the CPU options asked for";
  static const std::string kWindows = "cannot run Windows, which Karpenter offers on amd64 only";
  const bool windows = isWindowsFamily(builder.settings().family);
  auto exclude = [&](const std::string& type, std::string reason, const std::string& rule) {
    types->excluded.push_back(
        cloud::Exclusion{.instanceType = type, .reason = std::move(reason), .rule = rule});
  };
  for (const sdk::InstanceTypeInfo& info : snap.infos) {
    if (auto reason =
            networkInterfaceIncompatibility(info, nodeClass.spec.networkInterfaces, efaRequested)) {
      exclude(info.instanceType, std::move(*reason), kInterfaces);
      continue;
    }
    if (auto reason = cpuOptionsIncompatibility(info, nodeClass.spec)) {
      exclude(info.instanceType, std::move(*reason), kCpuOptions);
      continue;
    }
    std::vector<std::string> offered;
    if (auto it = snap.zones.find(info.instanceType); it != snap.zones.end()) {
      std::set_intersection(it->second.begin(), it->second.end(), zones.begin(), zones.end(),
                            std::back_inserter(offered));
    }
    if (offered.empty()) {
      exclude(
          info.instanceType,
          fmt::format("{} is not offered in the node class's zones ({})", info.instanceType,
                      zones.empty() ? "none resolved" : fmt::format("{}", fmt::join(zones, ", "))),
          kZones);
      continue;
    }
    if (const auto arch = kubeArchitecture(info); windows && arch && *arch != "amd64") {
      exclude(info.instanceType,
              fmt::format("{} is {}, and {} runs on amd64 only", info.instanceType, *arch,
                          builder.settings().family),
              kWindows);
      continue;
    }
    auto type = builder.build(info);
    if (!type) {
      exclude(info.instanceType, type.error().message(), kUnusable);
      continue;
    }
    std::vector<size_t> heldBack;
    type->offerings = offerings(info, offered, heldBack);
    for (size_t offering : heldBack) {
      entry.heldBack.emplace_back(types->compatible.size(), offering);
    }
    types->compatible.push_back(std::move(*type));
  }
  entry.types = std::move(types);
  return entry;
}

std::vector<cloud::Offering> InstanceTypeProvider::offerings(const sdk::InstanceTypeInfo& info,
                                                             const std::vector<std::string>& zones,
                                                             std::vector<size_t>& heldBack) {
  std::set<std::string> capacityTypes;
  for (const std::string& usage : info.supportedUsageClasses) {
    // Other usage classes (capacity-block) are not launched by CreateFleet here.
    if (usage == kCapacityTypeOnDemand || usage == kCapacityTypeSpot) {
      capacityTypes.insert(usage);
    }
  }
  std::vector<cloud::Offering> out;
  for (const std::string& zone : zones) {
    for (const std::string& capacityType : capacityTypes) {
      const std::optional<double> price = capacityType == kCapacityTypeSpot
                                              ? pricing_.spot(info.instanceType, zone)
                                              : pricing_.onDemand(info.instanceType);
      const bool held = unavailable_.isUnavailable(info.instanceType, zone, capacityType);
      if (held && price) {
        heldBack.push_back(out.size());
      }
      out.push_back(cloud::Offering{.zone = zone,
                                    .capacityType = capacityType,
                                    .pricePerHour = price.value_or(0),
                                    .available = price && !held});
    }
  }
  return out;
}

void InstanceTypeProvider::store(std::string key, Entry entry) {
  entry.lastUsed = ++uses_;
  cache_.insert_or_assign(std::move(key), std::move(entry));
  while (cache_.size() > options_.maxCachedResults) {
    auto oldest = std::min_element(cache_.begin(), cache_.end(), [](const auto& a, const auto& b) {
      return a.second.lastUsed < b.second.lastUsed;
    });
    cache_.erase(oldest);
  }
}

}  // namespace nodewright::cloud::aws
