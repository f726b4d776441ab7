#include "emulators/ec2/instance.h"

#include <fmt/format.h>

#include <algorithm>

#include "aws/xml.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/xml_names.h"

namespace nodewright::emulators::ec2 {
namespace {

bool isGone(std::string_view state) {
  return state == instance_state::kTerminated;
}

void renderGroups(pugi::xml_node parent, const std::vector<GroupRef>& groups) {
  pugi::xml_node set = addElement(parent, "groupSet");
  for (const GroupRef& g : groups) {
    pugi::xml_node item = addItem(set);
    addText(item, "groupId", g.id);
    addText(item, "groupName", g.name);
  }
}

std::string publicDnsName(const InstanceAttributes& a, const std::string& ip) {
  std::string dashed = ip;
  std::replace(dashed.begin(), dashed.end(), '.', '-');
  // us-east-1 names its public hosts compute-1.amazonaws.com; other regions
  // <region>.compute.amazonaws.com.
  if (a.dnsSuffix == "ec2.internal") {
    return "ec2-" + dashed + ".compute-1.amazonaws.com";
  }
  std::string region = a.dnsSuffix.substr(0, a.dnsSuffix.find('.'));
  return "ec2-" + dashed + "." + region + ".compute.amazonaws.com";
}

void renderAssociation(pugi::xml_node parent, const InstanceAttributes& a, const std::string& ip) {
  pugi::xml_node assoc = addElement(parent, "association");
  addText(assoc, "publicIp", ip);
  addText(assoc, "publicDnsName", publicDnsName(a, ip));
  addText(assoc, "ipOwnerId", "amazon");
}

std::string ipDnsName(const InstanceAttributes& a, const std::string& ip) {
  if (ip.empty()) {
    return "";
  }
  std::string dashed = ip;
  std::replace(dashed.begin(), dashed.end(), '.', '-');
  return "ip-" + dashed + "." + a.dnsSuffix;
}

void renderInterface(pugi::xml_node item, const Resource& r, const InstanceAttributes& a,
                     const InstanceInterface& ni) {
  addText(item, "networkInterfaceId", ni.id);
  addText(item, "subnetId", ni.subnetId);
  addText(item, "vpcId", ni.vpcId);
  addText(item, "description", ni.description);
  addText(item, "ownerId", a.ownerId);
  addText(item, "status", "in-use");
  addText(item, "macAddress", ni.macAddress);
  if (!ni.privateIp.empty()) {
    addText(item, "privateIpAddress", ni.privateIp);
    addText(item, "privateDnsName", ipDnsName(a, ni.privateIp));
  }
  addBool(item, "sourceDestCheck", true);
  renderGroups(item, ni.groups);
  pugi::xml_node attachment = addElement(item, "attachment");
  addText(attachment, "attachmentId", attachmentIdOf(ni));
  addInt(attachment, "deviceIndex", ni.deviceIndex);
  addText(attachment, "status",
          r.state == instance_state::kShuttingDown ? "detaching" : "attached");
  addTime(attachment, "attachTime", r.created);
  addBool(attachment, "deleteOnTermination", ni.deleteOnTermination);
  addInt(attachment, "networkCardIndex", ni.networkCardIndex);
  if (ni.publicIp) {
    renderAssociation(item, a, *ni.publicIp);
  }
  if (!ni.privateIp.empty()) {
    pugi::xml_node ips = addElement(item, "privateIpAddressesSet");
    pugi::xml_node primary = addItem(ips);
    addText(primary, "privateIpAddress", ni.privateIp);
    addText(primary, "privateDnsName", ipDnsName(a, ni.privateIp));
    addBool(primary, "primary", true);
    if (ni.publicIp) {
      renderAssociation(primary, a, *ni.publicIp);
    }
    for (const std::string& ip : ni.secondaryIps) {
      pugi::xml_node secondary = addItem(ips);
      addText(secondary, "privateIpAddress", ip);
      addText(secondary, "privateDnsName", ipDnsName(a, ip));
      addBool(secondary, "primary", false);
    }
  }
  if (!ni.ipv4Prefixes.empty()) {
    pugi::xml_node prefixes = addElement(item, "ipv4PrefixSet");
    for (const std::string& prefix : ni.ipv4Prefixes) {
      addText(addItem(prefixes), "ipv4Prefix", prefix);
    }
  }
  addText(item, "interfaceType", ni.interfaceType);
}

void renderVolumes(pugi::xml_node item, const Resource& r, const InstanceAttributes& a) {
  pugi::xml_node set = addElement(item, "blockDeviceMapping");
  for (const InstanceVolume& v : a.volumes) {
    pugi::xml_node mapping = addItem(set);
    addText(mapping, "deviceName", v.deviceName);
    pugi::xml_node ebs = addElement(mapping, "ebs");
    addText(ebs, "volumeId", v.volumeId);
    addText(ebs, "status", "attached");
    addTime(ebs, "attachTime", r.created);
    addBool(ebs, "deleteOnTermination", v.deleteOnTermination);
  }
}

void renderOptions(pugi::xml_node item, const Resource& r, const InstanceAttributes& a) {
  pugi::xml_node cr = addElement(item, "capacityReservationSpecification");
  addText(cr, "capacityReservationPreference", a.capacityReservationPreference);
  addBool(addElement(item, "hibernationOptions"), "configured", false);
  pugi::xml_node m = addElement(item, "metadataOptions");
  addText(m, "state", r.state == instance_state::kPending ? "pending" : "applied");
  addText(m, "httpTokens", a.metadataOptions.httpTokens.value_or("optional"));
  addInt(m, "httpPutResponseHopLimit", a.metadataOptions.httpPutResponseHopLimit.value_or(1));
  addText(m, "httpEndpoint", a.metadataOptions.httpEndpoint.value_or("enabled"));
  addText(m, "httpProtocolIpv6", a.metadataOptions.httpProtocolIpv6.value_or("disabled"));
  addText(m, "instanceMetadataTags", a.metadataOptions.instanceMetadataTags.value_or("disabled"));
  addBool(addElement(item, "enclaveOptions"), "enabled", false);
  // As the image's: Windows instances carry platform "windows" and bill as RunInstances:0002.
  const bool windows = a.platformDetails.starts_with("Windows");
  if (windows) {
    addText(item, "platform", "windows");
  }
  addText(item, "platformDetails", a.platformDetails);
  addText(item, "usageOperation", windows ? "RunInstances:0002" : "RunInstances");
  pugi::xml_node dns = addElement(item, "privateDnsNameOptions");
  addText(dns, "hostnameType", a.hostnameType);
  addBool(dns, "enableResourceNameDnsARecord", false);
  addBool(dns, "enableResourceNameDnsAAAARecord", false);
  addText(addElement(item, "maintenanceOptions"), "autoRecovery", "default");
}

// Why the instance is in its state: EC2 says "pending" while it launches, and words a
// TerminateInstances call as below; a running instance has no reason.
void renderStateReason(pugi::xml_node item, const Resource& r) {
  if (r.state == instance_state::kPending) {
    addText(item, "reason", "");
    pugi::xml_node reason = addElement(item, "stateReason");
    addText(reason, "code", "pending");
    addText(reason, "message", "pending");
    return;
  }
  if (r.state != instance_state::kShuttingDown && !isGone(r.state)) {
    addText(item, "reason", "");
    return;
  }
  addText(item, "reason", "User initiated");
  pugi::xml_node reason = addElement(item, "stateReason");
  addText(reason, "code", "Client.UserInitiatedShutdown");
  addText(reason, "message", "Client.UserInitiatedShutdown: User initiated shutdown");
}

}  // namespace

std::string attachmentIdOf(const InstanceInterface& ni) {
  return "eni-attach-" + ni.id.substr(ni.id.find('-') + 1);
}

int instance_state::code(std::string_view state) {
  if (state == kPending) {
    return 0;
  }
  if (state == kRunning) {
    return 16;
  }
  if (state == kShuttingDown) {
    return 32;
  }
  if (state == kTerminated) {
    return 48;
  }
  if (state == "stopping") {
    return 64;
  }
  return state == "stopped" ? 80 : 0;
}

std::string InstanceAttributes::privateDnsName(std::string_view instanceId) const {
  if (hostnameType == "resource-name") {
    return std::string(instanceId) + "." + dnsSuffix;
  }
  return ipDnsName(*this, privateIp);
}

void renderState(pugi::xml_node parent, const char* element, std::string_view state) {
  pugi::xml_node node = addElement(parent, element);
  addInt(node, "code", instance_state::code(state));
  addText(node, "name", state);
}

void renderInstance(pugi::xml_node item, const Resource& r) {
  const auto* a = r.as<InstanceAttributes>();
  const bool gone = isGone(r.state);
  addText(item, "instanceId", r.id);
  addText(item, "imageId", a->imageId);
  renderState(item, "instanceState", r.state);
  addText(item, "privateDnsName", gone ? "" : a->privateDnsName(r.id));
  addText(item, "dnsName", !gone && a->publicIp ? publicDnsName(*a, *a->publicIp) : "");
  renderStateReason(item, r);
  if (!a->keyName.empty()) {
    addText(item, "keyName", a->keyName);
  }
  addInt(item, "amiLaunchIndex", a->amiLaunchIndex);
  addElement(item, "productCodes");
  addText(item, "instanceType", a->instanceType);
  addTime(item, "launchTime", r.created);
  pugi::xml_node placement = addElement(item, "placement");
  addText(placement, "availabilityZoneId", a->zoneId);
  addText(placement, "groupName", a->placementGroupName);
  if (!a->placementGroupId.empty()) {
    addText(placement, "groupId", a->placementGroupId);
  }
  if (a->partitionNumber) {
    addInt(placement, "partitionNumber", *a->partitionNumber);
  }
  addText(placement, "tenancy", a->tenancy);
  addText(placement, "availabilityZone", a->zone);
  addText(addElement(item, "monitoring"), "state", a->monitoring ? "enabled" : "disabled");
  if (!gone) {
    addText(item, "subnetId", a->subnetId);
    addText(item, "vpcId", a->vpcId);
    if (!a->privateIp.empty()) {
      addText(item, "privateIpAddress", a->privateIp);
    }
    if (a->publicIp) {
      addText(item, "ipAddress", *a->publicIp);
    }
    addBool(item, "sourceDestCheck", true);
  }
  renderGroups(item, gone ? std::vector<GroupRef>{} : a->groups);
  addText(item, "architecture", architectureName(a->architecture));
  addText(item, "rootDeviceType", "ebs");
  addText(item, "rootDeviceName", a->rootDeviceName);
  renderVolumes(item, r, *a);
  if (a->lifecycle == "spot") {
    addText(item, "instanceLifecycle", "spot");
    addText(item, "spotInstanceRequestId", a->spotInstanceRequestId);
  } else if (a->lifecycle != "on-demand") {
    addText(item, "instanceLifecycle", a->lifecycle);  // capacity-block, interruptible-...
  }
  if (!a->capacityReservationId.empty()) {
    addText(item, "capacityReservationId", a->capacityReservationId);
  }
  addText(item, "virtualizationType", "hvm");
  addText(item, "clientToken", a->clientToken);
  addTagSet(item, r.tags);
  addText(item, "hypervisor", "xen");
  pugi::xml_node interfaces = addElement(item, "networkInterfaceSet");
  if (!gone) {
    for (const InstanceInterface& ni : a->interfaces) {
      renderInterface(addItem(interfaces), r, *a, ni);
    }
  }
  if (a->iamInstanceProfileArn) {
    pugi::xml_node profile = addElement(item, "iamInstanceProfile");
    addText(profile, "arn", *a->iamInstanceProfileArn);
    addText(profile, "id", a->iamInstanceProfileId);
  }
  addBool(item, "ebsOptimized", a->ebsOptimized);
  addBool(item, "enaSupport", true);
  renderOptions(item, r, *a);
}

void renderReservation(pugi::xml_node item, std::string_view reservationId,
                       std::string_view ownerId, const std::vector<Resource>& instances) {
  addText(item, "reservationId", reservationId);
  addText(item, "ownerId", ownerId);
  const auto* first = instances.empty() ? nullptr : instances.front().as<InstanceAttributes>();
  if (first != nullptr && !first->fleetId.empty()) {
    // GUESS: EC2 Fleet launches on the account's behalf; the principal is ours.
    addText(item, "requesterId", "AIDAEMULATORFLEET00001");
  }
  addElement(item, "groupSet");
  pugi::xml_node set = addElement(item, "instancesSet");
  for (const Resource& r : instances) {
    renderInstance(addItem(set), r);
  }
}

std::vector<std::string> instanceFilterValues(const Resource& r, std::string_view name) {
  const auto* a = r.as<InstanceAttributes>();
  if (a == nullptr) {
    return {};
  }
  auto perInterface = [&](auto value) {
    std::vector<std::string> out;
    for (const InstanceInterface& ni : a->interfaces) {
      out.push_back(value(ni));
    }
    return out;
  };
  auto one = [](std::string v) {
    return v.empty() ? std::vector<std::string>{} : std::vector<std::string>{std::move(v)};
  };
  if (name == "instance-id") {
    return {r.id};
  }
  if (name == "instance-state-name") {
    return {r.state};
  }
  if (name == "instance-state-code") {
    return {std::to_string(instance_state::code(r.state))};
  }
  if (name == "instance-type") {
    return {a->instanceType};
  }
  if (name == "availability-zone") {
    return {a->zone};
  }
  if (name == "subnet-id") {
    return one(a->subnetId);
  }
  if (name == "vpc-id") {
    return one(a->vpcId);
  }
  if (name == "image-id") {
    return {a->imageId};
  }
  if (name == "instance-lifecycle") {
    return a->lifecycle == "on-demand" ? std::vector<std::string>{}
                                       : std::vector<std::string>{a->lifecycle};
  }
  if (name == "client-token") {
    return one(a->clientToken);
  }
  if (name == "reservation-id") {
    return {a->reservationId};
  }
  if (name == "private-ip-address") {
    return one(a->privateIp);
  }
  if (name == "private-dns-name") {
    return one(a->privateDnsName(r.id));
  }
  if (name == "ip-address") {
    return one(a->publicIp.value_or(""));
  }
  if (name == "architecture") {
    return {std::string(architectureName(a->architecture))};
  }
  if (name == "network-interface.network-card-index") {
    return perInterface([](const auto& ni) { return std::to_string(ni.networkCardIndex); });
  }
  if (name == "network-interface.network-interface-id") {
    return perInterface([](const auto& ni) { return ni.id; });
  }
  if (name == "network-interface.interface-type") {
    return perInterface([](const auto& ni) { return ni.interfaceType; });
  }
  if (name == "instance.group-id") {
    std::vector<std::string> out;
    for (const GroupRef& g : a->groups) {
      out.push_back(g.id);
    }
    return out;
  }
  if (name == "tenancy") {
    return {a->tenancy};
  }
  if (name == "placement-group-name") {
    return one(a->placementGroupName);
  }
  if (name == "placement-partition-number" && a->partitionNumber) {
    return {std::to_string(*a->partitionNumber)};
  }
  if (name == "key-name") {
    return one(a->keyName);
  }
  if (name == "spot-instance-request-id") {
    return one(a->spotInstanceRequestId);
  }
  return {};
}

}  // namespace nodewright::emulators::ec2
