#include "api/karpenter/ec2nodeclass.h"

#include "api/karpenter/ec2nodeclass_rules.h"
#include "api/karpenter/rules.h"

namespace nodewright::api::karpenter {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

// Fixed addresses and existing interfaces identify one instance; a node class launches many.
const char* const kFixedAddressReason =
    "fixed addresses cannot be shared by a fleet of nodes: every instance launched from this "
    "node class would claim the same address (seed 001); use ipv4PrefixCount or ipv6PrefixCount";
const char* const kAddressCountReason =
    "specific IP address settings are not supported (seed 001); use ipv4PrefixCount or "
    "ipv6PrefixCount";
const char* const kInterfaceIdReason =
    "an existing network interface attaches to one instance only and cannot be shared by a fleet "
    "of nodes (seed 001)";
const char* const kGroupsReason =
    "security groups are resolved from securityGroupSelectorTerms, on the node class or on this "
    "interface";
const char* const kSubnetReason =
    "subnets are resolved per zone from subnetSelectorTerms, on the node class or on this "
    "interface";

}  // namespace

const StructSchema& describe(Tag<SubnetSelectorTerm>) {
  using T = SubnetSelectorTerm;
  static const StructSchema s =
      StructBuilder<T>("SubnetSelectorTerm",
                       "Selects subnets; the fields of one term are ANDed, terms are ORed.")
          .field<&T::tags>("tags", "Tags the subnets must carry; '*' matches any value.")
          .field<&T::id>("id", "The subnet ID; exclusive with tags.")
          .pattern("subnet-[0-9a-z]+")
          .validate(rules::validateSubnetTerm)
          .build();
  return s;
}

const StructSchema& describe(Tag<SecurityGroupSelectorTerm>) {
  using T = SecurityGroupSelectorTerm;
  static const StructSchema s =
      StructBuilder<T>("SecurityGroupSelectorTerm",
                       "Selects security groups; the fields of one term are ANDed, terms are "
                       "ORed.")
          .field<&T::tags>("tags", "Tags the security groups must carry; '*' matches any value.")
          .field<&T::id>("id", "The security group ID; exclusive with the other fields.")
          .pattern("sg-[0-9a-z]+")
          .field<&T::name>("name", "The security group name (not its Name tag).")
          .validate(rules::validateSecurityGroupTerm)
          .build();
  return s;
}

const StructSchema& describe(Tag<AMISelectorTerm>) {
  using T = AMISelectorTerm;
  static const StructSchema s =
      StructBuilder<T>("AMISelectorTerm",
                       "Selects AMIs; the fields of one term are ANDed, terms are ORed.")
          .field<&T::alias>("alias",
                            "An EKS-optimized AMI as family@version (al2023@latest, "
                            "al2023@v20240807); exclusive with everything else.")
          .maxLength(30)
          .field<&T::tags>("tags", "Tags the AMIs must carry; '*' matches any value.")
          .field<&T::id>("id", "The AMI ID.")
          .pattern("ami-[0-9a-z]+")
          .field<&T::name>("name", "The AMI name (not its Name tag).")
          .field<&T::owner>("owner", "AMI owner: an account ID, self, amazon or aws-marketplace.")
          .field<&T::ssmParameter>("ssmParameter", "An SSM parameter whose value is an AMI ID.")
          .validate(rules::validateAmiTerm)
          .build();
  return s;
}

const StructSchema& describe(Tag<CapacityReservationSelectorTerm>) {
  using T = CapacityReservationSelectorTerm;
  static const StructSchema s =
      StructBuilder<T>("CapacityReservationSelectorTerm",
                       "Selects EC2 capacity reservations; fields are ANDed, terms ORed.")
          .field<&T::tags>("tags", "Tags the reservations must carry.")
          .field<&T::id>("id", "The capacity reservation ID; exclusive with the other fields.")
          .pattern("cr-[0-9a-z]+")
          .field<&T::ownerID>("ownerID", "The account that owns the reservations.")
          .pattern("^[0-9]{12}$")
          .field<&T::instanceMatchCriteria>(
              "instanceMatchCriteria",
              "open: the reservations any matching instance may use; targeted: only instances "
              "that name them.")
          .enums({"open", "targeted"})
          .validate(rules::validateCapacityReservationTerm)
          .build();
  return s;
}

const StructSchema& describe(Tag<PlacementGroupSelector>) {
  using T = PlacementGroupSelector;
  static const StructSchema s =
      StructBuilder<T>("PlacementGroupSelector", "Selects one placement group, by name or id.")
          .field<&T::name>("name", "The placement group's name; exclusive with id.")
          .field<&T::id>("id", "The placement group's ID; exclusive with name.")
          .pattern("^pg-[0-9a-z]+$")
          .validate(rules::validatePlacementGroupSelector)
          .build();
  return s;
}

const StructSchema& describe(Tag<ConnectionTracking>) {
  using T = ConnectionTracking;
  static const StructSchema s =
      StructBuilder<T>("ConnectionTracking",
                       "Idle connection-tracking timeouts of the launched interfaces (efa-only "
                       "interfaces excluded); at least one.")
          .field<&T::tcpEstablishedTimeout>("tcpEstablishedTimeout",
                                            "Seconds an idle established TCP connection is "
                                            "tracked.")
          .min(60)
          .max(432000)
          .field<&T::udpStreamTimeout>("udpStreamTimeout",
                                       "Seconds an idle UDP stream (traffic both ways) is "
                                       "tracked.")
          .min(60)
          .max(180)
          .field<&T::udpTimeout>("udpTimeout",
                                 "Seconds an idle one-way or single request-response UDP flow "
                                 "is tracked.")
          .min(30)
          .max(60)
          .validate(rules::validateConnectionTracking)
          .build();
  return s;
}

const StructSchema& describe(Tag<CPUOptions>) {
  using T = CPUOptions;
  static const StructSchema s =
      StructBuilder<T>("CPUOptions", "CPU options of the instances.")
          .field<&T::nestedVirtualization>("nestedVirtualization",
                                           "Enables or disables nested virtualization.")
          .enums({"enabled", "disabled"})
          .build();
  return s;
}

const StructSchema& describe(Tag<MetadataOptions>) {
  using M = MetadataOptions;
  static const StructSchema s =
      StructBuilder<M>("MetadataOptions",
                       "Exposure of the instance metadata service (IMDS) to the nodes.")
          .field<&M::httpEndpoint>("httpEndpoint", "Enables or disables the IMDS HTTP endpoint.")
          .enums({"enabled", "disabled"})
          .defaultsTo(Json("enabled"))
          .field<&M::httpProtocolIPv6>("httpProtocolIPv6",
                                       "Enables or disables the IMDS IPv6 "
                                       "endpoint.")
          .enums({"enabled", "disabled"})
          .defaultsTo(Json("disabled"))
          .field<&M::httpPutResponseHopLimit>(
              "httpPutResponseHopLimit",
              "How many network hops an IMDS response may travel; 1 keeps it from pods.")
          .min(1)
          .max(64)
          .defaultsTo(Json(1))
          .field<&M::httpTokens>("httpTokens",
                                 "Whether IMDS requests need a session token (IMDSv2).")
          .enums({"required", "optional"})
          .defaultsTo(Json("required"))
          .build();
  return s;
}

const StructSchema& describe(Tag<BlockDevice>) {
  using B = BlockDevice;
  static const StructSchema s =
      StructBuilder<B>("BlockDevice", "An EBS volume created when the instance launches.")
          .field<&B::deleteOnTermination>("deleteOnTermination",
                                          "Whether the volume is deleted with the instance.")
          .field<&B::encrypted>("encrypted", "Whether the volume is encrypted.")
          .field<&B::iops>("iops", "Provisioned IOPS (io1, io2, gp3).")
          .field<&B::kmsKeyID>("kmsKeyID", "ARN of the KMS key that encrypts the volume.")
          .field<&B::snapshotID>("snapshotID", "Snapshot the volume is created from.")
          .field<&B::throughput>("throughput", "Provisioned throughput in MiB/s (gp3).")
          .field<&B::volumeInitializationRate>(
              "volumeInitializationRate",
              "MiB/s at which a volume created from snapshotID is initialized.")
          .min(100)
          .max(300)
          .field<&B::volumeSize>("volumeSize", "Volume size: 1-59000Gi, 1-64000G, 1-58Ti or 1-64T.")
          .pattern(rules::kVolumeSizePattern)
          .field<&B::volumeType>("volumeType", "EBS volume type.")
          .enums({"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"})
          .validate(rules::validateBlockDevice)
          .build();
  return s;
}

const StructSchema& describe(Tag<BlockDeviceMapping>) {
  using B = BlockDeviceMapping;
  static const StructSchema s =
      StructBuilder<B>("BlockDeviceMapping", "A storage device attached to the instance.")
          .field<&B::deviceName>("deviceName", "Device name, e.g. /dev/xvda.")
          .field<&B::ebs>("ebs", "The EBS volume for the device.")
          .field<&B::rootVolume>("rootVolume",
                                 "Whether the kubelet root directory lives on this device; at "
                                 "most one.")
          .build();
  return s;
}

const StructSchema& describe(Tag<NetworkInterface>) {
  using N = NetworkInterface;
  static const StructSchema s =
      StructBuilder<N>("NetworkInterface",
                       "A network interface in the launch template (seed 001); keyed by "
                       "(networkCardIndex, deviceIndex).")
          .field<&N::associateCarrierIPAddress>(
              "associateCarrierIPAddress",
              "Assigns a carrier IP address (Wavelength); primary interface only.")
          .field<&N::associatePublicIPAddress>(
              "associatePublicIPAddress",
              "Assigns a public IPv4 address; primary interface of a single-interface launch only.")
          .field<&N::deleteOnTermination>("deleteOnTermination",
                                          "Whether the interface is deleted with the instance.")
          .behavioral()
          .field<&N::description>("description", "A description of the interface.")
          .maxLength(255)
          .field<&N::deviceIndex>("deviceIndex",
                                  "Device index of the attachment; 0 is the primary interface.")
          .required()
          .min(0)
          .field<&N::interfaceType>("interfaceType",
                                    "interface (ENA, or EFA with IP networking where the instance "
                                    "type supports it) or efa-only.")
          .required()
          .enums({"interface", "efa-only"})
          .field<&N::networkCardIndex>("networkCardIndex",
                                       "Network card of the interface; the primary must be on 0.")
          .required()
          .min(0)
          .field<&N::ipv4PrefixCount>("ipv4PrefixCount", "Number of IPv4 /28 prefixes to assign.")
          .min(0)
          .field<&N::ipv6PrefixCount>("ipv6PrefixCount", "Number of IPv6 /80 prefixes to assign.")
          .min(0)
          .field<&N::subnetSelectorTerms>("subnetSelectorTerms",
                                          "Subnets for this interface; defaults to the node "
                                          "class's subnets.")
          .dynamic()
          .maxItems(30)
          .field<&N::securityGroupSelectorTerms>(
              "securityGroupSelectorTerms",
              "Security groups for this interface; defaults to the node class's security groups.")
          .dynamic()
          .maxItems(30)
          .forbid("privateIpAddress", kFixedAddressReason)
          .forbid("privateIPAddress", kFixedAddressReason)
          .forbid("privateIpAddresses", kFixedAddressReason)
          .forbid("privateIPAddresses", kFixedAddressReason)
          .forbid("ipv4Prefixes", kFixedAddressReason)
          .forbid("ipv6Prefixes", kFixedAddressReason)
          .forbid("ipv6Addresses", kFixedAddressReason)
          .forbid("primaryIpv6", kFixedAddressReason)
          .forbid("secondaryPrivateIpAddressCount", kAddressCountReason)
          .forbid("secondaryPrivateIPAddressCount", kAddressCountReason)
          .forbid("ipv6AddressCount", kAddressCountReason)
          .forbid("networkInterfaceId", kInterfaceIdReason)
          .forbid("networkInterfaceID", kInterfaceIdReason)
          .forbid("groups", kGroupsReason)
          .forbid("subnetId", kSubnetReason)
          .forbid("subnetID", kSubnetReason)
          .validate([](const N& n, const FieldPath& p, FieldErrors& errs) {
            rules::validateSubnetTerms(n.subnetSelectorTerms, p.child("subnetSelectorTerms"), errs);
            rules::validateSecurityGroupTerms(n.securityGroupSelectorTerms,
                                              p.child("securityGroupSelectorTerms"), errs);
            if (n.interfaceType != "efa-only") {
              return;
            }
            for (const auto& [field, count] : {std::pair{"ipv4PrefixCount", n.ipv4PrefixCount},
                                               std::pair{"ipv6PrefixCount", n.ipv6PrefixCount}}) {
              if (count.value_or(0) > 0) {
                errs.push_back({p.child(field).str(),
                                fielderr::forbidden("an efa-only interface has no IP addresses")});
              }
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<EC2NodeClassSpec>) {
  using S = EC2NodeClassSpec;
  static const StructSchema s =
      StructBuilder<S>("EC2NodeClassSpec", "How to launch EC2 instances for NodeClaims.")
          .field<&S::subnetSelectorTerms>("subnetSelectorTerms",
                                          "Subnets the instances may launch in; terms are ORed.")
          .required()
          .dynamic()
          .maxItems(30)
          .field<&S::securityGroupSelectorTerms>(
              "securityGroupSelectorTerms", "Security groups of the instances; terms are ORed.")
          .required()
          .dynamic()
          .maxItems(30)
          .field<&S::capacityReservationSelectorTerms>(
              "capacityReservationSelectorTerms",
              "Capacity reservations the instances may launch into; terms are ORed.")
          .dynamic()
          .maxItems(30)
          .field<&S::placementGroupSelector>("placementGroupSelector",
                                             "The placement group the instances launch into.")
          .field<&S::associatePublicIPAddress>(
              "associatePublicIPAddress",
              "Whether instances get public IP addresses (on the primary interface).")
          .field<&S::ipPrefixCount>("ipPrefixCount",
                                    "IPv4 prefixes assigned to the primary interface.")
          .min(0)
          .behavioral()
          .field<&S::amiSelectorTerms>("amiSelectorTerms", "AMIs to launch from; terms are ORed.")
          .required()
          .dynamic()
          .maxItems(30)
          .field<&S::amiFamily>("amiFamily",
                                "UserData format and default block devices; required unless an "
                                "alias term implies it.")
          .enums({"AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022",
                  "Windows2025"})
          .field<&S::userData>("userData",
                               "UserData for the instances, merged with Karpenter's own per "
                               "amiFamily.")
          .sensitive()
          .field<&S::role>("role",
                           "IAM role for the nodes; Karpenter manages an instance profile for "
                           "it. Exclusive with instanceProfile.")
          .field<&S::instanceProfile>("instanceProfile",
                                      "An existing instance profile for the nodes. Exclusive with "
                                      "role.")
          .field<&S::tags>("tags", "Tags applied to the instances, volumes and launch templates.")
          .field<&S::kubelet>("kubelet", "Kubelet settings for the nodes.")
          .field<&S::blockDeviceMappings>("blockDeviceMappings",
                                          "Storage devices of the instances.")
          .setList()
          .maxItems(50)
          .field<&S::instanceStorePolicy>("instanceStorePolicy",
                                          "How instance-store disks are used: RAID0 combines "
                                          "them for ephemeral storage.")
          .enums({"RAID0"})
          .field<&S::detailedMonitoring>("detailedMonitoring",
                                         "Enables EC2 detailed (one-minute) monitoring.")
          .field<&S::metadataOptions>("metadataOptions",
                                      "Instance metadata service settings; IMDSv2 only, one hop "
                                      "by default.")
          .defaultsTo(Json{{"httpEndpoint", "enabled"},
                           {"httpProtocolIPv6", "disabled"},
                           {"httpPutResponseHopLimit", 1},
                           {"httpTokens", "required"}})
          .field<&S::connectionTracking>("connectionTracking",
                                         "Idle connection-tracking timeouts of the launched "
                                         "interfaces.")
          .field<&S::context>("context", "Reserved EC2 CreateFleet context.")
          .field<&S::cpuOptions>("cpuOptions", "CPU options of the instances.")
          .field<&S::networkInterfaces>("networkInterfaces",
                                        "Network interfaces of the instances (seed 001); only "
                                        "instance types that can carry them are launched.")
          .mapList({"networkCardIndex", "deviceIndex"})
          .maxItems(150)
          .validate(rules::validateEc2NodeClassSpec)
          .build();
  return s;
}

const StructSchema& describe(Tag<SubnetStatus>) {
  using T = SubnetStatus;
  static const StructSchema s =
      StructBuilder<T>("Subnet", "A resolved subnet.")
          .field<&T::id>("id", "Subnet ID.")
          .required()
          .field<&T::zone>("zone", "Availability zone of the subnet.")
          .required()
          .field<&T::zoneID>("zoneID", "Availability zone ID of the subnet.")
          .build();
  return s;
}

const StructSchema& describe(Tag<SecurityGroupStatus>) {
  using T = SecurityGroupStatus;
  static const StructSchema s = StructBuilder<T>("SecurityGroup", "A resolved security group.")
                                    .field<&T::id>("id", "Security group ID.")
                                    .required()
                                    .field<&T::name>("name", "Security group name.")
                                    .build();
  return s;
}

const StructSchema& describe(Tag<AMIStatus>) {
  using T = AMIStatus;
  static const StructSchema s =
      StructBuilder<T>("AMI", "A resolved AMI and the instances it suits.")
          .field<&T::id>("id", "AMI ID.")
          .required()
          .field<&T::name>("name", "AMI name.")
          .field<&T::requirements>("requirements",
                                   "Instance requirements the AMI suits (architecture, GPU, ...).")
          .field<&T::deprecated>("deprecated", "Whether the AMI is deprecated.")
          .build();
  return s;
}

const StructSchema& describe(Tag<CapacityReservationStatus>) {
  using T = CapacityReservationStatus;
  static const StructSchema s =
      StructBuilder<T>("CapacityReservation", "A resolved capacity reservation.")
          .field<&T::availabilityZone>("availabilityZone",
                                       "The availability zone the reservation is in.")
          .required()
          .field<&T::endTime>("endTime",
                              "When the reservation expires and its capacity is released.")
          .field<&T::id>("id", "The capacity reservation ID.")
          .required()
          .pattern("^cr-[0-9a-z]+$")
          .field<&T::instanceMatchCriteria>("instanceMatchCriteria",
                                            "Which launches the reservation accepts.")
          .required()
          .enums({"open", "targeted"})
          .field<&T::instanceType>("instanceType", "The instance type of the reservation.")
          .required()
          .field<&T::ownerID>("ownerID", "The account that owns the reservation.")
          .required()
          .pattern("^[0-9]{12}$")
          .field<&T::reservationType>("reservationType", "The type of the reservation.")
          .enums({"default", "capacity-block"})
          .defaultsTo("default")
          .field<&T::interruptible>("interruptible",
                                    "Whether instances in the reservation can be interrupted.")
          .field<&T::state>("state",
                            "active, or expiring for a capacity block in EC2's reclaim window.")
          .enums({"active", "expiring"})
          .defaultsTo("active")
          .build();
  return s;
}

const StructSchema& describe(Tag<NetworkInterfaceStatus>) {
  using T = NetworkInterfaceStatus;
  static const StructSchema s =
      StructBuilder<T>("NetworkInterfaceStatus",
                       "What a network interface's own selectors resolved to.")
          .field<&T::networkCardIndex>("networkCardIndex", "Network card of the interface.")
          .min(0)
          .field<&T::deviceIndex>("deviceIndex", "Device index of the interface.")
          .min(0)
          .field<&T::subnets>("subnets",
                              "Subnets matched by the interface's subnetSelectorTerms; empty "
                              "when it has none.")
          .field<&T::securityGroups>("securityGroups",
                                     "Security groups matched by the interface's "
                                     "securityGroupSelectorTerms; empty when it has none.")
          .build();
  return s;
}

const StructSchema& describe(Tag<EC2NodeClassStatus>) {
  using S = EC2NodeClassStatus;
  static const StructSchema s =
      StructBuilder<S>("EC2NodeClassStatus", "The resolved state of the EC2NodeClass.")
          .field<&S::subnets>("subnets", "Subnets currently matched by the selectors.")
          .field<&S::securityGroups>("securityGroups",
                                     "Security groups currently matched by the selectors.")
          .field<&S::capacityReservations>(
              "capacityReservations", "Capacity reservations currently matched by the selectors.")
          .field<&S::amis>("amis", "AMIs currently matched by the selectors.")
          .field<&S::networkInterfaces>("networkInterfaces",
                                        "Subnets and security groups of the network interfaces "
                                        "with selectors of their own.")
          .field<&S::instanceProfile>("instanceProfile",
                                      "Instance profile resolved or created for the role.")
          .field<&S::conditions>("conditions", "Signals for health and readiness.")
          .validate([](const S& st, const FieldPath& p, FieldErrors& errs) {
            rules::validateConditions(st.conditions, p.child("conditions"), errs);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<EC2NodeClass>) {
  static const StructSchema s = [] {
    StructBuilder<EC2NodeClass> b("EC2NodeClass",
                                  "Configuration for launching EC2 instances as Kubernetes "
                                  "nodes: networking, AMIs, storage, identity and metadata.");
    withTypeMeta(b);
    return b.field<&EC2NodeClass::spec>("spec", "Desired state of the EC2NodeClass.")
        .required()
        .field<&EC2NodeClass::status>("status", "Resolved state of the EC2NodeClass.")
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::karpenter
