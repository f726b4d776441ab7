#include "cloud/candidates.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "api/labels.h"
#include "cloud/well_known_labels.h"

namespace nodewright::cloud {
namespace {

using Requirements = std::vector<api::karpenter::NodeSelectorRequirementWithMinValues>;

bool isOfferingKey(const std::string& key) {
  return key == labels::kZone || key == labels::kCapacityType;
}

bool typeAllowed(const InstanceType& type, const Requirements& requirements) {
  for (const auto& r : requirements) {
    if (isOfferingKey(r.key) ||
        (!type.labels.contains(r.key) && !labels::definedByInstanceType(r.key))) {
      continue;
    }
    if (r.key == labels::kInstanceTenancy) {
      if (!labels::tenancyAllowed([&](std::string_view t) {
            return api::matches(r.key, r.operator_, r.values, {{r.key, std::string(t)}});
          })) {
        return false;
      }
      continue;
    }
    if (!api::matches(r.key, r.operator_, r.values, type.labels)) {
      return false;
    }
  }
  return true;
}

// Evaluates the claim's zone and capacity-type requirements against offerings, reusing one
// label map: a claim is checked against thousands of offerings.
class OfferingFilter {
 public:
  explicit OfferingFilter(const Requirements& requirements) {
    for (const auto& r : requirements) {
      if (isOfferingKey(r.key)) {
        requirements_.push_back(&r);
      }
    }
    labels_[labels::kZone];
    labels_[labels::kCapacityType];
  }

  bool allows(const Offering& offering) {
    if (requirements_.empty()) {
      return true;
    }
    labels_[labels::kZone] = offering.zone;
    labels_[labels::kCapacityType] = offering.capacityType;
    for (const auto* r : requirements_) {
      if (!api::matches(r->key, r->operator_, r->values, labels_)) {
        return false;
      }
    }
    return true;
  }

 private:
  std::vector<const api::karpenter::NodeSelectorRequirementWithMinValues*> requirements_;
  api::Labels labels_;
};

bool fits(const InstanceType& type, const ResourceList& requests) {
  for (const auto& [name, amount] : requests) {
    if (type.allocatable(name) < amount) {
      return false;
    }
  }
  return true;
}

std::string describeRequests(const ResourceList& requests) {
  std::string out;
  for (const auto& [name, amount] : requests) {
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", name, amount.toString());
  }
  return out.empty() ? "nothing" : out;
}

// The cheapest available offering of `type` the requirements allow; +inf when there is none.
double cheapestAllowed(const InstanceType& type, OfferingFilter& filter) {
  double best = std::numeric_limits<double>::infinity();
  for (const Offering& o : type.offerings) {
    if (o.available && o.pricePerHour < best && filter.allows(o)) {
      best = o.pricePerHour;
    }
  }
  return best;
}

}  // namespace

CandidateTypes launchableTypes(const std::vector<InstanceType>& types,
                               const api::karpenter::NodeClaim& claim) {
  const Requirements& reqs = claim.spec.requirements;
  std::vector<std::pair<double, const InstanceType*>> priced;
  size_t allowed = 0;
  size_t fitting = 0;
  OfferingFilter filter(reqs);
  for (const InstanceType& type : types) {
    if (!typeAllowed(type, reqs)) {
      continue;
    }
    ++allowed;
    if (!fits(type, claim.spec.resources.requests)) {
      continue;
    }
    ++fitting;
    if (double price = cheapestAllowed(type, filter);
        price != std::numeric_limits<double>::infinity()) {
      priced.emplace_back(price, &type);
    }
  }
  std::stable_sort(priced.begin(), priced.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  CandidateTypes out;
  out.types.reserve(priced.size());
  for (const auto& [price, type] : priced) {
    out.types.push_back(type);
  }
  if (out.types.empty()) {
    if (allowed == 0) {
      out.emptyReason =
          fmt::format("none of {} instance types meets the requirements", types.size());
    } else if (fitting == 0) {
      out.emptyReason = fmt::format("none of the {} allowed instance types fits {}", allowed,
                                    describeRequests(claim.spec.resources.requests));
    } else {
      out.emptyReason = fmt::format(
          "none of the {} fitting instance types has an available offering in the allowed "
          "zones and capacity types",
          fitting);
    }
  }
  return out;
}

}  // namespace nodewright::cloud
