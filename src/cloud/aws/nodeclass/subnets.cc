#include <algorithm>
#include <set>

#include "aws/error_class.h"
#include "cloud/aws/nodeclass/lookup.h"

namespace nodewright::cloud::aws::nodeclass {

void addTagFilters(const std::map<std::string, std::string>& tags,
                   std::vector<sdk::Filter>& filters) {
  for (const auto& [key, value] : tags) {
    if (value == "*") {
      filters.push_back({"tag-key", {key}});
    } else {
      filters.push_back({"tag:" + key, {value}});
    }
  }
}

core::Result<std::vector<sdk::Subnet>> findSubnets(
    sdk::Ec2Client& ec2, const std::vector<api::karpenter::SubnetSelectorTerm>& terms) {
  std::vector<std::vector<sdk::Filter>> queries;
  sdk::Filter ids{"subnet-id", {}};
  for (const auto& term : terms) {
    if (!term.id.empty()) {
      ids.values.push_back(term.id);
      continue;
    }
    std::vector<sdk::Filter> filters;
    addTagFilters(term.tags, filters);
    if (!filters.empty()) {  // a term with nothing to select by would select every subnet
      queries.push_back(std::move(filters));
    }
  }
  if (!ids.values.empty()) {
    queries.push_back({ids});
  }
  std::vector<sdk::Subnet> out;
  std::set<std::string> seen;
  for (const auto& filters : queries) {
    auto found = ec2.describeSubnets(filters);
    if (!found) {
      return core::fail(sdk::toCoreError(found.error()).wrap("describing subnets"));
    }
    for (sdk::Subnet& subnet : *found) {
      if (seen.insert(subnet.subnetId).second) {
        out.push_back(std::move(subnet));
      }
    }
  }
  // Karpenter launches into the subnet with the most free addresses first.
  std::sort(out.begin(), out.end(), [](const sdk::Subnet& a, const sdk::Subnet& b) {
    if (a.availableIpAddressCount != b.availableIpAddressCount) {
      return a.availableIpAddressCount > b.availableIpAddressCount;
    }
    return a.subnetId < b.subnetId;
  });
  return out;
}

}  // namespace nodewright::cloud::aws::nodeclass
