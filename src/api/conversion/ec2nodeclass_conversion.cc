#include "api/conversion/ec2nodeclass_conversion.h"

#include "api/conversion/annotations.h"
#include "api/conversion/selectors.h"

namespace nodewright::api::conversion {
namespace {

constexpr const char* kEC2NodeClassTarget = "karpenter.k8s.aws/v1 EC2NodeClass";

// The alias that selects the EKS-optimized AMI a v1alpha1 family resolved to by default.
std::optional<std::string> aliasForFamily(const std::string& family) {
  static const std::map<std::string, std::string> kAliases = {
      {"", "al2@latest"},  // v1alpha1 defaulted the family to AL2
      {"AL2", "al2@latest"},
      {"AL2023", "al2023@latest"},
      {"Bottlerocket", "bottlerocket@latest"},
      {"Windows2019", "windows2019@latest"},
      {"Windows2022", "windows2022@latest"},
  };
  auto it = kAliases.find(family);
  return it == kAliases.end() ? std::nullopt : std::optional<std::string>(it->second);
}

// Converts one legacy selector, remembering its spelling when the terms do not determine it.
class SelectorConverter {
 public:
  explicit SelectorConverter(FieldErrors& errors) : errors_(errors) {}

  std::vector<SelectorTerm> convert(const SelectorMap& selector, SelectorKind kind,
                                    const FieldPath& path) {
    const size_t before = errors_.size();
    std::vector<SelectorTerm> terms = termsFromSelector(selector, kind, path, errors_);
    if (errors_.size() != before) {
      return terms;
    }
    FieldErrors ignored;
    std::optional<SelectorMap> canonical =
        canonicalSelector(terms, kind, FieldPath("terms"), ignored);
    if (!canonical || *canonical != selector) {
      spellings_[path.str()] = Json(selector);
    }
    return terms;
  }
  // The selectors annotation value, if any selector needs it.
  std::optional<std::string> annotation() const {
    return spellings_.empty() ? std::nullopt : std::optional<std::string>(spellings_.dump());
  }

 private:
  FieldErrors& errors_;
  Json spellings_ = Json::object();
};

// Turns terms back into the legacy map: the recorded spelling while it still yields these
// terms, else the canonical one.
class SelectorRestorer {
 public:
  SelectorRestorer(std::optional<Json> spellings, FieldErrors& errors)
      : spellings_(std::move(spellings)), errors_(errors) {}

  SelectorMap restore(const std::vector<SelectorTerm>& terms, SelectorKind kind,
                      const FieldPath& seedPath, const FieldPath& termsPath) {
    if (spellings_ && spellings_->is_object() && spellings_->contains(seedPath.str())) {
      const Json& recorded = (*spellings_)[seedPath.str()];
      SelectorMap original;
      bool wellFormed = recorded.is_object();
      for (const auto& [k, v] : recorded.items()) {
        wellFormed = wellFormed && v.is_string();
        if (v.is_string()) {
          original[k] = v.get<std::string>();
        }
      }
      FieldErrors scratch;
      if (wellFormed && termsFromSelector(original, kind, seedPath, scratch) == terms &&
          scratch.empty()) {
        return original;
      }
    }
    return canonicalSelector(terms, kind, termsPath, errors_).value_or(SelectorMap{});
  }

 private:
  std::optional<Json> spellings_;
  FieldErrors& errors_;
};

karpenter::NetworkInterface toV1(const seedera::NetworkInterface& ni, const FieldPath& path,
                                 SelectorConverter& selectors) {
  karpenter::NetworkInterface out;
  out.associateCarrierIPAddress = ni.associateCarrierIPAddress;
  out.associatePublicIPAddress = ni.associatePublicIPAddress;
  out.deleteOnTermination = ni.deleteOnTermination;
  out.description = ni.description;
  // v1 requires all three (aws/karpenter-provider-aws v1.14 NetworkInterface); the seed-era
  // schema defaulted them to these.
  out.deviceIndex = ni.deviceIndex.value_or(0);
  out.interfaceType = ni.interfaceType.value_or("interface");
  out.networkCardIndex = ni.networkCardIndex.value_or(0);
  out.ipv4PrefixCount = ni.ipv4PrefixCount;
  out.ipv6PrefixCount = ni.ipv6PrefixCount;
  out.subnetSelectorTerms = toSubnetTerms(
      selectors.convert(ni.subnetSelector, SelectorKind::Subnet, path.child("subnetSelector")));
  out.securityGroupSelectorTerms = toSecurityGroupTerms(selectors.convert(
      ni.securityGroupSelector, SelectorKind::SecurityGroup, path.child("securityGroupSelector")));
  return out;
}

seedera::NetworkInterface toSeedEra(const karpenter::NetworkInterface& ni, const FieldPath& seed,
                                    const FieldPath& v1, SelectorRestorer& selectors) {
  seedera::NetworkInterface out;
  out.associateCarrierIPAddress = ni.associateCarrierIPAddress;
  out.associatePublicIPAddress = ni.associatePublicIPAddress;
  out.deleteOnTermination = ni.deleteOnTermination;
  out.description = ni.description;
  out.deviceIndex = ni.deviceIndex;
  if (!ni.interfaceType.empty()) {
    out.interfaceType = ni.interfaceType;
  }
  out.networkCardIndex = ni.networkCardIndex;
  out.ipv4PrefixCount = ni.ipv4PrefixCount;
  out.ipv6PrefixCount = ni.ipv6PrefixCount;
  out.subnetSelector =
      selectors.restore(toTerms(ni.subnetSelectorTerms), SelectorKind::Subnet,
                        seed.child("subnetSelector"), v1.child("subnetSelectorTerms"));
  out.securityGroupSelector = selectors.restore(
      toTerms(ni.securityGroupSelectorTerms), SelectorKind::SecurityGroup,
      seed.child("securityGroupSelector"), v1.child("securityGroupSelectorTerms"));
  return out;
}

template <class To, class From>
std::optional<To> blockDevice(const std::optional<From>& in) {
  if (!in) {
    return std::nullopt;
  }
  To out;
  out.deleteOnTermination = in->deleteOnTermination;
  out.encrypted = in->encrypted;
  out.iops = in->iops;
  out.kmsKeyID = in->kmsKeyID;
  out.snapshotID = in->snapshotID;
  out.throughput = in->throughput;
  out.volumeSize = in->volumeSize;
  out.volumeType = in->volumeType;
  return out;
}

template <class To, class From>
std::optional<To> metadataOptions(const std::optional<From>& in) {
  if (!in) {
    return std::nullopt;
  }
  To out;
  out.httpEndpoint = in->httpEndpoint;
  out.httpProtocolIPv6 = in->httpProtocolIPv6;
  out.httpPutResponseHopLimit = in->httpPutResponseHopLimit;
  out.httpTokens = in->httpTokens;
  return out;
}

std::vector<SelectorTerm> amiTerms(const seedera::AWSNodeTemplateSpec& s, const FieldPath& spec,
                                   SelectorConverter& selectors, karpenter::EC2NodeClass& out,
                                   FieldErrors& errors) {
  const std::string family = s.amiFamily.value_or("");
  if (family == "Ubuntu") {
    errors.push_back(noEquivalent(spec.child("amiFamily"), kV1Aws,
                                  "use Custom with an amiSelector for Ubuntu AMIs"));
  }
  if (!s.amiSelector.empty()) {
    return selectors.convert(s.amiSelector, SelectorKind::Ami, spec.child("amiSelector"));
  }
  // v1 requires amiSelectorTerms: select the AMI the family resolved to by default.
  std::optional<std::string> alias = aliasForFamily(family);
  if (!alias) {
    if (family != "Ubuntu") {
      errors.push_back({spec.child("amiSelector").str(),
                        fielderr::required() + ": amiFamily " + family +
                            " has no default AMI to select in " + std::string(kV1Aws)});
    }
    return {};
  }
  out.metadata.annotations[kAmiAliasAnnotation] = *alias;
  SelectorTerm term;
  term.alias = *alias;
  return {term};
}

}  // namespace

Converted<karpenter::EC2NodeClass> toEC2NodeClass(const seedera::AWSNodeTemplate& nodeTemplate) {
  FieldErrors errors;
  const FieldPath spec("spec");
  const seedera::AWSNodeTemplateSpec& s = nodeTemplate.spec;
  karpenter::EC2NodeClass out;
  out.apiVersion = kV1Aws;
  out.kind = "EC2NodeClass";
  out.metadata = nodeTemplate.metadata;
  karpenter::EC2NodeClassSpec& c = out.spec;
  SelectorConverter selectors(errors);

  c.subnetSelectorTerms = toSubnetTerms(
      selectors.convert(s.subnetSelector, SelectorKind::Subnet, spec.child("subnetSelector")));
  c.securityGroupSelectorTerms = toSecurityGroupTerms(selectors.convert(
      s.securityGroupSelector, SelectorKind::SecurityGroup, spec.child("securityGroupSelector")));
  c.amiSelectorTerms = toAmiTerms(amiTerms(s, spec, selectors, out, errors));
  c.amiFamily = s.amiFamily.value_or("");
  c.associatePublicIPAddress = s.associatePublicIpAddress;
  c.userData = s.userData;
  c.instanceProfile = s.instanceProfile;
  c.tags = s.tags;
  c.detailedMonitoring = s.detailedMonitoring;
  c.metadataOptions = metadataOptions<karpenter::MetadataOptions>(s.metadataOptions);
  c.context = s.context;
  if (!s.launchTemplate.empty()) {
    errors.push_back(
        {spec.child("launchTemplate").str(),
         fielderr::forbidden("spec.launchTemplateName (an unmanaged launch template) has no " +
                             std::string(kV1Aws) +
                             " equivalent; Karpenter generates the launch template from the "
                             "EC2NodeClass")});
  }
  for (size_t i = 0; i < s.blockDeviceMappings.size(); ++i) {
    const seedera::BlockDeviceMapping& m = s.blockDeviceMappings[i];
    if (!m.virtualName.empty()) {
      errors.push_back(noEquivalent(spec.child("blockDeviceMappings").index(i).child("virtualName"),
                                    kV1Aws,
                                    "instance store volumes are configured by "
                                    "instanceStorePolicy"));
    }
    karpenter::BlockDeviceMapping v1;
    v1.deviceName = m.deviceName;
    v1.ebs = blockDevice<karpenter::BlockDevice>(m.ebs);
    c.blockDeviceMappings.push_back(std::move(v1));
  }
  for (size_t i = 0; i < s.networkInterfaces.size(); ++i) {
    c.networkInterfaces.push_back(
        toV1(s.networkInterfaces[i], spec.child("networkInterfaces").index(i), selectors));
  }

  const seedera::AWSNodeTemplateStatus& st = nodeTemplate.status;
  for (const auto& subnet : st.subnets) {
    out.status.subnets.push_back({subnet.id, subnet.zone, ""});
  }
  for (const auto& group : st.securityGroups) {
    out.status.securityGroups.push_back({group.id, group.name});
  }
  for (const auto& ami : st.amis) {
    karpenter::AMIStatus v1{ami.id, ami.name, {}, false};
    for (const auto& r : ami.requirements) {
      v1.requirements.push_back({r.key, r.operator_, r.values});
    }
    out.status.amis.push_back(std::move(v1));
  }

  if (auto spellings = selectors.annotation()) {
    out.metadata.annotations[kSelectorsAnnotation] = *spellings;
  }
  if (!errors.empty()) {
    return failed(std::move(errors));
  }
  return checkLossless(nodeTemplate, std::move(out), toAWSNodeTemplate, kEC2NodeClassTarget);
}

Converted<seedera::AWSNodeTemplate> toAWSNodeTemplate(const karpenter::EC2NodeClass& nodeClass) {
  FieldErrors errors;
  const FieldPath spec("spec");
  const karpenter::EC2NodeClassSpec& c = nodeClass.spec;
  seedera::AWSNodeTemplate out;
  out.apiVersion = kV1Alpha1Aws;
  out.kind = "AWSNodeTemplate";
  out.metadata = nodeClass.metadata;
  std::optional<Json> spellings = takeJsonAnnotation(out.metadata, kSelectorsAnnotation, errors);
  std::optional<std::string> alias = takeAnnotation(out.metadata, kAmiAliasAnnotation);
  dropConversionAnnotations(out.metadata);
  seedera::AWSNodeTemplateSpec& s = out.spec;
  SelectorRestorer selectors(std::move(spellings), errors);

  s.subnetSelector =
      selectors.restore(toTerms(c.subnetSelectorTerms), SelectorKind::Subnet,
                        spec.child("subnetSelector"), spec.child("subnetSelectorTerms"));
  s.securityGroupSelector = selectors.restore(
      toTerms(c.securityGroupSelectorTerms), SelectorKind::SecurityGroup,
      spec.child("securityGroupSelector"), spec.child("securityGroupSelectorTerms"));
  SelectorTerm aliasTerm;
  aliasTerm.alias = alias.value_or("");
  const bool derivedAlias = alias && toTerms(c.amiSelectorTerms) == std::vector{aliasTerm};
  if (!derivedAlias) {
    s.amiSelector = selectors.restore(toTerms(c.amiSelectorTerms), SelectorKind::Ami,
                                      spec.child("amiSelector"), spec.child("amiSelectorTerms"));
  }
  if (!c.amiFamily.empty()) {
    s.amiFamily = c.amiFamily;
  }
  s.associatePublicIpAddress = c.associatePublicIPAddress;
  s.userData = c.userData;
  s.instanceProfile = c.instanceProfile;
  s.tags = c.tags;
  s.detailedMonitoring = c.detailedMonitoring;
  s.metadataOptions = metadataOptions<seedera::MetadataOptions>(c.metadataOptions);
  s.context = c.context;
  if (!c.role.empty()) {
    errors.push_back(noEquivalent(spec.child("role"), kV1Alpha1Aws, "use instanceProfile"));
  }
  if (!c.capacityReservationSelectorTerms.empty()) {
    errors.push_back(noEquivalent(spec.child("capacityReservationSelectorTerms"), kV1Alpha1Aws));
  }
  if (!c.instanceStorePolicy.empty()) {
    errors.push_back(noEquivalent(spec.child("instanceStorePolicy"), kV1Alpha1Aws));
  }
  if (c.kubelet) {
    errors.push_back(noEquivalent(spec.child("kubelet"), kV1Alpha1Aws,
                                  "set kubeletConfiguration on the Provisioner"));
  }
  for (size_t i = 0; i < c.blockDeviceMappings.size(); ++i) {
    const karpenter::BlockDeviceMapping& m = c.blockDeviceMappings[i];
    if (m.rootVolume) {
      errors.push_back(noEquivalent(spec.child("blockDeviceMappings").index(i).child("rootVolume"),
                                    kV1Alpha1Aws));
    }
    seedera::BlockDeviceMapping seed;
    seed.deviceName = m.deviceName;
    seed.ebs = blockDevice<seedera::BlockDevice>(m.ebs);
    s.blockDeviceMappings.push_back(std::move(seed));
  }
  for (size_t i = 0; i < c.networkInterfaces.size(); ++i) {
    const FieldPath at = spec.child("networkInterfaces").index(i);
    s.networkInterfaces.push_back(toSeedEra(c.networkInterfaces[i], at, at, selectors));
  }

  const karpenter::EC2NodeClassStatus& st = nodeClass.status;
  for (const auto& subnet : st.subnets) {
    out.status.subnets.push_back({subnet.id, subnet.zone});
  }
  for (const auto& group : st.securityGroups) {
    out.status.securityGroups.push_back({group.id, group.name});
  }
  for (const auto& ami : st.amis) {
    seedera::AMIStatus seed{ami.id, ami.name, {}};
    for (const auto& r : ami.requirements) {
      seed.requirements.push_back({r.key, r.operator_, r.values});
    }
    out.status.amis.push_back(std::move(seed));
  }
  if (!errors.empty()) {
    return failed(std::move(errors));
  }
  return out;
}

}  // namespace nodewright::api::conversion
