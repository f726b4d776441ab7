#include "cloud/instance_type.h"

#include <limits>

namespace nodewright::cloud {

ResourceList InstanceType::allocatable() const {
  ResourceList out = capacity;
  for (const ResourceList* reserved : {&kubeReserved, &systemReserved, &evictionThreshold}) {
    for (const auto& [name, amount] : *reserved) {
      auto it = out.find(name);
      if (it == out.end()) {
        continue;
      }
      it->second -= amount;
      if (it->second < core::Quantity()) {
        it->second = core::Quantity::fromInt(0, it->second.format());
      }
    }
  }
  return out;
}

core::Quantity InstanceType::allocatable(const std::string& resource) const {
  auto it = capacity.find(resource);
  if (it == capacity.end()) {
    return core::Quantity();
  }
  core::Quantity left = it->second;
  for (const ResourceList* reserved : {&kubeReserved, &systemReserved, &evictionThreshold}) {
    if (auto r = reserved->find(resource); r != reserved->end()) {
      left -= r->second;
    }
  }
  return left < core::Quantity() ? core::Quantity::fromInt(0, left.format()) : left;
}

double InstanceType::cheapestAvailablePrice() const {
  double best = std::numeric_limits<double>::infinity();
  for (const Offering& offering : offerings) {
    if (offering.available && offering.pricePerHour < best) {
      best = offering.pricePerHour;
    }
  }
  return best;
}

}  // namespace nodewright::cloud
