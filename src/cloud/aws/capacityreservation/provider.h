#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/ec2_client.h"
#include "cloud/aws/nodeclass/ttl_cache.h"
#include "cloud/aws/sdk.h"
#include "core/clock.h"
#include "core/error.h"

// The capacity reservations an EC2NodeClass selects (capacityReservationSelectorTerms), and how
// many instances each can still take, as Karpenter's capacity reservation provider keeps them:
// EC2's answer per query is cached for a TTL; the available counts are synced from each answer
// and moved by this process's own launches and terminations in between, so offerings follow a
// reservation filling up without asking EC2 after every launch.
namespace nodewright::cloud::aws {

// One DescribeCapacityReservations call of a term. A term with an id queries that id alone; one
// with tags or instanceMatchCriteria queries those, with its ownerID.
struct ReservationQuery {
  std::string id;
  std::string ownerID;
  std::map<std::string, std::string> tags;
  std::string instanceMatchCriteria;

  std::string key() const;
  // state=active, then owner-id, the tag filters ("tag:K" = V, "tag-key" = K for "*") and
  // instance-match-criteria as set.
  std::vector<sdk::Filter> filters() const;
};

std::vector<ReservationQuery> reservationQueries(
    const std::vector<api::karpenter::CapacityReservationSelectorTerm>& terms);

// A reservation as status.capacityReservations shows it: the type "default" when EC2 gives
// none, the state "expiring" for a capacity block within 40 minutes of its end. Invalid for an
// instance match criteria or reservation type Karpenter does not know.
core::Result<api::karpenter::CapacityReservationStatus> reservationStatus(
    const sdk::CapacityReservation& reservation, core::TimePoint now);

// Thread-safe; `clock` and `ec2` must outlive it.
class CapacityReservationProvider {
 public:
  CapacityReservationProvider(const core::Clock& clock, sdk::Ec2Client& ec2,
                              std::chrono::seconds ttl = std::chrono::seconds(60));

  // The active reservations any term selects, once each (by id), those with an end date after
  // now only. An unknown id selects nothing. Errors are EC2's, converted and wrapped.
  core::Result<std::vector<sdk::CapacityReservation>> list(
      const std::vector<api::karpenter::CapacityReservationSelectorTerm>& terms);

  // How many more instances reservation `id` can take, as last synced and moved since; 0 when
  // unknown.
  int64_t available(const std::string& id) const;
  // A launch into `id` succeeded: one fewer (unless EC2's count was synced after `launchedAt`).
  void markLaunched(const std::string& id, core::TimePoint launchedAt);
  // An instance in `id` was terminated: one more.
  void markTerminated(const std::string& id);
  // EC2 answered that `id` is full: none until the next sync.
  void markUnavailable(const std::string& id);

 private:
  struct Availability {
    int64_t count = 0;
    core::TimePoint synced;
  };

  const core::Clock& clock_;
  sdk::Ec2Client& ec2_;
  const std::chrono::seconds ttl_;

  mutable std::mutex mu_;  // never held across a call to EC2
  nodeclass::TtlCache<std::vector<sdk::CapacityReservation>> queries_;  // GUARDED_BY(mu_)
  std::map<std::string, Availability> availability_;                    // GUARDED_BY(mu_)
};

}  // namespace nodewright::cloud::aws
