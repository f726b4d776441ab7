#pragma once

#include <chrono>

namespace nodewright::controllers::nodeclaim {

// Tunables of the NodeClaim controllers; the defaults are Karpenter's.
struct Options {
  // Launched but no Node registered after this long: the claim is deleted (its machine with it).
  std::chrono::seconds registrationTTL{std::chrono::minutes(15)};
  // Concurrent NodeClaim reconciles: a launch waits on the cloud, so one slow launch must not
  // hold the others back.
  int workers = 10;
  // How soon a drain looks again while pods are still leaving.
  std::chrono::milliseconds drainRecheck{std::chrono::seconds(1)};
  // An eviction refused (a PodDisruptionBudget's 429) is retried after this, doubling per
  // refusal up to evictionBackoffMax, as Karpenter's eviction queue does.
  std::chrono::milliseconds evictionBackoff{std::chrono::seconds(1)};
  std::chrono::milliseconds evictionBackoffMax{std::chrono::seconds(10)};
  // How often a terminating machine is looked up until the cloud reports it gone; the removal
  // itself is sent again after removeResend in case it was lost.
  std::chrono::milliseconds instanceTerminationPoll{std::chrono::seconds(5)};
  std::chrono::milliseconds removeResend{std::chrono::minutes(1)};
};

}  // namespace nodewright::controllers::nodeclaim
