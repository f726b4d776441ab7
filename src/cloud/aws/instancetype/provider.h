#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_client.h"
#include "cloud/aws/cache/unavailable_offerings.h"
#include "cloud/aws/instancetype/types.h"
#include "cloud/aws/pricing/pricing_provider.h"
#include "cloud/aws/sdk.h"
#include "cloud/instance_type.h"
#include "core/clock.h"

// The instance types a node class can launch, with offerings (zone x capacity type) and prices:
// DescribeInstanceTypes and DescribeInstanceTypeOfferings, cached for a TTL on the injected
// clock, turned into cloud::InstanceTypes as Karpenter does (types.h), and filtered by the node
// class's network interfaces (networkinterface/compatibility.h; seed 001).
//
// The result of list() is cached per node class settings that shape it, zones and EFA request,
// and rebuilt when EC2's answers, prices or unavailable offerings change, so the scheduler can
// ask for every NodeClaim. Thread-safe.
namespace nodewright::cloud::aws {

struct InstanceTypeProviderOptions {
  std::string region = "us-east-1";
  // How long EC2's answers are used before they are asked for again.
  std::chrono::seconds ttl{300};
  // After a failed refresh that could fall back on older answers, how long before the next
  // attempt.
  std::chrono::seconds retryAfterError{30};
  double vmMemoryOverheadPercent = 0.075;
  int reservedENIs = 0;
  // Distinct (node class settings, zones) results kept; more are dropped oldest first.
  size_t maxCachedResults = 32;
};

class InstanceTypeProvider {
 public:
  // Every reference must outlive the provider.
  InstanceTypeProvider(const core::Clock& clock, sdk::Ec2Client& ec2, PricingProvider& pricing,
                       UnavailableOfferings& unavailable, InstanceTypeProviderOptions options = {});

  // Every instance type of the region, for `nodeClass` with `kubelet` settings, offered in
  // `zones` (those of the node class's resolved subnets), with pods asking for `efaRequested`
  // vpc.amazonaws.com/efa devices. Types the node class cannot use go to `excluded` with a
  // reason naming the type: network interfaces the type cannot carry, no offering in the
  // zones, no amd64/arm64 architecture, unknown network limits.
  //
  // An offering is unavailable while UnavailableOfferings holds its pool or when it has no
  // price. Errors: Invalid (naming the field) for kubelet settings that do not parse; EC2's
  // error, classified, when the types were never described (older answers are used while a
  // refresh fails).
  core::Result<cloud::InstanceTypes> list(
      const api::karpenter::EC2NodeClass& nodeClass,
      const std::optional<api::karpenter::KubeletConfiguration>& kubelet,
      const std::vector<std::string>& zones, int efaRequested = 0);
  // As list(), without copying the result: a cached answer is shared, never changed after it
  // is returned. For callers on the scheduling path, where a copy of 1,400 types costs
  // milliseconds and a shared answer microseconds.
  core::Result<std::shared_ptr<const cloud::InstanceTypes>> listShared(
      const api::karpenter::EC2NodeClass& nodeClass,
      const std::optional<api::karpenter::KubeletConfiguration>& kubelet,
      const std::vector<std::string>& zones, int efaRequested = 0);

  // EC2's description of `name`, refreshing as list() does; nullptr when unknown or never
  // described. The pointee stays valid for at least one TTL after the call.
  const sdk::InstanceTypeInfo* info(std::string_view name);

 private:
  // EC2's answers at one time. Immutable once built.
  struct Snapshot {
    uint64_t sequence = 0;
    std::vector<sdk::InstanceTypeInfo> infos;  // sorted by name
    std::unordered_map<std::string_view, const sdk::InstanceTypeInfo*> byName;
    std::unordered_map<std::string_view, std::vector<std::string>> zones;  // sorted per type
    std::chrono::steady_clock::time_point fetched;
  };
  using SnapshotPtr = std::shared_ptr<const Snapshot>;

  // One list() result and what it was built from.
  struct Entry {
    uint64_t snapshot = 0;
    uint64_t unavailableGeneration = 0;
    uint64_t pricingGeneration = 0;
    uint64_t lastUsed = 0;
    std::shared_ptr<const cloud::InstanceTypes> types;
    // Offerings (compatible index, offering index) that were unavailable only because
    // UnavailableOfferings held their pool. Such an entry expires without a new generation,
    // so a cached result checks these again on every hit, and is replaced by a copy with the
    // expired ones available.
    std::vector<std::pair<size_t, size_t>> heldBack;
  };

  core::Result<SnapshotPtr> snapshot();
  core::Result<SnapshotPtr> fetch(uint64_t sequence);
  core::Result<Entry> build(const Snapshot& snap, const InstanceTypeBuilder& builder,
                            const api::karpenter::EC2NodeClass& nodeClass,
                            const std::vector<std::string>& zones, int efaRequested);
  std::vector<cloud::Offering> offerings(const sdk::InstanceTypeInfo& info,
                                         const std::vector<std::string>& zones,
                                         std::vector<size_t>& heldBack);
  void releaseExpired(Entry& entry);         // REQUIRES: cacheMu_ held
  void store(std::string key, Entry entry);  // REQUIRES: cacheMu_ held

  const core::Clock& clock_;
  sdk::Ec2Client& ec2_;
  PricingProvider& pricing_;
  UnavailableOfferings& unavailable_;
  const InstanceTypeProviderOptions options_;

  std::mutex refreshMu_;  // one refresh at a time; taken before mu_
  std::mutex mu_;
  SnapshotPtr current_;   // GUARDED_BY(mu_)
  SnapshotPtr previous_;  // GUARDED_BY(mu_); keeps info() pointers alive for a TTL
  std::optional<std::chrono::steady_clock::time_point> lastFailure_;  // GUARDED_BY(mu_)

  std::mutex cacheMu_;
  std::map<std::string, Entry, std::less<>> cache_;  // GUARDED_BY(cacheMu_)
  uint64_t uses_ = 0;                                // GUARDED_BY(cacheMu_)
};

}  // namespace nodewright::cloud::aws
