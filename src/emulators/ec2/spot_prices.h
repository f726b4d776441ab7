#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/time.h"
#include "emulators/ec2/catalog.h"

// The emulator's spot market: a deterministic price per (instance type, zone) that moves in
// steps over time. Each price is a fraction of the type's on-demand price between
// kSpotMinFraction and kSpotMaxFraction: a base fraction fixed per (type, zone), so some pools
// are steadily cheaper than others, plus a jitter drawn anew each step. Everything is a hash of
// (type, zone, step), so every emulator, test and benchmark sees the same prices at the same
// time, and nothing is stored. Pure functions; thread-safe.
namespace nodewright::emulators::ec2 {

// How long one price holds. Steps start at multiples of this since the Unix epoch.
inline constexpr std::chrono::hours kSpotPriceStep{1};
inline constexpr double kSpotMinFraction = 0.3;
inline constexpr double kSpotMaxFraction = 0.7;

// The spot price in USD per hour of `type` in `zone` at `at`, rounded to 1/10000 USD as EC2
// quotes them (never below 0.0001). nullopt when the catalog has no on-demand price for the type:
// such a type has no spot market here.
std::optional<double> spotPrice(const InstanceTypeInfo& type, std::string_view zone,
                                core::TimePoint at);

// The step that holds at `at`: its index and its start (the timestamp DescribeSpotPriceHistory
// gives the price).
int64_t spotPriceStepIndex(core::TimePoint at);
core::TimePoint spotPriceStepStart(int64_t step);

// As spotPrice(), for a step index.
std::optional<double> spotPriceAtStep(const InstanceTypeInfo& type, std::string_view zone,
                                      int64_t step);

// "0.034500": EC2 writes spot prices as strings with six decimals.
std::string formatSpotPrice(double price);

}  // namespace nodewright::emulators::ec2
