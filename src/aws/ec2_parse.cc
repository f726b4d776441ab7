#include "aws/ec2_parse.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/time.h"

namespace nodewright::aws::ec2xml {
namespace {

std::string text(pugi::xml_node node, const char* name) {
  return node.child_value(name);
}

std::optional<int64_t> optInteger(pugi::xml_node node, const char* name) {
  pugi::xml_node child = node.child(name);
  if (!child) {
    return std::nullopt;
  }
  std::string_view value = child.child_value();
  int64_t out = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return std::nullopt;
  }
  return out;
}

int64_t integer(pugi::xml_node node, const char* name) {
  return optInteger(node, name).value_or(0);
}

int small(pugi::xml_node node, const char* name) {
  return static_cast<int>(integer(node, name));
}

std::optional<int> optSmall(pugi::xml_node node, const char* name) {
  auto value = optInteger(node, name);
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

std::optional<double> optNumber(pugi::xml_node node, const char* name) {
  pugi::xml_node child = node.child(name);
  if (!child) {
    return std::nullopt;
  }
  std::string_view value = child.child_value();
  double out = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return std::nullopt;
  }
  return out;
}

std::optional<bool> optBoolean(pugi::xml_node node, const char* name) {
  pugi::xml_node child = node.child(name);
  if (!child) {
    return std::nullopt;
  }
  return std::string_view(child.child_value()) == "true";
}

bool boolean(pugi::xml_node node, const char* name) {
  return optBoolean(node, name).value_or(false);
}

core::TimePoint time(pugi::xml_node node, const char* name) {
  auto parsed = core::Time::parse(node.child_value(name));
  return parsed ? parsed->point() : core::TimePoint{};
}

// The element children of a list wrapper.
std::vector<pugi::xml_node> members(pugi::xml_node list) {
  std::vector<pugi::xml_node> out;
  for (pugi::xml_node child : list.children()) {
    if (child.type() == pugi::node_element) {
      out.push_back(child);
    }
  }
  return out;
}

// groupSet items carry <groupId>; launch-template groupSets hold the ids themselves.
std::vector<std::string> groupIds(pugi::xml_node groupSet) {
  std::vector<std::string> out;
  for (pugi::xml_node member : members(groupSet)) {
    out.emplace_back(member.child("groupId") ? member.child_value("groupId")
                                             : member.child_value());
  }
  return out;
}

void readNetworkInfo(pugi::xml_node net, InstanceTypeInfo& t) {
  t.maximumNetworkInterfaces = small(net, "maximumNetworkInterfaces");
  t.ipv4AddressesPerInterface = small(net, "ipv4AddressesPerInterface");
  t.ipv6AddressesPerInterface = small(net, "ipv6AddressesPerInterface");
  t.ipv6Supported = boolean(net, "ipv6Supported");
  t.defaultNetworkCardIndex = small(net, "defaultNetworkCardIndex");
  double bandwidth = 0;
  bool anyBandwidth = false;
  for (pugi::xml_node card : members(net.child("networkCards"))) {
    t.networkCards.push_back(
        {small(card, "networkCardIndex"), small(card, "maximumNetworkInterfaces")});
    if (auto gbps = optNumber(card, "baselineBandwidthInGbps")) {
      bandwidth += *gbps;
      anyBandwidth = true;
    }
  }
  // A service that lists no cards (moto) describes a single-card type.
  if (t.networkCards.empty() && t.maximumNetworkInterfaces > 0) {
    t.networkCards.push_back({0, t.maximumNetworkInterfaces});
  }
  if (anyBandwidth) {
    t.networkBaselineBandwidthGbps = bandwidth;
  }
  t.efaSupported = boolean(net, "efaSupported");
  t.maximumEfaInterfaces = small(net.child("efaInfo"), "maximumEfaInterfaces");
  t.encryptionInTransitSupported = boolean(net, "encryptionInTransitSupported");
  t.networkPerformance = text(net, "networkPerformance");
}

void readAccelerators(pugi::xml_node item, InstanceTypeInfo& t) {
  pugi::xml_node gpuInfo = item.child("gpuInfo");
  int64_t gpuMemory = 0;
  for (pugi::xml_node gpu : members(gpuInfo.child("gpus"))) {
    const int count = small(gpu, "count");
    t.gpuCount += count;
    if (t.gpuName.empty()) {
      t.gpuName = text(gpu, "name");
      t.gpuManufacturer = text(gpu, "manufacturer");
    }
    gpuMemory += count * integer(gpu.child("memoryInfo"), "sizeInMiB");
  }
  t.gpuTotalMemoryMiB = optInteger(gpuInfo, "totalGpuMemoryInMiB").value_or(gpuMemory);
  // Inferentia and Trainium: neuronInfo where EC2 has it, the older inferenceAcceleratorInfo
  // (members are <member>) otherwise.
  for (pugi::xml_node device : members(item.child("neuronInfo").child("neuronDevices"))) {
    const int count = small(device, "count");
    t.acceleratorCount += count;
    t.neuronDeviceCount += count;
    if (t.acceleratorName.empty()) {
      t.acceleratorName = text(device, "name");
      t.acceleratorManufacturer = "AWS";
      t.neuronCoreCount = count * small(device.child("coreInfo"), "count");
    }
  }
  if (t.acceleratorCount == 0) {
    for (pugi::xml_node a : members(item.child("inferenceAcceleratorInfo").child("accelerators"))) {
      t.acceleratorCount += small(a, "count");
      if (t.acceleratorName.empty()) {
        t.acceleratorName = text(a, "name");
        t.acceleratorManufacturer = text(a, "manufacturer");
      }
    }
  }
}

LaunchTemplateNetworkInterface launchTemplateInterface(pugi::xml_node item) {
  LaunchTemplateNetworkInterface ni;
  ni.associateCarrierIpAddress = optBoolean(item, "associateCarrierIpAddress");
  ni.associatePublicIpAddress = optBoolean(item, "associatePublicIpAddress");
  ni.deleteOnTermination = optBoolean(item, "deleteOnTermination");
  ni.description = text(item, "description");
  ni.deviceIndex = small(item, "deviceIndex");
  ni.networkCardIndex = optSmall(item, "networkCardIndex");
  ni.interfaceType = text(item, "interfaceType");
  ni.ipv4PrefixCount = optSmall(item, "ipv4PrefixCount");
  ni.ipv6PrefixCount = optSmall(item, "ipv6PrefixCount");
  ni.groups = groupIds(item.child("groupSet"));
  ni.subnetId = text(item, "subnetId");
  return ni;
}

LaunchTemplateBlockDevice blockDevice(pugi::xml_node item) {
  LaunchTemplateBlockDevice bdm;
  bdm.deviceName = text(item, "deviceName");
  if (pugi::xml_node ebs = item.child("ebs")) {
    EbsBlockDevice e;
    e.deleteOnTermination = optBoolean(ebs, "deleteOnTermination");
    e.encrypted = optBoolean(ebs, "encrypted");
    e.iops = optInteger(ebs, "iops");
    e.throughput = optInteger(ebs, "throughput");
    e.volumeSizeGiB = optInteger(ebs, "volumeSize");
    e.kmsKeyId = text(ebs, "kmsKeyId");
    e.snapshotId = text(ebs, "snapshotId");
    e.volumeType = text(ebs, "volumeType");
    bdm.ebs = e;
  }
  return bdm;
}

struct PoolOverride {
  std::string instanceType;
  std::string subnetId;
  std::string availabilityZone;
};

PoolOverride poolOverride(pugi::xml_node item, const FleetRequest& request) {
  pugi::xml_node o = item.child("launchTemplateAndOverrides").child("overrides");
  PoolOverride p{text(o, "instanceType"), text(o, "subnetId"), text(o, "availabilityZone")};
  if (p.availabilityZone.empty()) {
    for (const FleetLaunchTemplateConfig& config : request.launchTemplateConfigs) {
      for (const FleetOverride& sent : config.overrides) {
        if (sent.instanceType == p.instanceType && sent.subnetId == p.subnetId) {
          p.availabilityZone = sent.availabilityZone;
        }
      }
    }
  }
  return p;
}

}  // namespace

std::vector<std::string> strings(pugi::xml_node list) {
  std::vector<std::string> out;
  for (pugi::xml_node member : members(list)) {
    out.emplace_back(member.child_value());
  }
  return out;
}

Tags tags(pugi::xml_node parent) {
  Tags out;
  for (pugi::xml_node item : members(parent.child("tagSet"))) {
    out[item.child_value("key")] = item.child_value("value");
  }
  return out;
}

InstanceTypeInfo instanceType(pugi::xml_node item) {
  InstanceTypeInfo t;
  t.instanceType = text(item, "instanceType");
  pugi::xml_node processor = item.child("processorInfo");
  t.architectures = strings(processor.child("supportedArchitectures"));
  t.cpuManufacturer = text(processor, "manufacturer");
  t.processorFeatures = strings(processor.child("supportedFeatures"));
  t.sustainedClockSpeedGhz = optNumber(processor, "sustainedClockSpeedInGhz");
  t.defaultVCpus = small(item.child("vCpuInfo"), "defaultVCpus");
  t.memoryMiB = integer(item.child("memoryInfo"), "sizeInMiB");
  t.hypervisor = text(item, "hypervisor");
  t.bareMetal = boolean(item, "bareMetal");
  t.supportedUsageClasses = strings(item.child("supportedUsageClasses"));
  t.supportedVirtualizationTypes = strings(item.child("supportedVirtualizationTypes"));
  readNetworkInfo(item.child("networkInfo"), t);
  readAccelerators(item, t);
  pugi::xml_node storage = item.child("instanceStorageInfo");
  t.instanceStorageGB = integer(storage, "totalSizeInGB");
  t.nvmeInstanceStorage = t.instanceStorageGB > 0 && text(storage, "nvmeSupport") != "unsupported";
  t.ebsMaximumBandwidthMbps =
      optInteger(item.child("ebsInfo").child("ebsOptimizedInfo"), "maximumBandwidthInMbps");
  return t;
}

InstanceTypeOffering instanceTypeOffering(pugi::xml_node item) {
  return {text(item, "instanceType"), text(item, "location")};
}

AvailabilityZone availabilityZone(pugi::xml_node item) {
  return {text(item, "zoneName"), text(item, "zoneId"), text(item, "zoneState")};
}

Subnet subnet(pugi::xml_node item) {
  Subnet s;
  s.subnetId = text(item, "subnetId");
  s.vpcId = text(item, "vpcId");
  s.availabilityZone = text(item, "availabilityZone");
  s.availabilityZoneId = text(item, "availabilityZoneId");
  s.cidrBlock = text(item, "cidrBlock");
  s.availableIpAddressCount = integer(item, "availableIpAddressCount");
  s.mapPublicIpOnLaunch = boolean(item, "mapPublicIpOnLaunch");
  s.tags = tags(item);
  return s;
}

SecurityGroup securityGroup(pugi::xml_node item) {
  return {text(item, "groupId"), text(item, "groupName"), text(item, "vpcId"), tags(item)};
}

Image image(pugi::xml_node item) {
  Image i;
  i.imageId = text(item, "imageId");
  i.name = text(item, "name");
  i.ownerId = text(item, "imageOwnerId");
  i.architecture = text(item, "architecture");
  i.state = text(item, "imageState");
  i.creationDate = text(item, "creationDate");
  i.deprecationTime = text(item, "deprecationTime");
  i.tags = tags(item);
  return i;
}

SpotPrice spotPrice(pugi::xml_node item) {
  return {text(item, "instanceType"), text(item, "availabilityZone"),
          optNumber(item, "spotPrice").value_or(0), time(item, "timestamp")};
}

LaunchTemplate launchTemplate(pugi::xml_node item) {
  LaunchTemplate lt;
  lt.launchTemplateId = text(item, "launchTemplateId");
  lt.launchTemplateName = text(item, "launchTemplateName");
  lt.defaultVersionNumber = optInteger(item, "defaultVersionNumber").value_or(1);
  lt.latestVersionNumber = optInteger(item, "latestVersionNumber").value_or(1);
  lt.createTime = time(item, "createTime");
  lt.tags = tags(item);
  return lt;
}

LaunchTemplateData launchTemplateData(pugi::xml_node data) {
  LaunchTemplateData d;
  d.imageId = text(data, "imageId");
  d.userData = text(data, "userData");
  d.instanceProfileName = text(data.child("iamInstanceProfile"), "name");
  d.securityGroupIds = strings(data.child("securityGroupIdSet"));
  for (pugi::xml_node item : members(data.child("blockDeviceMappingSet"))) {
    d.blockDeviceMappings.push_back(blockDevice(item));
  }
  pugi::xml_node m = data.child("metadataOptions");
  d.metadataOptions.httpEndpoint = text(m, "httpEndpoint");
  d.metadataOptions.httpProtocolIpv6 = text(m, "httpProtocolIpv6");
  d.metadataOptions.httpTokens = text(m, "httpTokens");
  d.metadataOptions.httpPutResponseHopLimit = optSmall(m, "httpPutResponseHopLimit");
  d.monitoring = optBoolean(data.child("monitoring"), "enabled");
  d.tenancy = text(data.child("placement"), "tenancy");
  d.placementGroupId = text(data.child("placement"), "groupId");
  d.placementPartition = optSmall(data.child("placement"), "partitionNumber");
  for (pugi::xml_node item : members(data.child("networkInterfaceSet"))) {
    d.networkInterfaces.push_back(launchTemplateInterface(item));
  }
  for (pugi::xml_node spec : members(data.child("tagSpecificationSet"))) {
    if (text(spec, "resourceType") == "instance") {
      d.resourceTags = tags(spec);
    }
  }
  return d;
}

Instance instance(pugi::xml_node item) {
  Instance i;
  i.instanceId = text(item, "instanceId");
  i.instanceType = text(item, "instanceType");
  i.imageId = text(item, "imageId");
  i.availabilityZone = text(item.child("placement"), "availabilityZone");
  i.tenancy = text(item.child("placement"), "tenancy");
  i.placementGroupId = text(item.child("placement"), "groupId");
  i.partitionNumber = optSmall(item.child("placement"), "partitionNumber");
  i.platform = text(item, "platform");
  i.subnetId = text(item, "subnetId");
  i.vpcId = text(item, "vpcId");
  i.state = text(item.child("instanceState"), "name");
  i.privateIpAddress = text(item, "privateIpAddress");
  i.privateDnsName = text(item, "privateDnsName");
  i.publicIpAddress = text(item, "ipAddress");
  i.lifecycle = text(item, "instanceLifecycle");
  i.capacityReservationId = text(item, "capacityReservationId");
  i.capacityReservationPreference =
      text(item.child("capacityReservationSpecification"), "capacityReservationPreference");
  i.launchTime = time(item, "launchTime");
  i.securityGroupIds = groupIds(item.child("groupSet"));
  for (pugi::xml_node ni : members(item.child("networkInterfaceSet"))) {
    pugi::xml_node attachment = ni.child("attachment");
    i.networkInterfaces.push_back({text(ni, "networkInterfaceId"), text(ni, "subnetId"),
                                   small(attachment, "deviceIndex"),
                                   small(attachment, "networkCardIndex"), text(ni, "interfaceType"),
                                   groupIds(ni.child("groupSet"))});
  }
  i.tags = tags(item);
  return i;
}

CapacityReservation capacityReservation(pugi::xml_node item) {
  CapacityReservation r;
  r.capacityReservationId = text(item, "capacityReservationId");
  r.ownerId = text(item, "ownerId");
  r.instanceType = text(item, "instanceType");
  r.availabilityZone = text(item, "availabilityZone");
  r.availabilityZoneId = text(item, "availabilityZoneId");
  r.totalInstanceCount = integer(item, "totalInstanceCount");
  r.availableInstanceCount = integer(item, "availableInstanceCount");
  r.state = text(item, "state");
  r.instanceMatchCriteria = text(item, "instanceMatchCriteria");
  r.reservationType = text(item, "reservationType");
  if (item.child("endDate")) {
    r.endDate = time(item, "endDate");
  }
  r.interruptible = optBoolean(item, "interruptible").value_or(false);
  r.tags = tags(item);
  return r;
}

PlacementGroup placementGroup(pugi::xml_node item) {
  PlacementGroup g;
  g.groupId = text(item, "groupId");
  g.groupName = text(item, "groupName");
  g.strategy = text(item, "strategy");
  g.state = text(item, "state");
  g.partitionCount = optSmall(item, "partitionCount").value_or(0);
  g.spreadLevel = text(item, "spreadLevel");
  g.tags = tags(item);
  return g;
}

InstanceStateChange stateChange(pugi::xml_node item) {
  return {text(item, "instanceId"), text(item.child("previousState"), "name"),
          text(item.child("currentState"), "name")};
}

FleetResult fleetResult(pugi::xml_node root, const FleetRequest& request) {
  FleetResult r;
  r.fleetId = text(root, "fleetId");
  for (pugi::xml_node item : members(root.child("errorSet"))) {
    PoolOverride pool = poolOverride(item, request);
    r.errors.push_back({pool.instanceType, pool.subnetId, pool.availabilityZone,
                        text(item, "errorCode"), text(item, "errorMessage")});
  }
  for (pugi::xml_node item : members(root.child("fleetInstanceSet"))) {
    std::vector<std::string> ids = strings(item.child("instanceIds"));
    if (r.instanceIds.empty()) {
      PoolOverride pool = poolOverride(item, request);
      r.instanceType = text(item, "instanceType");
      if (r.instanceType.empty()) {
        r.instanceType = pool.instanceType;
      }
      r.subnetId = pool.subnetId;
      r.availabilityZone = pool.availabilityZone;
      r.lifecycle = text(item, "lifecycle");
    }
    r.instanceIds.insert(r.instanceIds.end(), ids.begin(), ids.end());
  }
  return r;
}

}  // namespace nodewright::aws::ec2xml
