#include "api/karpenter/ec2nodeclass_rules.h"

#include <algorithm>

#include "api/karpenter/rules.h"

namespace nodewright::api::karpenter::rules {
namespace {

const std::vector<std::string> kAliasFamilies = {"al2", "al2023", "bottlerocket", "windows2019",
                                                 "windows2022"};

// "subnet-0a1b2c" for prefix "subnet-": the shape of an EC2 resource id.
bool isEc2Id(std::string_view id, std::string_view prefix) {
  if (id.size() <= prefix.size() || id.substr(0, prefix.size()) != prefix) {
    return false;
  }
  return std::all_of(id.begin() + static_cast<std::ptrdiff_t>(prefix.size()), id.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); });
}

void checkId(const std::string& id, std::string_view prefix, const FieldPath& path,
             FieldErrors& errs) {
  if (!id.empty() && !isEc2Id(id, prefix)) {
    errs.push_back({path.str(), fielderr::invalid(
                                    Json(id), "must match " + std::string(prefix) + "[0-9a-z]+")});
  }
}

std::string exclusive(std::string_view field, std::string_view list) {
  return fielderr::forbidden("'" + std::string(field) +
                             "' is mutually exclusive, cannot be set with a combination of other "
                             "fields in " +
                             std::string(list));
}

std::string expectedOneOf(std::string_view fields) {
  return fielderr::required() + ": expected at least one of " + std::string(fields);
}

void validateAlias(const std::string& alias, const FieldPath& path, FieldErrors& errs) {
  size_t at = alias.find('@');
  std::string family = alias.substr(0, at);
  bool shaped = at != std::string::npos && at > 0 && at + 1 < alias.size() &&
                std::all_of(family.begin(), family.end(), [](char c) {
                  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
                });
  if (!shaped) {
    errs.push_back(
        {path.str(), fielderr::invalid(Json(alias), "must match the format 'family@version'")});
    return;
  }
  if (std::find(kAliasFamilies.begin(), kAliasFamilies.end(), family) == kAliasFamilies.end()) {
    errs.push_back({path.str(), fielderr::unsupported(Json(family), kAliasFamilies)});
    return;
  }
  if (family.rfind("windows", 0) == 0 && alias.substr(at + 1) != "latest") {
    errs.push_back(
        {path.str(), fielderr::invalid(Json(alias), "Windows AMIs cannot be pinned; use @latest")});
  }
}

void validateTags(const std::map<std::string, std::string>& tags, const FieldPath& path,
                  FieldErrors& errs) {
  static const std::vector<std::string> kRestricted = {
      "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.sh/managed-by",
      "karpenter.k8s.aws/ec2nodeclass", "eks:eks-cluster-name"};
  for (const auto& [key, value] : tags) {
    FieldPath at = path.key(key);
    if (key.empty()) {
      errs.push_back({at.str(), fielderr::invalid(Json(key), "empty tag keys aren't supported")});
    } else if (key.rfind("kubernetes.io/cluster", 0) == 0) {
      errs.push_back({at.str(), fielderr::invalid(Json(key),
                                                  "tag contains a restricted tag matching "
                                                  "kubernetes.io/cluster/")});
    } else if (std::find(kRestricted.begin(), kRestricted.end(), key) != kRestricted.end()) {
      errs.push_back({at.str(), fielderr::invalid(
                                    Json(key), "tag contains a restricted tag matching " + key)});
    }
  }
}

void validateAmiSelection(const EC2NodeClassSpec& s, const FieldPath& p, FieldErrors& errs) {
  std::string aliasFamily;
  for (size_t i = 0; i < s.amiSelectorTerms.size(); ++i) {
    const std::string& alias = s.amiSelectorTerms[i].alias;
    if (alias.empty()) {
      continue;
    }
    aliasFamily = alias.substr(0, alias.find('@'));
    if (s.amiSelectorTerms.size() > 1) {
      errs.push_back({p.child("amiSelectorTerms").index(i).child("alias").str(),
                      fielderr::forbidden("an alias term must be the only amiSelectorTerm")});
    }
  }
  if (s.amiSelectorTerms.empty()) {
    return;  // reported as a required field
  }
  if (aliasFamily.empty()) {
    if (s.amiFamily.empty()) {
      errs.push_back({p.child("amiFamily").str(),
                      fielderr::required() + ": amiFamily must be set when no amiSelectorTerm "
                                             "uses an alias"});
    }
    return;
  }
  static const std::map<std::string, std::string> kFamilyOf = {{"al2", "AL2"},
                                                               {"al2023", "AL2023"},
                                                               {"bottlerocket", "Bottlerocket"},
                                                               {"windows2019", "Windows2019"},
                                                               {"windows2022", "Windows2022"}};
  auto it = kFamilyOf.find(aliasFamily);
  bool knownFamily = std::any_of(kFamilyOf.begin(), kFamilyOf.end(),
                                 [&](const auto& f) { return f.second == s.amiFamily; });
  // An unknown amiFamily is already reported by its enum.
  if (it != kFamilyOf.end() && knownFamily && s.amiFamily != it->second) {
    errs.push_back(
        {p.child("amiFamily").str(),
         fielderr::invalid(Json(s.amiFamily), "must be '" + it->second + "' or 'Custom' with an " +
                                                  aliasFamily + " alias")});
  }
}

void validateNetworkInterfaces(const EC2NodeClassSpec& s, const FieldPath& p, FieldErrors& errs) {
  const auto& nis = s.networkInterfaces;
  if (nis.empty()) {
    return;
  }
  FieldPath list = p.child("networkInterfaces");
  if (s.associatePublicIPAddress) {
    errs.push_back({p.child("associatePublicIPAddress").str(),
                    fielderr::forbidden("cannot be combined with networkInterfaces; set "
                                        "networkInterfaces[0].associatePublicIPAddress instead")});
  }
  bool hasPrimary = false;
  for (size_t i = 0; i < nis.size(); ++i) {
    const NetworkInterface& ni = nis[i];
    FieldPath at = list.index(i);
    bool primary = ni.deviceIndex.value_or(0) == 0;
    bool publicIp = ni.associatePublicIPAddress.value_or(false);
    bool carrierIp = ni.associateCarrierIPAddress.value_or(false);
    if (primary) {
      hasPrimary = true;
      int32_t card = ni.networkCardIndex.value_or(0);
      if (card != 0) {
        errs.push_back(
            {at.child("networkCardIndex").str(),
             fielderr::invalid(Json(card),
                               "the primary interface (deviceIndex 0) must be on network card 0")});
      }
      if (ni.interfaceType == "efa-only") {
        errs.push_back(
            {at.child("interfaceType").str(),
             fielderr::invalid(Json(ni.interfaceType),
                               "the primary interface (deviceIndex 0) cannot be efa-only")});
      }
    }
    if (publicIp && carrierIp) {
      errs.push_back({at.child("associateCarrierIPAddress").str(),
                      fielderr::forbidden("cannot be combined with associatePublicIPAddress")});
    }
    auto addressRule = [&](bool set, const char* field, const char* what) {
      if (!set) {
        return;
      }
      if (!primary) {
        errs.push_back(
            {at.child(field).str(), fielderr::forbidden(std::string("only the primary interface "
                                                                    "(deviceIndex 0) can have a ") +
                                                        what)});
      } else if (nis.size() > 1) {
        errs.push_back(
            {at.child(field).str(), fielderr::forbidden(std::string("EC2 assigns a ") + what +
                                                        " only when a single network interface is "
                                                        "launched")});
      }
    };
    addressRule(publicIp, "associatePublicIPAddress", "public IP address");
    addressRule(carrierIp, "associateCarrierIPAddress", "carrier IP address");
  }
  if (!hasPrimary) {
    errs.push_back({list.str(), fielderr::required() +
                                    ": one interface must be the primary (deviceIndex 0 on "
                                    "network card 0)"});
  }
}

}  // namespace

void validateSubnetTerm(const SubnetSelectorTerm& t, const FieldPath& p, FieldErrors& errs) {
  if (t.tags.empty() && t.id.empty()) {
    errs.push_back({p.str(), expectedOneOf("'tags', 'id'")});
  }
  if (!t.id.empty() && !t.tags.empty()) {
    errs.push_back({p.child("id").str(), exclusive("id", "subnetSelectorTerms")});
  }
  checkId(t.id, "subnet-", p.child("id"), errs);
  rules::validateSelectorTags(t.tags, p.child("tags"), errs);
}

void validateSecurityGroupTerm(const SecurityGroupSelectorTerm& t, const FieldPath& p,
                               FieldErrors& errs) {
  if (t.tags.empty() && t.id.empty() && t.name.empty()) {
    errs.push_back({p.str(), expectedOneOf("'tags', 'id', 'name'")});
  }
  if (!t.id.empty() && (!t.tags.empty() || !t.name.empty())) {
    errs.push_back({p.child("id").str(), exclusive("id", "securityGroupSelectorTerms")});
  } else if (!t.name.empty() && !t.tags.empty()) {
    errs.push_back({p.child("name").str(), exclusive("name", "securityGroupSelectorTerms")});
  }
  checkId(t.id, "sg-", p.child("id"), errs);
  rules::validateSelectorTags(t.tags, p.child("tags"), errs);
}

void validateAmiTerm(const AMISelectorTerm& t, const FieldPath& p, FieldErrors& errs) {
  bool others = !t.tags.empty() || !t.name.empty() || !t.owner.empty() || !t.ssmParameter.empty();
  if (t.alias.empty() && t.id.empty() && t.tags.empty() && t.name.empty() &&
      t.ssmParameter.empty()) {
    errs.push_back({p.str(), expectedOneOf("'tags', 'id', 'name', 'alias', 'ssmParameter'")});
  }
  if (!t.alias.empty() && (others || !t.id.empty())) {
    errs.push_back({p.child("alias").str(), exclusive("alias", "amiSelectorTerms")});
  } else if (!t.id.empty() && others) {
    errs.push_back({p.child("id").str(), exclusive("id", "amiSelectorTerms")});
  }
  if (!t.alias.empty()) {
    validateAlias(t.alias, p.child("alias"), errs);
  }
  checkId(t.id, "ami-", p.child("id"), errs);
  rules::validateSelectorTags(t.tags, p.child("tags"), errs);
}

void validateCapacityReservationTerm(const CapacityReservationSelectorTerm& t, const FieldPath& p,
                                     FieldErrors& errs) {
  if (t.tags.empty() && t.id.empty()) {
    errs.push_back({p.str(), expectedOneOf("'tags', 'id'")});
  }
  if (!t.id.empty() && (!t.tags.empty() || !t.ownerID.empty())) {
    errs.push_back({p.child("id").str(), exclusive("id", "capacityReservationSelectorTerms")});
  }
  checkId(t.id, "cr-", p.child("id"), errs);
  if (!t.ownerID.empty() &&
      (t.ownerID.size() != 12 || !std::all_of(t.ownerID.begin(), t.ownerID.end(),
                                              [](char c) { return c >= '0' && c <= '9'; }))) {
    errs.push_back({p.child("ownerID").str(),
                    fielderr::invalid(Json(t.ownerID), "must be a 12-digit account ID")});
  }
  rules::validateSelectorTags(t.tags, p.child("tags"), errs);
}

void validateBlockDevice(const BlockDevice& d, const FieldPath& p, FieldErrors& errs) {
  if (d.snapshotID.empty() && !d.volumeSize) {
    errs.push_back({p.str(), fielderr::required() + ": snapshotID or volumeSize must be defined"});
  }
  if (d.volumeSize && *d.volumeSize <= core::Quantity()) {
    errs.push_back({p.child("volumeSize").str(), fielderr::invalid(Json(d.volumeSize->toString()),
                                                                   "must be greater than zero")});
  }
}

void validateEc2NodeClassSpec(const EC2NodeClassSpec& s, const FieldPath& p, FieldErrors& errs) {
  validateAmiSelection(s, p, errs);
  if (s.role.empty() && s.instanceProfile.empty()) {
    errs.push_back({p.str(), fielderr::required() +
                                 ": must specify exactly one of 'role', 'instanceProfile'"});
  } else if (!s.role.empty() && !s.instanceProfile.empty()) {
    errs.push_back({p.child("instanceProfile").str(),
                    fielderr::forbidden("must specify exactly one of 'role', 'instanceProfile'")});
  }
  validateTags(s.tags, p.child("tags"), errs);
  bool seenRoot = false;
  for (size_t i = 0; i < s.blockDeviceMappings.size(); ++i) {
    if (!s.blockDeviceMappings[i].rootVolume) {
      continue;
    }
    if (seenRoot) {
      errs.push_back({p.child("blockDeviceMappings").index(i).child("rootVolume").str(),
                      fielderr::invalid(Json(true),
                                        "at most one blockDeviceMapping can be the "
                                        "root volume")});
    }
    seenRoot = true;
  }
  validateNetworkInterfaces(s, p, errs);
}

}  // namespace nodewright::api::karpenter::rules
