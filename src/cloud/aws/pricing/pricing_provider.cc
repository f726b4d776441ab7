#include "cloud/aws/pricing/pricing_provider.h"

#include <fmt/format.h>

#include "aws/error_class.h"
#include "cloud/aws/pricing/ondemand_prices.h"
#include "core/log.h"

namespace nodewright::cloud::aws {

PricingProvider::PricingProvider(const core::Clock& clock, sdk::Ec2Client& ec2,
                                 sdk::PricingClient* pricing, PricingProviderOptions options)
    : clock_(clock), ec2_(ec2), pricing_(pricing), options_(std::move(options)) {
  for (const OnDemandPrice& price : builtinOnDemandPrices()) {
    onDemand_.emplace(std::string(price.instanceType), price.usdPerHour);
  }
}

std::optional<double> PricingProvider::onDemand(std::string_view instanceType) const {
  std::lock_guard lock(mu_);
  auto it = onDemand_.find(instanceType);
  if (it == onDemand_.end()) {
    return std::nullopt;
  }
  return it->second;
}

std::optional<double> PricingProvider::spot(std::string_view instanceType, std::string_view zone) {
  // A failure is logged by refreshSpot and leaves the last prices, which are still the best
  // answer there is.
  (void)refreshSpotIfStale();
  std::lock_guard lock(mu_);
  auto it = spot_.find(SpotKey(instanceType, zone));
  if (it == spot_.end()) {
    return std::nullopt;
  }
  return it->second;
}

core::Status PricingProvider::refreshOnDemand() {
  if (pricing_ == nullptr) {
    return core::fail(core::Error::invalid("refreshing on-demand prices: no Pricing API client"));
  }
  std::lock_guard refresh(refreshMu_);
  auto prices = pricing_->onDemandLinuxPrices(options_.region);
  if (!prices) {
    core::logWarn("aws: on-demand price refresh failed, keeping the known prices",
                  {{"region", options_.region}, {"error", prices.error().code}});
    return core::fail(sdk::toCoreError(prices.error()).wrap("refreshing on-demand prices"));
  }
  if (prices->empty()) {
    // An empty answer is a filter or region EC2 does not know, not a price list without types.
    return core::fail(core::Error::internal(fmt::format(
        "refreshing on-demand prices: the Pricing API has no prices for {}", options_.region)));
  }
  std::map<std::string, double, std::less<>> next(prices->begin(), prices->end());
  std::lock_guard lock(mu_);
  if (next != onDemand_) {
    onDemand_ = std::move(next);
    ++generation_;
  }
  return core::ok();
}

core::Status PricingProvider::refreshSpot() {
  std::lock_guard refresh(refreshMu_);
  return refreshSpotLocked();
}

core::Status PricingProvider::refreshSpotLocked() {
  auto prices = ec2_.describeSpotPriceHistory({}, clock_.now());
  if (!prices) {
    core::logWarn("aws: spot price refresh failed, keeping the known prices",
                  {{"error", prices.error().code}});
    std::lock_guard lock(mu_);
    spotLastFailure_ = clock_.steadyNow();
    return core::fail(sdk::toCoreError(prices.error()).wrap("describing spot price history"));
  }
  std::map<SpotKey, double, std::less<>> next;
  for (const sdk::SpotPrice& price : *prices) {
    // A price EC2 left out or that did not parse reads 0: such a pool would look free.
    if (price.price > 0) {
      next[SpotKey(price.instanceType, price.availabilityZone)] = price.price;
    }
  }
  std::lock_guard lock(mu_);
  spotFetched_ = clock_.steadyNow();
  spotLastFailure_.reset();
  // Pools missing from this answer keep their last price: EC2 leaves out pools without a
  // recent change only when asked for a time window, and a lost price is worse than an old one.
  bool changed = false;
  for (auto& [key, price] : next) {
    auto [it, inserted] = spot_.try_emplace(key, price);
    if (inserted || it->second != price) {
      it->second = price;
      changed = true;
    }
  }
  if (changed) {
    ++generation_;
  }
  return core::ok();
}

core::Status PricingProvider::refreshSpotIfStale() {
  {
    std::lock_guard lock(mu_);
    if (!spotStale()) {
      return core::ok();
    }
  }
  std::lock_guard refresh(refreshMu_);
  {
    // Another caller may have refreshed while this one waited.
    std::lock_guard lock(mu_);
    if (!spotStale()) {
      return core::ok();
    }
  }
  return refreshSpotLocked();
}

bool PricingProvider::spotStale() const {
  const auto now = clock_.steadyNow();
  if (spotLastFailure_ && now - *spotLastFailure_ < options_.retryAfterError) {
    return false;
  }
  return !spotFetched_ || now - *spotFetched_ >= options_.spotTtl;
}

uint64_t PricingProvider::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

}  // namespace nodewright::cloud::aws
