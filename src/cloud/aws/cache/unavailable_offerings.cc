#include "cloud/aws/cache/unavailable_offerings.h"

#include "core/log.h"

namespace nodewright::cloud::aws {

UnavailableOfferings::UnavailableOfferings(const core::Clock& clock, std::chrono::seconds ttl)
    : clock_(clock), ttl_(ttl) {}

void UnavailableOfferings::markUnavailable(std::string_view instanceType, std::string_view zone,
                                           std::string_view capacityType, std::string_view reason) {
  core::logDebug("aws: offering unavailable", {{"instance-type", instanceType},
                                               {"zone", zone},
                                               {"capacity-type", capacityType},
                                               {"reason", reason}});
  std::lock_guard lock(mu_);
  expires_[Key(instanceType, zone, capacityType)] = clock_.steadyNow() + ttl_;
  ++generation_;
}

bool UnavailableOfferings::isUnavailable(std::string_view instanceType, std::string_view zone,
                                         std::string_view capacityType) const {
  std::lock_guard lock(mu_);
  auto it = expires_.find(Key(instanceType, zone, capacityType));
  return it != expires_.end() && clock_.steadyNow() < it->second;
}

uint64_t UnavailableOfferings::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

}  // namespace nodewright::cloud::aws
