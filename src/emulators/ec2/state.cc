// The EC2 attribute structs' JSON, field by field. A field added to one of these structs must
// be added to its list here, or a restart forgets it (state_test.cc compares whole instances
// and templates across a restart).
#include "emulators/ec2/state.h"

#include <stdexcept>

#include "emulators/ec2/fleet.h"
#include "emulators/ec2/instance.h"
#include "emulators/ec2/launch_template.h"
#include "emulators/ec2/resources.h"
#include "emulators/ec2/subnet_addresses.h"
#include "emulators/engine/json_codec.h"

namespace nodewright::emulators::ec2 {

[[maybe_unused]] static void to_json(api::Json& j, const Architecture& a) {
  j = std::string(architectureName(a));
}

[[maybe_unused]] static void from_json(const api::Json& j, Architecture& a) {
  auto parsed = parseArchitecture(j.get<std::string>());
  if (!parsed) {
    throw std::invalid_argument("unknown architecture " + j.get<std::string>());
  }
  a = *parsed;
}

NW_STATE_FIELDS(VpcAttributes, cidrBlock, ipv6CidrBlock, isDefault)
NW_STATE_FIELDS(SubnetAttributes, vpcId, zone, zoneId, cidrBlock, ipv6CidrBlock, availableIps,
                mapPublicIpOnLaunch)
NW_STATE_FIELDS(AddressedSubnet, vpcId, zone, zoneId, cidrBlock, ipv6CidrBlock, availableIps,
                mapPublicIpOnLaunch, taken, cursor)
NW_STATE_FIELDS(SecurityGroupAttributes, name, description, vpcId, ipv6Egress)
NW_STATE_FIELDS(CapacityReservationAttributes, instanceType, instancePlatform, zone, zoneId,
                tenancy, totalInstanceCount, availableInstanceCount, instanceMatchCriteria,
                reservationType, interruptible, ownerId, endDate)
NW_STATE_FIELDS(PlacementGroupAttributes, name, strategy, partitionCount, spreadLevel)
NW_STATE_FIELDS(ImageAttributes, name, description, ownerId, ownerAlias, architecture, creationDate,
                deprecationTime, platformDetails, rootDeviceName, bootMode)

NW_STATE_FIELDS(TagSpecification, resourceType, tags)
NW_STATE_FIELDS(EbsSpec, volumeSize, volumeType, iops, throughput, encrypted, kmsKeyId,
                deleteOnTermination, snapshotId)
NW_STATE_FIELDS(BlockDeviceMappingSpec, deviceName, ebs)
NW_STATE_FIELDS(NetworkInterfaceRequest, deviceIndex, networkCardIndex, interfaceType,
                associatePublicIpAddress, associateCarrierIpAddress, deleteOnTermination,
                description, subnetId, groups, ipv4PrefixCount, ipv6PrefixCount,
                secondaryPrivateIpAddressCount, ipv6AddressCount)
NW_STATE_FIELDS(MetadataOptionsSpec, httpTokens, httpPutResponseHopLimit, httpEndpoint,
                httpProtocolIpv6, instanceMetadataTags)
NW_STATE_FIELDS(IamInstanceProfileSpec, arn, name)
NW_STATE_FIELDS(InstanceMarketOptionsSpec, marketType, maxPrice, spotInstanceType,
                instanceInterruptionBehavior)
NW_STATE_FIELDS(CapacityReservationSpec, preference, reservationId, resourceGroupArn)
NW_STATE_FIELDS(PrivateDnsNameOptionsSpec, hostnameType, enableResourceNameDnsARecord,
                enableResourceNameDnsAAAARecord)
NW_STATE_FIELDS(LaunchTemplateData, imageId, instanceType, keyName, userData, networkInterfaces,
                securityGroupIds, metadataOptions, blockDeviceMappings, iamInstanceProfile,
                monitoringEnabled, ebsOptimized, tagSpecifications, instanceMarketOptions,
                capacityReservation, privateDnsNameOptions, availabilityZone, tenancy,
                placementGroupId, placementGroupName, partitionNumber)
NW_STATE_FIELDS(LaunchTemplateVersion, number, description, created, createdBy, data)

[[maybe_unused]] static void to_json(api::Json& j, const LaunchTemplateAttributes& t) {
  api::Json versions = api::Json::array();
  for (const auto& version : t.versions) {
    versions.push_back(*version);
  }
  j = api::Json{{"name", t.name},
                {"clientToken", t.clientToken},
                {"createdBy", t.createdBy},
                {"defaultVersion", t.defaultVersion},
                {"versions", std::move(versions)}};
}

[[maybe_unused]] static void from_json(const api::Json& j, LaunchTemplateAttributes& t) {
  t.name = j.at("name").get<std::string>();
  t.clientToken = j.value("clientToken", std::string());
  t.createdBy = j.value("createdBy", std::string());
  t.defaultVersion = j.value("defaultVersion", int64_t{1});
  for (const api::Json& version : j.at("versions")) {
    t.versions.push_back(
        std::make_shared<const LaunchTemplateVersion>(version.get<LaunchTemplateVersion>()));
  }
}

NW_STATE_FIELDS(GroupRef, id, name)
NW_STATE_FIELDS(InstanceInterface, id, subnetId, vpcId, deviceIndex, networkCardIndex,
                interfaceType, description, privateIp, secondaryIps, ipv4Prefixes, publicIp, groups,
                deleteOnTermination, macAddress)
NW_STATE_FIELDS(InstanceVolume, deviceName, volumeId, deleteOnTermination)
NW_STATE_FIELDS(AddressLease, subnetId, count, offsets)
NW_STATE_FIELDS(InstanceAttributes, instanceType, imageId, architecture, zone, zoneId, subnetId,
                vpcId, privateIp, publicIp, dnsSuffix, hostnameType, groups, interfaces, volumes,
                rootDeviceName, launchTemplateId, launchTemplateName, launchTemplateVersion,
                lifecycle, spotInstanceRequestId, reservationId, ownerId, fleetId, clientToken,
                amiLaunchIndex, metadataOptions, iamInstanceProfileArn, iamInstanceProfileId,
                keyName, monitoring, ebsOptimized, tenancy, placementGroupId, placementGroupName,
                partitionNumber, capacityReservationPreference, capacityReservationId,
                platformDetails, leases, leasesReleased)
NW_STATE_FIELDS(ReservationAttributes, ownerId, requesterId, instanceIds)

NW_STATE_FIELDS(FleetOverrides, instanceType, maxPrice, subnetId, availabilityZone,
                weightedCapacity, priority, imageId)
NW_STATE_FIELDS(FleetPoolSpec, launchTemplateId, launchTemplateName, version, overrides)
NW_STATE_FIELDS(FleetError, pool, lifecycle, code, message)
NW_STATE_FIELDS(FleetInstances, pool, lifecycle, instanceType, instanceIds)
NW_STATE_FIELDS(FleetAttributes, type, totalTargetCapacity, errors, instances)

namespace {

// A subnet is stored as plain SubnetAttributes until a launch first takes one of its
// addresses, then as AddressedSubnet; the file keeps which (the "taken" bitmap).
AttributeCodec subnetCodec() {
  AttributeCodec plain = fieldsCodec<SubnetAttributes>();
  AttributeCodec addressed = fieldsCodec<AddressedSubnet>();
  return {[plain, addressed](const Attributes& a) {
            return dynamic_cast<const AddressedSubnet*>(&a) ? addressed.encode(a) : plain.encode(a);
          },
          [plain, addressed](const api::Json& j) {
            return j.contains("taken") ? addressed.decode(j) : plain.decode(j);
          }};
}

}  // namespace

const AttributeCodecs& ec2AttributeCodecs() {
  static const AttributeCodecs codecs{
      {std::string(kind::kVpc), fieldsCodec<VpcAttributes>()},
      {std::string(kind::kSubnet), subnetCodec()},
      {std::string(kind::kSecurityGroup), fieldsCodec<SecurityGroupAttributes>()},
      {std::string(kind::kImage), fieldsCodec<ImageAttributes>()},
      {std::string(kind::kLaunchTemplate), fieldsCodec<LaunchTemplateAttributes>()},
      {std::string(kind::kInstance), fieldsCodec<InstanceAttributes>()},
      {std::string(kind::kReservation), fieldsCodec<ReservationAttributes>()},
      {std::string(kind::kFleet), fieldsCodec<FleetAttributes>()},
      {std::string(kind::kCapacityReservation), fieldsCodec<CapacityReservationAttributes>()},
      {std::string(kind::kPlacementGroup), fieldsCodec<PlacementGroupAttributes>()},
  };
  return codecs;
}

}  // namespace nodewright::emulators::ec2
