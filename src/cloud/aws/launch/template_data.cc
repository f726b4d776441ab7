#include "cloud/aws/launch/template_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "api/core/validation.h"
#include "cloud/aws/nodeclass/windows.h"
#include "core/hash.h"

namespace nodewright::cloud::aws {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

sdk::LaunchTemplateBlockDevice defaultVolume(std::string device, int64_t sizeGiB) {
  sdk::EbsBlockDevice ebs;
  ebs.encrypted = true;
  ebs.volumeSizeGiB = sizeGiB;
  ebs.volumeType = "gp3";
  return {std::move(device), std::move(ebs)};
}

std::string instanceProfile(const api::karpenter::EC2NodeClass& nodeClass) {
  // status.instanceProfile is the one created for spec.role; a named one is used as it is.
  return nodeClass.spec.instanceProfile.empty() ? nodeClass.status.instanceProfile
                                                : nodeClass.spec.instanceProfile;
}

// Field hashing: a tag byte before each field, and presence before optional values, so no two
// different templates feed the hasher the same bytes.
class DataHasher {
 public:
  void text(char tag, const std::string& s) {
    h_.addTag(tag);
    h_.addString(s);
  }
  void number(char tag, std::optional<int64_t> v) {
    h_.addTag(tag);
    h_.addU64(v ? 1 : 0);
    h_.addU64(static_cast<uint64_t>(v.value_or(0)));
  }
  void flag(char tag, std::optional<bool> v) {
    number(tag, v ? std::optional<int64_t>(*v) : std::nullopt);
  }
  void texts(char tag, const std::vector<std::string>& v) {
    number(tag, static_cast<int64_t>(v.size()));
    for (const std::string& s : v) {
      text('s', s);
    }
  }
  void tags(char tag, const sdk::Tags& t) {
    number(tag, static_cast<int64_t>(t.size()));
    for (const auto& [k, v] : t) {
      text('k', k);
      text('v', v);
    }
  }
  uint64_t value() const { return h_.value(); }

 private:
  core::Hasher h_;
};

std::optional<int64_t> widen(std::optional<int> v) {
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}

}  // namespace

core::Result<std::vector<sdk::LaunchTemplateBlockDevice>> blockDevices(
    const api::karpenter::EC2NodeClassSpec& spec, const std::string& family) {
  std::vector<sdk::LaunchTemplateBlockDevice> out;
  if (spec.blockDeviceMappings.empty()) {
    if (family == kFamilyBottlerocket) {
      out.push_back(defaultVolume("/dev/xvda", 4));
      out.push_back(defaultVolume("/dev/xvdb", 20));
    } else if (isWindowsFamily(family)) {
      // Karpenter's Windows families: one 50Gi root volume at /dev/sda1, where Windows AMIs
      // keep their root device.
      out.push_back(defaultVolume("/dev/sda1", 50));
    } else if (family != kFamilyCustom) {
      out.push_back(defaultVolume("/dev/xvda", 20));
    }
    return out;
  }
  for (size_t i = 0; i < spec.blockDeviceMappings.size(); ++i) {
    const api::karpenter::BlockDeviceMapping& m = spec.blockDeviceMappings[i];
    sdk::LaunchTemplateBlockDevice device;
    device.deviceName = m.deviceName;
    if (m.ebs) {
      const api::karpenter::BlockDevice& b = *m.ebs;
      sdk::EbsBlockDevice ebs;
      ebs.deleteOnTermination = b.deleteOnTermination;
      ebs.encrypted = b.encrypted.value_or(true);
      ebs.iops = b.iops;
      ebs.throughput = b.throughput;
      if (b.volumeSize) {
        // EC2 takes whole GiB; a size between two rounds up so the volume is never smaller.
        const int64_t bytes = b.volumeSize->value();
        if (bytes < kGiB) {
          return core::fail(core::Error::invalid(
              fmt::format("spec.blockDeviceMappings[{}].ebs.volumeSize: {} is under 1Gi", i,
                          b.volumeSize->toString())));
        }
        ebs.volumeSizeGiB = bytes / kGiB + (bytes % kGiB != 0 ? 1 : 0);
      }
      ebs.kmsKeyId = b.kmsKeyID;
      ebs.snapshotId = b.snapshotID;
      ebs.volumeType = b.volumeType;
      device.ebs = std::move(ebs);
    }
    out.push_back(std::move(device));
  }
  return out;
}

sdk::MetadataOptions metadataOptions(const api::karpenter::EC2NodeClassSpec& spec) {
  const api::karpenter::MetadataOptions user =
      spec.metadataOptions.value_or(api::karpenter::MetadataOptions{});
  sdk::MetadataOptions out;
  out.httpEndpoint = user.httpEndpoint.value_or("enabled");
  out.httpProtocolIpv6 = user.httpProtocolIPv6.value_or("disabled");
  out.httpTokens = user.httpTokens.value_or("required");
  out.httpPutResponseHopLimit = static_cast<int>(user.httpPutResponseHopLimit.value_or(1));
  return out;
}

core::Result<TemplateSpec> buildTemplate(const ClusterInfo& cluster,
                                         const api::karpenter::EC2NodeClass& nodeClass,
                                         const ResolvedNodeClass& resolved,
                                         const LaunchSettings& settings) {
  const api::karpenter::EC2NodeClassSpec& spec = nodeClass.spec;
  TemplateSpec out;
  sdk::LaunchTemplateData& data = out.data;
  data.imageId = settings.imageId;

  BootstrapOptions bootstrap;
  bootstrap.cluster = cluster;
  bootstrap.family = resolved.family;
  bootstrap.labels = settings.labels;
  bootstrap.taints = settings.taints;
  bootstrap.kubelet = settings.kubelet;
  bootstrap.maxPods = settings.maxPods;
  bootstrap.customUserData = spec.userData;
  bootstrap.raid0 = spec.instanceStorePolicy == "RAID0";
  if (resolved.family == kFamilyBottlerocket) {
    std::vector<std::pair<std::string, std::string>> names;
    for (const ResolvedImage& image : resolved.images) {
      names.emplace_back(image.id, image.name);
    }
    bootstrap.bottlerocketVersion = bottlerocketVersion(spec.amiSelectorTerms, names);
  }
  auto userData = bootstrapUserData(bootstrap);
  if (!userData) {
    return core::fail(userData.error());
  }
  data.userData = api::corev1::encodeBase64(*userData);

  data.instanceProfileName = instanceProfile(nodeClass);
  auto devices = blockDevices(spec, resolved.family);
  if (!devices) {
    return core::fail(devices.error());
  }
  data.blockDeviceMappings = std::move(*devices);
  data.metadataOptions = metadataOptions(spec);
  data.monitoring = spec.detailedMonitoring.value_or(false);
  if (spec.cpuOptions && spec.cpuOptions->nestedVirtualization) {
    data.nestedVirtualization = *spec.cpuOptions->nestedVirtualization;
  }
  auto interfaces = buildNetworkInterfaces(spec, resolved, settings.interfaces);
  if (!interfaces) {
    return core::fail(interfaces.error());
  }
  data.networkInterfaces = std::move(*interfaces);
  if (data.networkInterfaces.empty()) {
    // EC2 takes groups on the template or on its interfaces, never both.
    for (const sdk::SecurityGroup& g : resolved.securityGroups) {
      data.securityGroupIds.push_back(g.groupId);
    }
    std::sort(data.securityGroupIds.begin(), data.securityGroupIds.end());
    data.securityGroupIds.erase(
        std::unique(data.securityGroupIds.begin(), data.securityGroupIds.end()),
        data.securityGroupIds.end());
    if (data.securityGroupIds.empty()) {
      return core::fail(core::Error::invalid(
          "spec.securityGroupSelectorTerms: no security group matches the selectors"));
    }
  }
  data.capacityReservationPreference =
      settings.capacityReservationId.empty() ? "none" : "capacity-reservations-only";
  data.capacityReservationId = settings.capacityReservationId;
  data.marketType = settings.marketType;
  data.tenancy = settings.tenancy;
  data.placementGroupId = settings.placementGroupId;
  data.placementPartition = settings.placementPartition;
  out.tags = ownershipTags(cluster.name, nodeClass.metadata.name, spec.tags);
  data.resourceTags = out.tags;
  out.name = templateName(data, out.tags);
  return out;
}

std::string templateName(const sdk::LaunchTemplateData& data, const sdk::Tags& tags) {
  DataHasher h;
  h.text('i', data.imageId);
  h.text('u', data.userData);
  h.text('p', data.instanceProfileName);
  h.texts('g', data.securityGroupIds);
  h.number('b', static_cast<int64_t>(data.blockDeviceMappings.size()));
  for (const sdk::LaunchTemplateBlockDevice& d : data.blockDeviceMappings) {
    h.text('d', d.deviceName);
    h.flag('e', d.ebs.has_value());
    if (d.ebs) {
      h.flag('t', d.ebs->deleteOnTermination);
      h.flag('c', d.ebs->encrypted);
      h.number('o', d.ebs->iops);
      h.number('h', d.ebs->throughput);
      h.number('z', d.ebs->volumeSizeGiB);
      h.text('k', d.ebs->kmsKeyId);
      h.text('s', d.ebs->snapshotId);
      h.text('y', d.ebs->volumeType);
    }
  }
  h.text('m', data.metadataOptions.httpEndpoint);
  h.text('6', data.metadataOptions.httpProtocolIpv6);
  h.text('T', data.metadataOptions.httpTokens);
  h.number('H', widen(data.metadataOptions.httpPutResponseHopLimit));
  h.flag('M', data.monitoring);
  if (!data.nestedVirtualization.empty()) {
    h.text('V', data.nestedVirtualization);  // likewise only when set
  }
  h.number('n', static_cast<int64_t>(data.networkInterfaces.size()));
  for (const sdk::LaunchTemplateNetworkInterface& ni : data.networkInterfaces) {
    h.flag('C', ni.associateCarrierIpAddress);
    h.flag('P', ni.associatePublicIpAddress);
    h.flag('D', ni.deleteOnTermination);
    h.text('E', ni.description);
    h.number('I', ni.deviceIndex);
    h.number('N', widen(ni.networkCardIndex));
    h.text('Y', ni.interfaceType);
    h.number('4', widen(ni.ipv4PrefixCount));
    h.number('8', widen(ni.ipv6PrefixCount));
    h.texts('G', ni.groups);
    h.text('S', ni.subnetId);
    // Fed only when set (its own tag), so templates without it keep the names they had.
    if (ni.connectionTracking) {
      h.number('K', widen(ni.connectionTracking->tcpEstablishedTimeout));
      h.number('R', widen(ni.connectionTracking->udpStreamTimeout));
      h.number('U', widen(ni.connectionTracking->udpTimeout));
    }
  }
  h.tags('r', data.resourceTags);
  h.tags('a', tags);
  h.text('R', data.capacityReservationPreference);
  h.text('Q', data.capacityReservationId);
  h.text('K', data.marketType);
  if (!data.tenancy.empty() && data.tenancy != "default") {
    // Fed only when not the default, so default-tenancy templates keep the names they had.
    h.text('Z', data.tenancy);
  }
  if (!data.placementGroupId.empty()) {
    // Likewise only when set.
    h.text('L', data.placementGroupId);
    h.number('W', widen(data.placementPartition));
  }
  return fmt::format("{}{}", kTemplateNamePrefix, h.value());
}

}  // namespace nodewright::cloud::aws
