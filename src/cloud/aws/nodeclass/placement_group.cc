#include "aws/error_class.h"
#include "cloud/aws/nodeclass/lookup.h"

namespace nodewright::cloud::aws::nodeclass {

core::Result<std::optional<sdk::PlacementGroup>> findPlacementGroup(
    sdk::Ec2Client& ec2, const api::karpenter::PlacementGroupSelector& selector) {
  std::vector<std::string> ids;
  std::vector<std::string> names;
  if (selector.id && !selector.id->empty()) {
    ids.push_back(*selector.id);
  } else if (selector.name && !selector.name->empty()) {
    names.push_back(*selector.name);
  }
  auto found = ec2.describePlacementGroups({{"state", {"available"}}}, ids, names);
  if (!found) {
    // EC2 answers a name or id it does not know with an error, not an empty list.
    if (found.error().code == "InvalidPlacementGroup.Unknown" ||
        sdk::classify(found.error()) == sdk::ErrorClass::NotFound) {
      return std::optional<sdk::PlacementGroup>();
    }
    return core::fail(sdk::toCoreError(found.error()).wrap("describing placement groups"));
  }
  if (found->empty()) {
    return std::optional<sdk::PlacementGroup>();
  }
  return std::optional<sdk::PlacementGroup>(std::move(found->front()));
}

}  // namespace nodewright::cloud::aws::nodeclass
