#include <algorithm>
#include <set>

#include "aws/error_class.h"
#include "cloud/aws/nodeclass/lookup.h"

namespace nodewright::cloud::aws::nodeclass {

core::Result<std::vector<sdk::SecurityGroup>> findSecurityGroups(
    sdk::Ec2Client& ec2, const std::vector<api::karpenter::SecurityGroupSelectorTerm>& terms) {
  std::vector<std::vector<sdk::Filter>> queries;
  sdk::Filter ids{"group-id", {}};
  for (const auto& term : terms) {
    if (!term.id.empty()) {
      ids.values.push_back(term.id);
      continue;
    }
    std::vector<sdk::Filter> filters;
    if (!term.name.empty()) {
      filters.push_back({"group-name", {term.name}});
    }
    addTagFilters(term.tags, filters);
    if (!filters.empty()) {  // a term with nothing to select by would select every group
      queries.push_back(std::move(filters));
    }
  }
  if (!ids.values.empty()) {
    queries.push_back({ids});
  }
  std::vector<sdk::SecurityGroup> out;
  std::set<std::string> seen;
  for (const auto& filters : queries) {
    auto found = ec2.describeSecurityGroups(filters);
    if (!found) {
      return core::fail(sdk::toCoreError(found.error()).wrap("describing security groups"));
    }
    for (sdk::SecurityGroup& group : *found) {
      if (seen.insert(group.groupId).second) {
        out.push_back(std::move(group));
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const sdk::SecurityGroup& a, const sdk::SecurityGroup& b) {
    return a.groupId < b.groupId;
  });
  return out;
}

}  // namespace nodewright::cloud::aws::nodeclass
