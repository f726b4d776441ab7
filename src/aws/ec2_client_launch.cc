// Ec2Client's launch templates, fleets, instances and tags.
#include <fmt/format.h>

#include "aws/ec2_client.h"
#include "aws/ec2_parse.h"
#include "aws/query_builder.h"

namespace nodewright::aws {
namespace {

constexpr int kLaunchTemplatesPage = 200;
constexpr int kInstancesPage = 1000;

using TagList = std::vector<std::pair<std::string, std::string>>;

TagList tagList(const Tags& tags) {
  return TagList(tags.begin(), tags.end());
}

template <class T>
void setIf(ParamBuilder& b, std::string_view name, const std::optional<T>& value) {
  if (value) {
    b.set(name, *value);
  }
}

void addInterface(ParamBuilder b, const LaunchTemplateNetworkInterface& ni) {
  setIf(b, "AssociateCarrierIpAddress", ni.associateCarrierIpAddress);
  setIf(b, "AssociatePublicIpAddress", ni.associatePublicIpAddress);
  setIf(b, "DeleteOnTermination", ni.deleteOnTermination);
  b.setIfNotEmpty("Description", ni.description);
  b.set("DeviceIndex", ni.deviceIndex);
  setIf(b, "NetworkCardIndex", ni.networkCardIndex);
  b.setIfNotEmpty("InterfaceType", ni.interfaceType);
  setIf(b, "Ipv4PrefixCount", ni.ipv4PrefixCount);
  setIf(b, "Ipv6PrefixCount", ni.ipv6PrefixCount);
  b.list("SecurityGroupId", ni.groups);
  b.setIfNotEmpty("SubnetId", ni.subnetId);
  if (ni.connectionTracking) {
    ParamBuilder ct = b.nested("ConnectionTrackingSpecification");
    setIf(ct, "TcpEstablishedTimeout", ni.connectionTracking->tcpEstablishedTimeout);
    setIf(ct, "UdpStreamTimeout", ni.connectionTracking->udpStreamTimeout);
    setIf(ct, "UdpTimeout", ni.connectionTracking->udpTimeout);
  }
}

void addBlockDevice(ParamBuilder b, const LaunchTemplateBlockDevice& bdm) {
  b.set("DeviceName", bdm.deviceName);
  if (!bdm.ebs) {
    return;
  }
  const EbsBlockDevice& e = *bdm.ebs;
  ParamBuilder ebs = b.nested("Ebs");
  setIf(ebs, "DeleteOnTermination", e.deleteOnTermination);
  setIf(ebs, "Encrypted", e.encrypted);
  setIf(ebs, "Iops", e.iops);
  setIf(ebs, "Throughput", e.throughput);
  setIf(ebs, "VolumeSize", e.volumeSizeGiB);
  ebs.setIfNotEmpty("KmsKeyId", e.kmsKeyId);
  ebs.setIfNotEmpty("SnapshotId", e.snapshotId);
  ebs.setIfNotEmpty("VolumeType", e.volumeType);
}

void addLaunchTemplateData(ParamBuilder d, const LaunchTemplateData& data) {
  d.setIfNotEmpty("ImageId", data.imageId);
  d.setIfNotEmpty("UserData", data.userData);
  if (!data.instanceProfileName.empty()) {
    d.nested("IamInstanceProfile").set("Name", data.instanceProfileName);
  }
  d.list("SecurityGroupId", data.securityGroupIds);
  for (size_t i = 0; i < data.blockDeviceMappings.size(); ++i) {
    addBlockDevice(d.member("BlockDeviceMapping", static_cast<int>(i) + 1),
                   data.blockDeviceMappings[i]);
  }
  const MetadataOptions& m = data.metadataOptions;
  ParamBuilder metadata = d.nested("MetadataOptions");
  metadata.setIfNotEmpty("HttpEndpoint", m.httpEndpoint);
  metadata.setIfNotEmpty("HttpProtocolIpv6", m.httpProtocolIpv6);
  metadata.setIfNotEmpty("HttpTokens", m.httpTokens);
  setIf(metadata, "HttpPutResponseHopLimit", m.httpPutResponseHopLimit);
  if (data.monitoring) {
    d.nested("Monitoring").set("Enabled", *data.monitoring);
  }
  if (!data.nestedVirtualization.empty()) {
    d.nested("CpuOptions").set("NestedVirtualization", data.nestedVirtualization);
  }
  for (size_t i = 0; i < data.networkInterfaces.size(); ++i) {
    addInterface(d.member("NetworkInterface", static_cast<int>(i) + 1), data.networkInterfaces[i]);
  }
  if (!data.resourceTags.empty()) {
    const TagList tags = tagList(data.resourceTags);
    for (const char* type : {"instance", "volume", "network-interface"}) {
      d.tagSpecification(type, tags);
    }
  }
  if (!data.capacityReservationPreference.empty()) {
    ParamBuilder cr = d.nested("CapacityReservationSpecification");
    cr.set("CapacityReservationPreference", data.capacityReservationPreference);
    if (!data.capacityReservationId.empty()) {
      cr.nested("CapacityReservationTarget")
          .set("CapacityReservationId", data.capacityReservationId);
    }
  }
  if (!data.marketType.empty()) {
    d.nested("InstanceMarketOptions").set("MarketType", data.marketType);
  }
  if (!data.tenancy.empty() || !data.placementGroupId.empty()) {
    ParamBuilder placement = d.nested("Placement");
    placement.setIfNotEmpty("GroupId", data.placementGroupId);
    setIf(placement, "PartitionNumber", data.placementPartition);
    placement.setIfNotEmpty("Tenancy", data.tenancy);
  }
}

}  // namespace

ApiResult<LaunchTemplate> Ec2Client::createLaunchTemplate(const std::string& name,
                                                          const LaunchTemplateData& data,
                                                          const Tags& tags,
                                                          const std::string& clientToken) {
  ParamBuilder b;
  b.set("LaunchTemplateName", name);
  b.setIfNotEmpty("ClientToken", clientToken);
  addLaunchTemplateData(b.nested("LaunchTemplateData"), data);
  if (!tags.empty()) {
    b.tagSpecification("launch-template", tagList(tags));
  }
  auto body = client_.call("CreateLaunchTemplate", b.pairs());
  if (!body) {
    return tl::unexpected(body.error());
  }
  pugi::xml_document doc;
  pugi::xml_node node;
  if (doc.load_buffer(body->data(), body->size())) {
    node = doc.document_element().child("launchTemplate");
  }
  if (!node) {
    return apiFail("MalformedResponse",
                   fmt::format("CreateLaunchTemplate {}: no launchTemplate in the response", name),
                   200);
  }
  LaunchTemplate created = ec2xml::launchTemplate(node);
  if (created.tags.empty()) {
    created.tags = tags;  // EC2 does not always echo them
  }
  return created;
}

ApiResult<std::vector<LaunchTemplate>> Ec2Client::describeLaunchTemplates(
    const std::vector<std::string>& names, const std::vector<Filter>& filters) {
  ParamBuilder b;
  b.list("LaunchTemplateName", names);
  for (const Filter& f : filters) {
    b.filter(f.name, f.values);
  }
  if (names.empty()) {
    b.set("MaxResults", kLaunchTemplatesPage);
  }
  return ec2xml::collectList(client_, "DescribeLaunchTemplates", b.pairs(), "launchTemplates",
                             &ec2xml::launchTemplate);
}

ApiResult<void> Ec2Client::deleteLaunchTemplate(const std::string& name) {
  ParamBuilder b;
  b.set("LaunchTemplateName", name);
  auto body = client_.call("DeleteLaunchTemplate", b.pairs());
  if (!body) {
    return tl::unexpected(body.error());
  }
  return {};
}

ApiResult<FleetResult> Ec2Client::createFleet(const FleetRequest& request) {
  ParamBuilder b;
  b.set("Type", "instant");
  for (size_t i = 0; i < request.launchTemplateConfigs.size(); ++i) {
    const FleetLaunchTemplateConfig& config = request.launchTemplateConfigs[i];
    ParamBuilder c = b.member("LaunchTemplateConfigs", static_cast<int>(i) + 1);
    ParamBuilder spec = c.nested("LaunchTemplateSpecification");
    spec.set("LaunchTemplateName", config.launchTemplateName);
    spec.setIfNotEmpty("Version", config.version);
    for (size_t j = 0; j < config.overrides.size(); ++j) {
      const FleetOverride& o = config.overrides[j];
      ParamBuilder ob = c.member("Overrides", static_cast<int>(j) + 1);
      ob.set("InstanceType", o.instanceType);
      ob.setIfNotEmpty("SubnetId", o.subnetId);
      ob.setIfNotEmpty("AvailabilityZone", o.availabilityZone);
      if (o.priority) {
        ob.set("Priority", fmt::format("{}", *o.priority));
      }
      if (o.imageId) {
        ob.set("ImageId", *o.imageId);
      }
    }
  }
  ParamBuilder capacity = b.nested("TargetCapacitySpecification");
  capacity.set("TotalTargetCapacity", request.targetCapacity);
  capacity.setIfNotEmpty("DefaultTargetCapacityType", request.capacityType);
  if (request.capacityType == "reserved-capacity") {
    b.nested("ReservedCapacityOptions")
        .list("ReservationType", {"interruptible-capacity-reservation"});
  }
  if (!request.allocationStrategy.empty()) {
    b.nested(request.capacityType == "spot" ? "SpotOptions" : "OnDemandOptions")
        .set("AllocationStrategy", request.allocationStrategy);
  }
  b.setIfNotEmpty("ClientToken", request.clientToken);
  if (!request.tags.empty()) {
    const TagList tags = tagList(request.tags);
    for (const char* type : {"fleet", "instance", "volume"}) {
      b.tagSpecification(type, tags);
    }
  }
  auto body = client_.call("CreateFleet", b.pairs());
  if (!body) {
    return tl::unexpected(body.error());
  }
  pugi::xml_document doc;
  if (!doc.load_buffer(body->data(), body->size())) {
    return apiFail("MalformedResponse", "CreateFleet: the response is not XML", 200);
  }
  return ec2xml::fleetResult(doc.document_element(), request);
}

ApiResult<std::vector<Instance>> Ec2Client::describeInstances(const std::vector<std::string>& ids,
                                                              const std::vector<Filter>& filters) {
  ParamBuilder b;
  b.list("InstanceId", ids);
  for (const Filter& f : filters) {
    b.filter(f.name, f.values);
  }
  if (ids.empty()) {
    b.set("MaxResults", kInstancesPage);
  }
  return ec2xml::collect<Instance>(
      client_, "DescribeInstances", b.pairs(), [](pugi::xml_node root, std::vector<Instance>& out) {
        for (pugi::xml_node reservation : root.child("reservationSet").children("item")) {
          for (pugi::xml_node item : reservation.child("instancesSet").children("item")) {
            out.push_back(ec2xml::instance(item));
          }
        }
      });
}

ApiResult<std::vector<InstanceStateChange>> Ec2Client::terminateInstances(
    const std::vector<std::string>& ids) {
  ParamBuilder b;
  b.list("InstanceId", ids);
  auto body = client_.call("TerminateInstances", b.pairs());
  if (!body) {
    return tl::unexpected(body.error());
  }
  pugi::xml_document doc;
  if (!doc.load_buffer(body->data(), body->size())) {
    return apiFail("MalformedResponse", "TerminateInstances: the response is not XML", 200);
  }
  std::vector<InstanceStateChange> out;
  for (pugi::xml_node item : doc.document_element().child("instancesSet").children("item")) {
    out.push_back(ec2xml::stateChange(item));
  }
  return out;
}

ApiResult<void> Ec2Client::createTags(const std::vector<std::string>& resourceIds,
                                      const Tags& tags) {
  ParamBuilder b;
  b.list("ResourceId", resourceIds);
  int n = 0;
  for (const auto& [key, value] : tags) {
    ParamBuilder tag = b.member("Tag", ++n);
    tag.set("Key", key);
    tag.set("Value", value);
  }
  auto body = client_.call("CreateTags", b.pairs());
  if (!body) {
    return tl::unexpected(body.error());
  }
  return {};
}

}  // namespace nodewright::aws
