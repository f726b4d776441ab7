#include "emulators/ec2/instance_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "core/hash.h"
#include "emulators/ec2/resources.h"

namespace nodewright::emulators::ec2 {
namespace {

uint64_t hashOf(std::string_view kind, std::string_view reservation, int64_t index,
                int64_t slot = 0) {
  core::Hasher h;
  h.addString(kind);
  h.addString(reservation);
  h.addU64(static_cast<uint64_t>(index));
  h.addU64(static_cast<uint64_t>(slot));
  return h.value();
}

// "eni-0123456789abcdef0": EC2's 17 hex digits, the first a zero as in the world's ids.
std::string hexId(std::string_view prefix, uint64_t h) {
  return fmt::format("{}-0{:016x}", prefix, h);
}

std::string macAddress(uint64_t h) {
  return fmt::format("0a:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", (h >> 8) & 0xFF, (h >> 16) & 0xFF,
                     (h >> 24) & 0xFF, (h >> 32) & 0xFF, (h >> 40) & 0xFF);
}

// An address in 3.0.0.0/8 (AWS's), never the network or broadcast address of a /24.
std::string publicIp(uint64_t h) {
  return fmt::format("3.{}.{}.{}", (h >> 8) & 0xFF, (h >> 16) & 0xFF, 1 + (h >> 24) % 254);
}

std::string base36(uint64_t h, int digits) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string out;
  for (int i = 0; i < digits; ++i) {
    out += kDigits[h % 36];
    h /= 36;
  }
  return out;
}

std::string upperBase32(uint64_t h, int digits) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  for (int i = 0; i < digits; ++i) {
    out += kDigits[h % 32];
    h /= 32;
  }
  return out;
}

std::string dnsSuffix(const std::string& region) {
  return region == "us-east-1" ? "ec2.internal" : region + ".compute.internal";
}

MetadataOptionsSpec metadataDefaults(const std::optional<MetadataOptionsSpec>& requested) {
  MetadataOptionsSpec m = requested.value_or(MetadataOptionsSpec{});
  m.httpTokens = m.httpTokens.value_or("optional");
  m.httpPutResponseHopLimit = m.httpPutResponseHopLimit.value_or(1);
  m.httpEndpoint = m.httpEndpoint.value_or("enabled");
  m.httpProtocolIpv6 = m.httpProtocolIpv6.value_or("disabled");
  m.instanceMetadataTags = m.instanceMetadataTags.value_or("disabled");
  return m;
}

}  // namespace

InstanceBuilder::InstanceBuilder(ActionContext& ctx, const LaunchPlan& plan, const Resource& image,
                                 const Resource& subnet, std::vector<GroupRef> groups,
                                 std::vector<std::vector<GroupRef>> interfaceGroups,
                                 std::vector<NetworkInterfaceSpec> interfaces,
                                 std::string reservationId)
    : ctx_(ctx),
      plan_(plan),
      interfaceGroups_(std::move(interfaceGroups)),
      interfaces_(std::move(interfaces)),
      reservationId_(std::move(reservationId)) {
  const LaunchTemplateData& d = plan.data;
  InstanceAttributes& a = common_;
  a.instanceType = d.instanceType.value_or("");
  a.imageId = image.id;
  const auto* img = image.as<ImageAttributes>();
  if (img != nullptr) {
    a.architecture = img->architecture;
    a.rootDeviceName = img->rootDeviceName;
    a.platformDetails = img->platformDetails;
  }
  const auto* s = subnet.as<SubnetAttributes>();
  if (s != nullptr) {
    a.zone = s->zone;
    a.zoneId = s->zoneId;
    a.vpcId = s->vpcId;
    mapPublicIp_ = s->mapPublicIpOnLaunch;
  }
  a.subnetId = subnet.id;
  a.dnsSuffix = dnsSuffix(ctx.world.region);
  if (d.privateDnsNameOptions && d.privateDnsNameOptions->hostnameType) {
    a.hostnameType = *d.privateDnsNameOptions->hostnameType;
  }
  a.groups = interfaceGroups_.empty() ? std::move(groups) : interfaceGroups_.front();
  if (plan.launchTemplate) {
    a.launchTemplateId = plan.launchTemplate->id;
    a.launchTemplateName = plan.launchTemplate->name;
    a.launchTemplateVersion = plan.launchTemplate->version->number;
  }
  a.lifecycle = plan.lifecycle;
  a.reservationId = reservationId_;
  a.ownerId = ctx.world.accountId;
  a.fleetId = plan.fleetId;
  a.clientToken = plan.clientToken;
  a.metadataOptions = metadataDefaults(d.metadataOptions);
  if (d.iamInstanceProfile && (d.iamInstanceProfile->arn || d.iamInstanceProfile->name)) {
    a.iamInstanceProfileArn = d.iamInstanceProfile->arn.value_or(
        fmt::format("arn:aws:iam::{}:instance-profile/{}", ctx.world.accountId,
                    d.iamInstanceProfile->name.value_or("")));
    core::Hasher h;
    h.addString(*a.iamInstanceProfileArn);
    a.iamInstanceProfileId = "AIPA" + upperBase32(h.value(), 17);
  }
  a.keyName = d.keyName.value_or("");
  a.monitoring = d.monitoringEnabled.value_or(false);
  a.ebsOptimized = d.ebsOptimized.value_or(false);
  a.tenancy = d.tenancy.value_or("default");
  a.placementGroupId = plan.placementGroupId;
  a.placementGroupName = plan.placementGroupName;
  a.partitionNumber = plan.partitionNumber;
  if (d.capacityReservation && d.capacityReservation->preference) {
    a.capacityReservationPreference = *d.capacityReservation->preference;
  }
  a.capacityReservationId = plan.capacityReservationId;

  tags_ = tagsFor(d.tagSpecifications, "instance");
  // EC2 adds these itself; they show which template and fleet an instance came from.
  if (plan.launchTemplate) {
    setTags(tags_, {{"aws:ec2launchtemplate:id", a.launchTemplateId},
                    {"aws:ec2launchtemplate:version", std::to_string(a.launchTemplateVersion)}});
  }
  if (!plan.fleetId.empty()) {
    setTags(tags_, {{"aws:ec2:fleet-id", plan.fleetId}});
  }
}

bool InstanceBuilder::wantsPublicIp() const {
  const NetworkInterfaceSpec& primary = interfaces_.front();
  if (primary.associatePublicIpAddress) {
    return *primary.associatePublicIpAddress;
  }
  return mapPublicIp_ && interfaces_.size() == 1;
}

InstanceInterface InstanceBuilder::buildInterface(int64_t index, size_t slot,
                                                  const InterfaceAddressing& addressing) const {
  const NetworkInterfaceSpec& spec = interfaces_[slot];
  InstanceInterface ni;
  const uint64_t h = hashOf("eni", reservationId_, index, static_cast<int64_t>(slot));
  ni.id = hexId("eni", h);
  ni.macAddress = macAddress(h);
  ni.subnetId = addressing.subnetId;
  ni.vpcId = spec.subnet ? spec.subnet->vpcId : common_.vpcId;
  ni.deviceIndex = spec.deviceIndex;
  ni.networkCardIndex = spec.networkCardIndex;
  ni.interfaceType = spec.interfaceType;
  ni.deleteOnTermination = spec.deleteOnTermination;
  if (slot < plan_.data.networkInterfaces.size()) {
    ni.description = plan_.data.networkInterfaces[slot].description.value_or("");
  }
  const InterfaceAddresses& got = addressing.addresses;
  for (size_t k = 0; k < got.singles.size(); ++k) {
    std::string ip = formatAddress(addressing.cidrBlock, got.singles[k]);
    if (k == 0) {
      ni.privateIp = std::move(ip);
    } else {
      ni.secondaryIps.push_back(std::move(ip));
    }
  }
  for (uint32_t offset : got.prefixes) {
    ni.ipv4Prefixes.push_back(formatPrefix(addressing.cidrBlock, offset));
  }
  ni.groups = slot < interfaceGroups_.size() ? interfaceGroups_[slot] : common_.groups;
  return ni;
}

NewResource InstanceBuilder::build(int64_t index, const InstanceAddressing& addressing) {
  auto a = std::make_shared<InstanceAttributes>(common_);
  a->amiLaunchIndex = index;
  for (size_t slot = 0; slot < interfaces_.size(); ++slot) {
    a->interfaces.push_back(buildInterface(index, slot, addressing.interfaces[slot]));
  }
  const InstanceInterface& primary = a->interfaces.front();
  a->privateIp = primary.privateIp;
  if (wantsPublicIp()) {
    a->publicIp = publicIp(hashOf("public-ip", reservationId_, index));
    a->interfaces.front().publicIp = a->publicIp;
  }
  for (const BlockDeviceMappingSpec& bdm : plan_.data.blockDeviceMappings) {
    if (bdm.ebs) {
      a->volumes.push_back({bdm.deviceName,
                            hexId("vol", hashOf(bdm.deviceName, reservationId_, index)),
                            bdm.ebs->deleteOnTermination.value_or(true)});
    }
  }
  if (std::none_of(a->volumes.begin(), a->volumes.end(),
                   [&](const InstanceVolume& v) { return v.deviceName == a->rootDeviceName; })) {
    a->volumes.insert(
        a->volumes.begin(),
        {a->rootDeviceName, hexId("vol", hashOf(a->rootDeviceName, reservationId_, index)), true});
  }
  if (a->lifecycle == "spot") {
    a->spotInstanceRequestId = "sir-" + base36(hashOf("sir", reservationId_, index), 8);
  }
  a->leases = addressing.leases;

  NewResource spec;
  spec.type = std::string(kind::kInstance);
  spec.idPrefix = "i";
  spec.idHexDigits = 17;
  spec.state = std::string(instance_state::kPending);
  spec.next = Transition{.to = std::string(instance_state::kRunning),
                         .at = ctx_.engine.dueAfter(kLaunchOp),
                         .keepFor = std::nullopt};
  spec.tags = tags_;
  spec.attributes = std::move(a);
  return spec;
}

}  // namespace nodewright::emulators::ec2
