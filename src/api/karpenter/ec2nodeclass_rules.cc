#include "api/karpenter/ec2nodeclass_rules.h"

#include <algorithm>
#include <regex>

#include "api/karpenter/rules.h"

namespace nodewright::api::karpenter::rules {
namespace {

const std::vector<std::string> kAliasFamilies = {"al2",         "al2023",      "bottlerocket",
                                                 "windows2019", "windows2022", "windows2025"};

// The CRD's id patterns of subnets, security groups and AMIs are unanchored: "subnet-" followed by
// a lower-case letter or digit anywhere in the id.
void checkIdSearch(const std::string& id, std::string_view prefix, const FieldPath& path,
                   FieldErrors& errs) {
  for (size_t at = id.find(prefix); at != std::string::npos; at = id.find(prefix, at + 1)) {
    size_t next = at + prefix.size();
    if (next < id.size() &&
        ((id[next] >= '0' && id[next] <= '9') || (id[next] >= 'a' && id[next] <= 'z'))) {
      return;
    }
  }
  if (!id.empty()) {
    errs.push_back({path.str(), fielderr::invalid(Json(id), "should match '" + std::string(prefix) +
                                                                "[0-9a-z]+'")});
  }
}

// A failed x-kubernetes-validations rule, as kube-apiserver words it: the value's type, then the
// rule's message.
std::string ruleFailed(std::string_view type, std::string_view message) {
  return fielderr::invalid(Json(type), message);
}

std::string exclusive(std::string_view field, std::string_view where) {
  return ruleFailed("array", "'" + std::string(field) +
                                 "' is mutually exclusive, cannot be set with a combination of "
                                 "other fields in " +
                                 std::string(where));
}

std::string expectedOneOf(std::string_view fields) {
  return ruleFailed("array", "expected at least one, got none, [" + std::string(fields) + "]");
}

void validateAlias(const std::string& alias, const FieldPath& path, FieldErrors& errs) {
  size_t at = alias.find('@');
  std::string family = alias.substr(0, at);
  bool shaped = at != std::string::npos && at > 0 && at + 1 < alias.size() &&
                std::all_of(family.begin(), family.end(), [](char c) {
                  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
                });
  if (!shaped) {
    errs.push_back({path.str(), ruleFailed("string",
                                           "'alias' is improperly formatted, must match "
                                           "the format 'family@version'")});
  }
  if (std::find(kAliasFamilies.begin(), kAliasFamilies.end(), family) == kAliasFamilies.end()) {
    errs.push_back(
        {path.str(), ruleFailed("string",
                                "family is not supported, must be one of the following: 'al2', "
                                "'al2023', 'bottlerocket', 'windows2019', 'windows2022', "
                                "'windows2025'")});
  } else if (family.rfind("windows", 0) == 0 &&
             (at == std::string::npos || alias.substr(at + 1) != "latest")) {
    errs.push_back(
        {path.str(), ruleFailed("string", "windows families may only specify version 'latest'")});
  }
}

void validateTags(const std::map<std::string, std::string>& tags, const FieldPath& path,
                  FieldErrors& errs) {
  static const std::vector<std::string> kRestricted = {
      "eks:eks-cluster-name", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim",
      "karpenter.k8s.aws/ec2nodeclass"};
  for (const auto& [key, value] : tags) {
    if (key.empty()) {
      errs.push_back({path.str(), ruleFailed("object", "empty tag keys aren't supported")});
    } else if (key.rfind("kubernetes.io/cluster", 0) == 0) {
      errs.push_back({path.str(), ruleFailed("object",
                                             "tag contains a restricted tag matching "
                                             "kubernetes.io/cluster/")});
    } else if (std::find(kRestricted.begin(), kRestricted.end(), key) != kRestricted.end()) {
      errs.push_back(
          {path.str(), ruleFailed("object", "tag contains a restricted tag matching " + key)});
    }
  }
}

void validateAmiTerms(const std::vector<AMISelectorTerm>& terms, const FieldPath& path,
                      FieldErrors& errs) {
  bool allSelect = true;
  bool idWithOthers = false;
  bool aliasWithOthers = false;
  bool anyAlias = false;
  for (const AMISelectorTerm& t : terms) {
    allSelect = allSelect && (!t.tags.empty() || !t.id.empty() || !t.name.empty() ||
                              !t.alias.empty() || !t.ssmParameter.empty());
    bool others = !t.tags.empty() || !t.name.empty() || !t.owner.empty();
    idWithOthers = idWithOthers || (!t.id.empty() && (!t.alias.empty() || others));
    aliasWithOthers = aliasWithOthers || (!t.alias.empty() && (!t.id.empty() || others));
    anyAlias = anyAlias || !t.alias.empty();
  }
  if (!allSelect) {
    errs.push_back({path.str(), expectedOneOf("'tags', 'id', 'name', 'alias', 'ssmParameter'")});
  }
  if (idWithOthers) {
    errs.push_back({path.str(), exclusive("id", "amiSelectorTerms")});
  }
  if (aliasWithOthers) {
    errs.push_back({path.str(), exclusive("alias", "amiSelectorTerms")});
  }
  if (anyAlias && terms.size() != 1) {
    errs.push_back({path.str(), ruleFailed("array",
                                           "'alias' is mutually exclusive, cannot be set with a "
                                           "combination of other amiSelectorTerms")});
  }
}

void validateCapacityReservationTerms(const std::vector<CapacityReservationSelectorTerm>& terms,
                                      const FieldPath& path, FieldErrors& errs) {
  if (terms.empty()) {
    return;
  }
  bool allSelect = std::all_of(terms.begin(), terms.end(), [](const auto& t) {
    return !t.tags.empty() || !t.id.empty() || !t.instanceMatchCriteria.empty();
  });
  bool allIdWithOthers = std::all_of(terms.begin(), terms.end(), [](const auto& t) {
    return !t.id.empty() &&
           (!t.tags.empty() || !t.ownerID.empty() || !t.instanceMatchCriteria.empty());
  });
  if (!allSelect) {
    errs.push_back({path.str(), expectedOneOf("'tags', 'id', 'instanceMatchCriteria'")});
  }
  if (allIdWithOthers) {
    errs.push_back({path.str(), ruleFailed("array",
                                           "'id' is mutually exclusive, cannot be set along with "
                                           "other fields in a capacity reservation selector "
                                           "term")});
  }
}

// The amiFamily an alias family implies.
const std::map<std::string, std::string>& familyOfAlias() {
  static const std::map<std::string, std::string> kFamilyOf = {{"al2", "AL2"},
                                                               {"al2023", "AL2023"},
                                                               {"bottlerocket", "Bottlerocket"},
                                                               {"windows2019", "Windows2019"},
                                                               {"windows2022", "Windows2022"},
                                                               {"windows2025", "Windows2025"}};
  return kFamilyOf;
}

void validateAmiSelection(const EC2NodeClassSpec& s, const FieldPath& p, FieldErrors& errs) {
  bool anyAlias = false;
  for (const AMISelectorTerm& t : s.amiSelectorTerms) {
    if (t.alias.empty()) {
      continue;
    }
    anyAlias = true;
    auto it = familyOfAlias().find(t.alias.substr(0, t.alias.find('@')));
    if (!s.amiFamily.empty() && it != familyOfAlias().end() && s.amiFamily != "Custom" &&
        s.amiFamily != it->second) {
      std::string pretty = it->second == "Bottlerocket" ? "a Bottlerocket" : "an " + it->second;
      if (it->first.rfind("windows", 0) == 0) {
        pretty = "a " + it->second;
      }
      errs.push_back(
          {p.str(), ruleFailed("object", "if set, amiFamily must be '" + it->second +
                                             "' or 'Custom' when using " + pretty + " alias")});
    }
  }
  if (!anyAlias && s.amiFamily.empty()) {
    errs.push_back({p.str(), ruleFailed("object",
                                        "must specify amiFamily if amiSelectorTerms does not "
                                        "contain an alias")});
  }
}

void validateNetworkInterfaces(const EC2NodeClassSpec& s, const FieldPath& p, FieldErrors& errs) {
  const auto& nis = s.networkInterfaces;
  if (nis.empty()) {
    return;
  }
  FieldPath list = p.child("networkInterfaces");
  auto card = [](const NetworkInterface& n) { return n.networkCardIndex.value_or(0); };
  auto device = [](const NetworkInterface& n) { return n.deviceIndex.value_or(0); };
  bool hasPrimary = std::any_of(nis.begin(), nis.end(), [&](const NetworkInterface& n) {
    return device(n) == 0 && card(n) == 0 && n.interfaceType == "interface";
  });
  if (!hasPrimary) {
    errs.push_back({list.str(), ruleFailed("array",
                                           "networkInterfaces must include a primary interface "
                                           "with interfaceType='interface'")});
  }
  bool unique = std::all_of(nis.begin(), nis.end(), [&](const NetworkInterface& x) {
    auto same = std::count_if(nis.begin(), nis.end(), [&](const NetworkInterface& y) {
      return card(x) == card(y) && device(x) == device(y);
    });
    auto efaOnCard = std::count_if(nis.begin(), nis.end(), [&](const NetworkInterface& y) {
      return card(x) == card(y) && y.interfaceType == "efa-only";
    });
    return same == 1 && (x.interfaceType != "efa-only" || efaOnCard == 1);
  });
  if (!unique) {
    errs.push_back({list.str(), ruleFailed("array",
                                           "networkInterfaces must not have duplicate "
                                           "networkCardIndex and deviceIndex pairs, and can have "
                                           "at most one efa device per network card")});
  }
  // Seed 001's address fields: EC2 assigns a public or carrier address to the primary interface
  // of a single-interface launch only.
  for (size_t i = 0; i < nis.size(); ++i) {
    const NetworkInterface& ni = nis[i];
    FieldPath at = list.index(i);
    bool primary = device(ni) == 0 && card(ni) == 0;
    bool publicIp = ni.associatePublicIPAddress.value_or(false);
    bool carrierIp = ni.associateCarrierIPAddress.value_or(false);
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
}

}  // namespace

void validateSubnetTerm(const SubnetSelectorTerm& t, const FieldPath& p, FieldErrors& errs) {
  checkIdSearch(t.id, "subnet-", p.child("id"), errs);
  rules::validateSelectorTags(t.tags, p.child("tags"), errs);
}

void validateSecurityGroupTerm(const SecurityGroupSelectorTerm& t, const FieldPath& p,
                               FieldErrors& errs) {
  checkIdSearch(t.id, "sg-", p.child("id"), errs);
  rules::validateSelectorTags(t.tags, p.child("tags"), errs);
}

void validateAmiTerm(const AMISelectorTerm& t, const FieldPath& p, FieldErrors& errs) {
  if (!t.alias.empty()) {
    validateAlias(t.alias, p.child("alias"), errs);
  }
  checkIdSearch(t.id, "ami-", p.child("id"), errs);
  rules::validateSelectorTags(t.tags, p.child("tags"), errs);
}

void validateCapacityReservationTerm(const CapacityReservationSelectorTerm& t, const FieldPath& p,
                                     FieldErrors& errs) {
  auto allOf = [](const std::string& text, size_t from, auto pred) {
    return text.size() > from &&
           std::all_of(text.begin() + static_cast<std::ptrdiff_t>(from), text.end(), pred);
  };
  auto lowerOrDigit = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!t.id.empty() && !(t.id.rfind("cr-", 0) == 0 && allOf(t.id, 3, lowerOrDigit))) {
    errs.push_back({p.child("id").str(), fielderr::invalid(Json(t.id),
                                                           "should match "
                                                           "'^cr-[0-9a-z]+$'")});
  }
  if (!t.ownerID.empty() && !(t.ownerID.size() == 12 && allOf(t.ownerID, 0, digit))) {
    errs.push_back({p.child("ownerID").str(),
                    fielderr::invalid(Json(t.ownerID), "should match '^[0-9]{12}$'")});
  }
  rules::validateSelectorTags(t.tags, p.child("tags"), errs);
}

void validateSubnetTerms(const std::vector<SubnetSelectorTerm>& terms, const FieldPath& path,
                         FieldErrors& errs) {
  if (terms.empty()) {
    return;  // required, or absent on an interface
  }
  if (!std::all_of(terms.begin(), terms.end(),
                   [](const auto& t) { return !t.tags.empty() || !t.id.empty(); })) {
    errs.push_back({path.str(), expectedOneOf("'tags', 'id'")});
  }
  if (std::all_of(terms.begin(), terms.end(),
                  [](const auto& t) { return !t.id.empty() && !t.tags.empty(); })) {
    errs.push_back({path.str(), exclusive("id", "a subnet selector term")});
  }
}

void validateSecurityGroupTerms(const std::vector<SecurityGroupSelectorTerm>& terms,
                                const FieldPath& path, FieldErrors& errs) {
  if (terms.empty()) {
    return;
  }
  if (!std::all_of(terms.begin(), terms.end(), [](const auto& t) {
        return !t.tags.empty() || !t.id.empty() || !t.name.empty();
      })) {
    errs.push_back({path.str(), expectedOneOf("'tags', 'id', 'name'")});
  }
  if (std::all_of(terms.begin(), terms.end(), [](const auto& t) {
        return !t.id.empty() && (!t.tags.empty() || !t.name.empty());
      })) {
    errs.push_back({path.str(), exclusive("id", "a security group selector term")});
  }
  if (std::all_of(terms.begin(), terms.end(), [](const auto& t) {
        return !t.name.empty() && (!t.tags.empty() || !t.id.empty());
      })) {
    errs.push_back({path.str(), exclusive("name", "a security group selector term")});
  }
}

void validatePlacementGroupSelector(const PlacementGroupSelector& s, const FieldPath& p,
                                    FieldErrors& errs) {
  if (!s.name && !s.id) {
    errs.push_back({p.str(), ruleFailed("object",
                                        "expected at least one, got none, ['name', "
                                        "'id']")});
  }
  if (s.name && s.id) {
    errs.push_back({p.str(), ruleFailed("object", "'name' and 'id' are mutually exclusive")});
  }
  if (s.name && s.name->empty()) {
    errs.push_back(
        {p.child("name").str(), fielderr::invalid(Json(""), "should be at least 1 chars long")});
  }
  static const std::regex kId("^pg-[0-9a-z]+$");
  if (s.id && !std::regex_match(*s.id, kId)) {
    errs.push_back(
        {p.child("id").str(), fielderr::invalid(Json(*s.id), "should match '^pg-[0-9a-z]+$'")});
  }
}

void validateConnectionTracking(const ConnectionTracking& c, const FieldPath& p,
                                FieldErrors& errs) {
  if (!c.tcpEstablishedTimeout && !c.udpStreamTimeout && !c.udpTimeout) {
    errs.push_back({p.str(), ruleFailed("object",
                                        "at least one of tcpEstablishedTimeout, udpStreamTimeout, "
                                        "or udpTimeout must be set")});
  }
}

void validateBlockDevice(const BlockDevice& d, const FieldPath& p, FieldErrors& errs) {
  if (d.snapshotID.empty() && !d.volumeSize) {
    errs.push_back({p.str(), ruleFailed("object", "snapshotID or volumeSize must be defined")});
  }
  if (d.volumeInitializationRate && d.snapshotID.empty()) {
    errs.push_back({p.str(), ruleFailed("object",
                                        "snapshotID must be set when volumeInitializationRate is "
                                        "set")});
  }
  static const std::regex kVolumeSize(kVolumeSizePattern);
  if (d.volumeSize) {
    // The canonical text: what a Go client sends for the same quantity.
    std::string text = d.volumeSize->toString();
    if (!std::regex_match(text, kVolumeSize)) {
      errs.push_back({p.child("volumeSize").str(),
                      fielderr::invalid(Json(text),
                                        std::string("should match '") + kVolumeSizePattern + "'")});
    }
  }
}

void validateEc2NodeClassSpec(const EC2NodeClassSpec& s, const FieldPath& p, FieldErrors& errs) {
  validateSubnetTerms(s.subnetSelectorTerms, p.child("subnetSelectorTerms"), errs);
  validateSecurityGroupTerms(s.securityGroupSelectorTerms, p.child("securityGroupSelectorTerms"),
                             errs);
  validateCapacityReservationTerms(s.capacityReservationSelectorTerms,
                                   p.child("capacityReservationSelectorTerms"), errs);
  validateAmiTerms(s.amiSelectorTerms, p.child("amiSelectorTerms"), errs);
  validateAmiSelection(s, p, errs);
  if (s.role.empty() == s.instanceProfile.empty()) {
    errs.push_back(
        {p.str(), ruleFailed("object", "must specify exactly one of ['role', 'instanceProfile']")});
  }
  validateTags(s.tags, p.child("tags"), errs);
  auto roots = std::count_if(s.blockDeviceMappings.begin(), s.blockDeviceMappings.end(),
                             [](const BlockDeviceMapping& m) { return m.rootVolume; });
  if (roots > 1) {
    errs.push_back({p.child("blockDeviceMappings").str(),
                    ruleFailed("array", "must have only one blockDeviceMappings with rootVolume")});
  }
  validateNetworkInterfaces(s, p, errs);
}

}  // namespace nodewright::api::karpenter::rules
