#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "api/reflect/field_errors.h"

// The legacy v1alpha1 selector maps and the v1 selector terms they become.
//
// A v1alpha1 selector is one map whose entries are ANDed: "aws-ids" or "aws::ids" holds
// comma-separated IDs, "aws::name" comma-separated names (security groups, AMIs),
// "aws::owners" comma-separated AMI owners, and every other key is a tag ("*" matches any
// value; early versions wrote "", which becomes "*"). v1 terms are ORed and the fields of one
// term ANDed, so:
//   IDs                   -> one {id} term per ID (an id term stands alone in v1)
//   names x owners + tags -> one {name, owner, tags} term per owner and name
//   tags only             -> one {tags} term
// The reverse is unique only up to spelling ("aws-ids" or "aws::ids", spaces after commas);
// canonicalSelector() writes "aws::ids" and plain commas, and the caller keeps the original
// spelling elsewhere when it differs.
namespace nodewright::api::conversion {

enum class SelectorKind { Subnet, SecurityGroup, Ami };

using SelectorMap = std::map<std::string, std::string>;

// A selector term of any of the three kinds (unused fields empty).
struct SelectorTerm {
  std::map<std::string, std::string> tags;
  std::string id;
  std::string name;
  std::string owner;
  std::string alias;
  std::string ssmParameter;
  bool operator==(const SelectorTerm&) const = default;
};

// Terms for a legacy map; what v1 cannot express is reported at `path` (the map's field path).
std::vector<SelectorTerm> termsFromSelector(const SelectorMap& selector, SelectorKind kind,
                                            const FieldPath& path, FieldErrors& errors);

// The one legacy map whose terms these are; what no map can express is reported at
// `termsPath` (the terms' field path).
std::optional<SelectorMap> canonicalSelector(const std::vector<SelectorTerm>& terms,
                                             SelectorKind kind, const FieldPath& termsPath,
                                             FieldErrors& errors);

std::vector<SelectorTerm> toTerms(const std::vector<karpenter::SubnetSelectorTerm>& terms);
std::vector<SelectorTerm> toTerms(const std::vector<karpenter::SecurityGroupSelectorTerm>& terms);
std::vector<SelectorTerm> toTerms(const std::vector<karpenter::AMISelectorTerm>& terms);
std::vector<karpenter::SubnetSelectorTerm> toSubnetTerms(const std::vector<SelectorTerm>& terms);
std::vector<karpenter::SecurityGroupSelectorTerm> toSecurityGroupTerms(
    const std::vector<SelectorTerm>& terms);
std::vector<karpenter::AMISelectorTerm> toAmiTerms(const std::vector<SelectorTerm>& terms);

}  // namespace nodewright::api::conversion
