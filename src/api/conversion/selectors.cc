#include "api/conversion/selectors.h"

#include <algorithm>
#include <sstream>

#include "api/conversion/common.h"

namespace nodewright::api::conversion {
namespace {

constexpr const char* kIdsKey = "aws::ids";
constexpr const char* kLegacyIdsKey = "aws-ids";
constexpr const char* kNameKey = "aws::name";
constexpr const char* kOwnersKey = "aws::owners";

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) {
    return "";
  }
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    item = trim(item);
    if (!item.empty()) {
      out.push_back(std::move(item));
    }
  }
  return out;
}

std::string joinList(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) {
    out += (out.empty() ? "" : ",") + s;
  }
  return out;
}

void addUnique(std::vector<std::string>& list, const std::string& v) {
  if (!v.empty() && std::find(list.begin(), list.end(), v) == list.end()) {
    list.push_back(v);
  }
}

bool isSpecialKey(const std::string& k) {
  return k == kIdsKey || k == kLegacyIdsKey || k == kNameKey || k == kOwnersKey;
}

// The legacy list under `key`, which must name at least one item.
std::vector<std::string> listAt(const SelectorMap& m, const std::string& key, const FieldPath& path,
                                FieldErrors& errors) {
  std::vector<std::string> items = splitList(m.at(key));
  if (items.empty()) {
    errors.push_back(
        {path.key(key).str(), fielderr::invalid(Json(m.at(key)), "must list at least one value")});
  }
  return items;
}

}  // namespace

std::vector<SelectorTerm> termsFromSelector(const SelectorMap& selector, SelectorKind kind,
                                            const FieldPath& path, FieldErrors& errors) {
  std::vector<std::string> ids;
  std::vector<std::string> names;
  std::vector<std::string> owners;
  std::map<std::string, std::string> tags;
  std::string idsKey;
  for (const auto& [key, value] : selector) {
    if (key == kIdsKey || key == kLegacyIdsKey) {
      if (!idsKey.empty()) {
        errors.push_back({path.key(key).str(), fielderr::forbidden("may not be set together with " +
                                                                   path.key(idsKey).str())});
      }
      idsKey = key;
      ids = listAt(selector, key, path, errors);
    } else if (key == kNameKey) {
      if (kind == SelectorKind::Subnet) {
        errors.push_back(noEquivalent(path.key(key), kV1Aws,
                                      "subnets are selected by id or tags; use the Name tag"));
      } else {
        names = listAt(selector, key, path, errors);
      }
    } else if (key == kOwnersKey) {
      if (kind != SelectorKind::Ami) {
        errors.push_back(
            {path.key(key).str(), fielderr::forbidden("owners apply to AMI selectors only")});
      } else {
        owners = listAt(selector, key, path, errors);
      }
    } else {
      // Early v1alpha1 read an empty value as a wildcard; v1 spells that "*".
      tags[key] = value.empty() ? "*" : value;
    }
  }
  std::vector<SelectorTerm> terms;
  if (!ids.empty()) {
    if (!names.empty() || !owners.empty() || !tags.empty()) {
      errors.push_back({path.key(idsKey).str(),
                        fielderr::forbidden("IDs cannot be combined with other keys: a " +
                                            std::string(kV1Aws) + " id term stands alone")});
    }
    for (const std::string& id : ids) {
      SelectorTerm t;
      t.id = id;
      terms.push_back(std::move(t));
    }
    return terms;
  }
  const std::vector<std::string> ownerList = owners.empty() ? std::vector<std::string>{""} : owners;
  const std::vector<std::string> nameList = names.empty() ? std::vector<std::string>{""} : names;
  if (names.empty() && owners.empty() && tags.empty()) {
    return terms;
  }
  for (const std::string& owner : ownerList) {
    for (const std::string& name : nameList) {
      SelectorTerm t;
      t.tags = tags;
      t.name = name;
      t.owner = owner;
      terms.push_back(std::move(t));
    }
  }
  return terms;
}

std::optional<SelectorMap> canonicalSelector(const std::vector<SelectorTerm>& terms,
                                             SelectorKind kind, const FieldPath& termsPath,
                                             FieldErrors& errors) {
  (void)kind;  // the v1 term types already exclude what a kind cannot select by
  const size_t before = errors.size();
  size_t idTerms = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!terms[i].alias.empty()) {
      errors.push_back(noEquivalent(termsPath.index(i).child("alias"), kV1Alpha1Aws,
                                    "select the AMI by id, name or tags"));
    }
    if (!terms[i].ssmParameter.empty()) {
      errors.push_back(noEquivalent(termsPath.index(i).child("ssmParameter"), kV1Alpha1Aws));
    }
    idTerms += terms[i].id.empty() ? 0 : 1;
  }
  if (errors.size() != before) {
    return std::nullopt;
  }
  SelectorMap out;
  if (terms.empty()) {
    return out;
  }
  if (idTerms == terms.size()) {
    std::vector<std::string> ids;
    for (size_t i = 0; i < terms.size(); ++i) {
      SelectorTerm bare;
      bare.id = terms[i].id;
      if (terms[i] != bare || terms[i].id.find(',') != std::string::npos) {
        errors.push_back({termsPath.index(i).str(),
                          fielderr::forbidden("only a bare id term can be expressed as a " +
                                              std::string(kV1Alpha1Aws) + " ID list")});
      }
      ids.push_back(terms[i].id);
    }
    out[kIdsKey] = joinList(ids);
    return errors.size() == before ? std::optional<SelectorMap>(out) : std::nullopt;
  }
  if (idTerms != 0) {
    errors.push_back(
        {termsPath.str(), fielderr::forbidden("id terms mixed with other terms cannot be expressed "
                                              "as one " +
                                              std::string(kV1Alpha1Aws) + " selector")});
    return std::nullopt;
  }
  std::vector<std::string> names;
  std::vector<std::string> owners;
  for (const SelectorTerm& t : terms) {
    addUnique(names, t.name);
    addUnique(owners, t.owner);
  }
  // The terms must be exactly what termsFromSelector() makes of one map.
  std::vector<SelectorTerm> expected;
  for (const std::string& owner : owners.empty() ? std::vector<std::string>{""} : owners) {
    for (const std::string& name : names.empty() ? std::vector<std::string>{""} : names) {
      SelectorTerm t;
      t.tags = terms.front().tags;
      t.name = name;
      t.owner = owner;
      expected.push_back(std::move(t));
    }
  }
  bool commas = std::any_of(terms.begin(), terms.end(), [](const SelectorTerm& t) {
    return t.name.find(',') != std::string::npos || t.owner.find(',') != std::string::npos;
  });
  if (expected != terms || commas) {
    errors.push_back(
        {termsPath.str(),
         fielderr::forbidden("these terms are not one tag set crossed with names and owners, so "
                             "no single " +
                             std::string(kV1Alpha1Aws) +
                             " selector expresses "
                             "them")});
    return std::nullopt;
  }
  for (const auto& [key, value] : terms.front().tags) {
    if (isSpecialKey(key)) {
      errors.push_back({termsPath.index(0).child("tags").key(key).str(),
                        fielderr::forbidden(
                            "a tag with this key would be read as a v1alpha1 selector keyword")});
    }
    out[key] = value;
  }
  if (!names.empty()) {
    out[kNameKey] = joinList(names);
  }
  if (!owners.empty()) {
    out[kOwnersKey] = joinList(owners);
  }
  return errors.size() == before ? std::optional<SelectorMap>(out) : std::nullopt;
}

std::vector<SelectorTerm> toTerms(const std::vector<karpenter::SubnetSelectorTerm>& terms) {
  std::vector<SelectorTerm> out;
  for (const auto& t : terms) {
    SelectorTerm g;
    g.tags = t.tags;
    g.id = t.id;
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<SelectorTerm> toTerms(const std::vector<karpenter::SecurityGroupSelectorTerm>& terms) {
  std::vector<SelectorTerm> out;
  for (const auto& t : terms) {
    SelectorTerm g;
    g.tags = t.tags;
    g.id = t.id;
    g.name = t.name;
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<SelectorTerm> toTerms(const std::vector<karpenter::AMISelectorTerm>& terms) {
  std::vector<SelectorTerm> out;
  for (const auto& t : terms) {
    SelectorTerm g;
    g.tags = t.tags;
    g.id = t.id;
    g.name = t.name;
    g.owner = t.owner;
    g.alias = t.alias;
    g.ssmParameter = t.ssmParameter;
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<karpenter::SubnetSelectorTerm> toSubnetTerms(const std::vector<SelectorTerm>& terms) {
  std::vector<karpenter::SubnetSelectorTerm> out;
  for (const SelectorTerm& g : terms) {
    out.push_back({g.tags, g.id});
  }
  return out;
}

std::vector<karpenter::SecurityGroupSelectorTerm> toSecurityGroupTerms(
    const std::vector<SelectorTerm>& terms) {
  std::vector<karpenter::SecurityGroupSelectorTerm> out;
  for (const SelectorTerm& g : terms) {
    out.push_back({g.tags, g.id, g.name});
  }
  return out;
}

std::vector<karpenter::AMISelectorTerm> toAmiTerms(const std::vector<SelectorTerm>& terms) {
  std::vector<karpenter::AMISelectorTerm> out;
  for (const SelectorTerm& g : terms) {
    karpenter::AMISelectorTerm t;
    t.alias = g.alias;
    t.tags = g.tags;
    t.id = g.id;
    t.name = g.name;
    t.owner = g.owner;
    t.ssmParameter = g.ssmParameter;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace nodewright::api::conversion
