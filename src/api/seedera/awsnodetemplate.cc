#include "api/seedera/awsnodetemplate.h"

namespace nodewright::api::seedera {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

constexpr const char* kFixedAddressReason =
    "a fixed address cannot be shared by every node launched from one template (seed 001)";

void validateSpec(const AWSNodeTemplateSpec& s, const FieldPath& p, FieldErrors& errs) {
  if (!s.launchTemplate.empty()) {
    // An unmanaged launch template already carries everything Karpenter would generate.
    auto exclusive = [&](bool set, const char* field) {
      if (set) {
        errs.push_back(
            {p.child(field).str(), fielderr::forbidden("may not be set together with " +
                                                       p.child("launchTemplate").str())});
      }
    };
    exclusive(!s.securityGroupSelector.empty(), "securityGroupSelector");
    exclusive(s.userData.has_value(), "userData");
    exclusive(!s.blockDeviceMappings.empty(), "blockDeviceMappings");
    exclusive(s.metadataOptions.has_value(), "metadataOptions");
    exclusive(!s.amiSelector.empty(), "amiSelector");
    exclusive(!s.networkInterfaces.empty(), "networkInterfaces");
  } else if (s.securityGroupSelector.empty()) {
    errs.push_back({p.child("securityGroupSelector").str(), fielderr::required()});
  }
  if (s.amiFamily == "Custom" && s.amiSelector.empty() && s.launchTemplate.empty()) {
    errs.push_back({p.child("amiSelector").str(),
                    fielderr::required() + ": amiFamily Custom needs an amiSelector"});
  }
}

}  // namespace

const StructSchema& describe(Tag<MetadataOptions>) {
  using T = MetadataOptions;
  static const StructSchema s =
      StructBuilder<T>("MetadataOptions",
                       "Exposure of the instance metadata service (IMDS) to the nodes.")
          .field<&T::httpEndpoint>("httpEndpoint", "Enables the IMDS HTTP endpoint.")
          .enums({"enabled", "disabled"})
          .field<&T::httpProtocolIPv6>("httpProtocolIPv6", "Enables the IMDS IPv6 endpoint.")
          .enums({"enabled", "disabled"})
          .field<&T::httpPutResponseHopLimit>(
              "httpPutResponseHopLimit", "How many network hops an IMDS PUT response may travel.")
          .min(1)
          .max(64)
          .field<&T::httpTokens>("httpTokens", "Whether IMDSv2 session tokens are required.")
          .enums({"required", "optional"})
          .build();
  return s;
}

const StructSchema& describe(Tag<BlockDevice>) {
  using T = BlockDevice;
  static const StructSchema s =
      StructBuilder<T>("BlockDevice", "An EBS volume attached at launch.")
          .field<&T::deleteOnTermination>("deleteOnTermination",
                                          "Whether the volume is deleted with the instance.")
          .field<&T::encrypted>("encrypted", "Whether the volume is encrypted.")
          .field<&T::iops>("iops", "Provisioned IOPS (io1, io2, gp3).")
          .min(0)
          .field<&T::kmsKeyID>("kmsKeyID", "ARN of the KMS key that encrypts the volume.")
          .field<&T::snapshotID>("snapshotID", "EBS snapshot the volume is created from.")
          .field<&T::throughput>("throughput", "Throughput in MiB/s of a gp3 volume.")
          .min(0)
          .field<&T::volumeSize>("volumeSize", "Size of the volume.")
          .field<&T::volumeType>("volumeType", "EBS volume type.")
          .enums({"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"})
          .build();
  return s;
}

const StructSchema& describe(Tag<BlockDeviceMapping>) {
  using T = BlockDeviceMapping;
  static const StructSchema s =
      StructBuilder<T>("BlockDeviceMapping", "A storage device of the instances.")
          .field<&T::deviceName>("deviceName", "Device name, for example /dev/xvda.")
          .required()
          .field<&T::virtualName>("virtualName",
                                  "Instance store volume name (ephemeral0); dropped in v1.")
          .field<&T::ebs>("ebs", "The EBS volume to attach.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<NetworkInterface>) {
  using T = NetworkInterface;
  static const StructSchema s =
      StructBuilder<T>("NetworkInterface",
                       "A launch-template network interface (seed 001's subset of EC2's).")
          .field<&T::associateCarrierIPAddress>(
              "associateCarrierIPAddress",
              "Associates a carrier IP address with the interface (Wavelength zones).")
          .field<&T::associatePublicIPAddress>("associatePublicIPAddress",
                                               "Assigns a public IPv4 address to the interface.")
          .field<&T::deleteOnTermination>("deleteOnTermination",
                                          "Whether the interface is deleted with the instance.")
          .behavioral()
          .field<&T::description>("description", "A description of the interface.")
          .maxLength(255)
          .field<&T::deviceIndex>("deviceIndex",
                                  "Device index of the attachment; 0 is the primary interface.")
          .min(0)
          .defaultsTo(Json(0))
          .field<&T::interfaceType>("interfaceType",
                                    "interface, efa (EFA with IP networking) or efa-only.")
          .enums({"interface", "efa", "efa-only"})
          .defaultsTo(Json("interface"))
          .field<&T::networkCardIndex>("networkCardIndex",
                                       "Network card of the interface; the primary must be on 0.")
          .min(0)
          .defaultsTo(Json(0))
          .field<&T::ipv4PrefixCount>("ipv4PrefixCount", "Number of IPv4 /28 prefixes to assign.")
          .min(0)
          .field<&T::ipv6PrefixCount>("ipv6PrefixCount", "Number of IPv6 /80 prefixes to assign.")
          .min(0)
          .field<&T::subnetSelector>(
              "subnetSelector",
              "Subnets for this interface (legacy selector map); defaults to the template's.")
          .dynamic()
          .field<&T::securityGroupSelector>(
              "securityGroupSelector",
              "Security groups for this interface (legacy selector map); defaults to the "
              "template's.")
          .dynamic()
          .forbid("privateIpAddress", kFixedAddressReason)
          .forbid("privateIpAddresses", kFixedAddressReason)
          .forbid("ipv4Prefixes", kFixedAddressReason)
          .forbid("ipv6Prefixes", kFixedAddressReason)
          .forbid("ipv6Addresses", kFixedAddressReason)
          .forbid("networkInterfaceId",
                  "an existing interface can be attached to one instance only (seed 001)")
          .build();
  return s;
}

const StructSchema& describe(Tag<AWSNodeTemplateSpec>) {
  using S = AWSNodeTemplateSpec;
  static const StructSchema s =
      StructBuilder<S>("AWSNodeTemplateSpec", "How to launch EC2 instances for a Provisioner.")
          .field<&S::userData>("userData",
                               "UserData for the instances, merged with Karpenter's own per "
                               "amiFamily.")
          .field<&S::amiFamily>("amiFamily",
                                "AMI family: resolves a default AMI and the UserData format.")
          .enums(
              {"AL2", "AL2023", "Bottlerocket", "Ubuntu", "Custom", "Windows2019", "Windows2022"})
          .field<&S::context>("context", "Reserved EC2 CreateFleet context.")
          .field<&S::instanceProfile>("instanceProfile",
                                      "IAM instance profile of the nodes; overrides the global "
                                      "default.")
          .field<&S::subnetSelector>(
              "subnetSelector",
              "Discovers subnets: tags ('*' matches any value) or aws-ids with comma-separated "
              "IDs.")
          .required()
          .dynamic()
          .field<&S::securityGroupSelector>(
              "securityGroupSelector",
              "Discovers security groups: tags, aws-ids (comma-separated IDs) or aws::name.")
          .dynamic()
          .field<&S::tags>("tags", "Tags applied to the instances, volumes and launch templates.")
          .field<&S::launchTemplate>(
              "launchTemplate",
              "Name of an unmanaged launch template to use as is (launchTemplateName); not "
              "convertible to v1.")
          .field<&S::metadataOptions>("metadataOptions",
                                      "Instance metadata service settings of the instances.")
          .field<&S::blockDeviceMappings>("blockDeviceMappings",
                                          "Storage devices of the instances.")
          .setList()
          .field<&S::amiSelector>(
              "amiSelector",
              "Discovers AMIs: tags, aws::ids, aws::name and aws::owners (comma-separated).")
          .dynamic()
          .field<&S::detailedMonitoring>("detailedMonitoring",
                                         "Enables EC2 detailed (one-minute) monitoring.")
          .field<&S::associatePublicIpAddress>("associatePublicIpAddress",
                                               "Whether instances get public IP addresses.")
          .field<&S::networkInterfaces>("networkInterfaces",
                                        "Network interfaces of the instances (seed 001).")
          .mapList({"networkCardIndex", "deviceIndex"})
          .validate(validateSpec)
          .build();
  return s;
}

const StructSchema& describe(Tag<SubnetStatus>) {
  using T = SubnetStatus;
  static const StructSchema s = StructBuilder<T>("Subnet", "A resolved subnet.")
                                    .field<&T::id>("id", "Subnet ID.")
                                    .required()
                                    .field<&T::zone>("zone", "Availability zone of the subnet.")
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
          .build();
  return s;
}

const StructSchema& describe(Tag<AWSNodeTemplateStatus>) {
  using S = AWSNodeTemplateStatus;
  static const StructSchema s =
      StructBuilder<S>("AWSNodeTemplateStatus", "The resolved state of the AWSNodeTemplate.")
          .field<&S::subnets>("subnets", "Subnets currently matched by the selector.")
          .field<&S::securityGroups>("securityGroups",
                                     "Security groups currently matched by the selector.")
          .field<&S::amis>("amis", "AMIs currently matched by the selector.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AWSNodeTemplate>) {
  static const StructSchema s = [] {
    StructBuilder<AWSNodeTemplate> b("AWSNodeTemplate",
                                     "Seed-era (karpenter.k8s.aws/v1alpha1) AWS node template; "
                                     "converted to a karpenter.k8s.aws/v1 EC2NodeClass.");
    withTypeMeta(b)
        .field<&AWSNodeTemplate::spec>("spec", "Desired state of the node template.")
        .field<&AWSNodeTemplate::status>("status", "Resolved state of the node template.");
    return b.build();
  }();
  return s;
}

}  // namespace nodewright::api::seedera
