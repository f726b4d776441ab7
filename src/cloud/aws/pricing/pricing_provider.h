#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "aws/ec2_client.h"
#include "aws/pricing_client.h"
#include "cloud/aws/sdk.h"
#include "core/clock.h"
#include "core/error.h"

// Prices of instance types, for offerings: on-demand from a built-in table (ondemand_prices.h)
// that refreshOnDemand() replaces with the AWS Pricing API's answer when it can be reached,
// and spot from DescribeSpotPriceHistory, cached for a TTL on the injected clock.
//
// A failed refresh keeps what is known: prices that are minutes or days old still rank
// offerings well, and none at all would make every offering unavailable. Thread-safe.
namespace nodewright::cloud::aws {

struct PricingProviderOptions {
  // The region whose prices the Pricing API is asked for.
  std::string region = "us-east-1";
  // How long spot prices are used before DescribeSpotPriceHistory is asked again.
  std::chrono::seconds spotTtl{300};
  // After a failed spot refresh, how long before the next attempt: a caller asking for many
  // prices must not send one failing request per price.
  std::chrono::seconds retryAfterError{30};
};

class PricingProvider {
 public:
  // `pricing` may be null (no Pricing API endpoint configured): the built-in table is then all
  // there is. `clock`, `ec2` and `pricing` must outlive the provider.
  PricingProvider(const core::Clock& clock, sdk::Ec2Client& ec2, sdk::PricingClient* pricing,
                  PricingProviderOptions options = {});

  // USD per hour; nullopt for a type with no known on-demand price.
  std::optional<double> onDemand(std::string_view instanceType) const;
  // USD per hour in `zone`. Refreshes the spot prices first when they are older than the TTL
  // (refreshSpotIfStale); nullopt when no price is known for the pool.
  std::optional<double> spot(std::string_view instanceType, std::string_view zone);

  // Replaces the on-demand table with the Pricing API's prices for the region. An error (or
  // no Pricing client, or an empty answer) leaves the table as it was.
  core::Status refreshOnDemand();
  // Asks DescribeSpotPriceHistory for the current price of every type in every zone. An error
  // leaves the known prices as they were.
  core::Status refreshSpot();
  // refreshSpot() when the spot prices are older than the TTL and the last failure is older
  // than retryAfterError; ok otherwise. Concurrent callers share one refresh.
  core::Status refreshSpotIfStale();

  // Bumped whenever a refresh changes a price, so caches of offerings know to rebuild.
  uint64_t generation() const;

 private:
  using SpotKey = std::pair<std::string, std::string>;  // type, zone

  core::Status refreshSpotLocked();  // REQUIRES: refreshMu_ held
  bool spotStale() const;            // REQUIRES: mu_ held

  const core::Clock& clock_;
  sdk::Ec2Client& ec2_;
  sdk::PricingClient* const pricing_;
  const PricingProviderOptions options_;

  std::mutex refreshMu_;  // one refresh at a time; taken before mu_, never inside it
  mutable std::mutex mu_;
  std::map<std::string, double, std::less<>> onDemand_;                   // GUARDED_BY(mu_)
  std::map<SpotKey, double, std::less<>> spot_;                           // GUARDED_BY(mu_)
  std::optional<std::chrono::steady_clock::time_point> spotFetched_;      // GUARDED_BY(mu_)
  std::optional<std::chrono::steady_clock::time_point> spotLastFailure_;  // GUARDED_BY(mu_)
  uint64_t generation_ = 0;                                               // GUARDED_BY(mu_)
};

}  // namespace nodewright::cloud::aws
