#include "cloud/aws/capacityreservation/provider.h"

#include <fmt/format.h>

#include <set>

#include "api/reflect/json.h"
#include "aws/error_class.h"
#include "cloud/aws/nodeclass/lookup.h"

namespace nodewright::cloud::aws {
namespace {

// EC2 may reclaim a capacity block's instances this long before its end (Karpenter's window).
constexpr std::chrono::minutes kCapacityBlockReclaim{40};

}  // namespace

std::string ReservationQuery::key() const {
  return api::dumpJson(api::Json{id, ownerID, tags, instanceMatchCriteria});
}

std::vector<sdk::Filter> ReservationQuery::filters() const {
  std::vector<sdk::Filter> out = {{"state", {"active"}}};
  if (!id.empty()) {
    return out;
  }
  if (!ownerID.empty()) {
    out.push_back({"owner-id", {ownerID}});
  }
  nodeclass::addTagFilters(tags, out);
  if (!instanceMatchCriteria.empty()) {
    out.push_back({"instance-match-criteria", {instanceMatchCriteria}});
  }
  return out;
}

std::vector<ReservationQuery> reservationQueries(
    const std::vector<api::karpenter::CapacityReservationSelectorTerm>& terms) {
  std::vector<ReservationQuery> out;
  for (const auto& term : terms) {
    if (!term.id.empty()) {
      out.push_back({term.id, "", {}, ""});
    }
    // As Karpenter: an ownerID alone selects nothing (admission requires tags with it).
    if (!term.tags.empty() || !term.instanceMatchCriteria.empty()) {
      out.push_back({"", term.ownerID, term.tags, term.instanceMatchCriteria});
    }
  }
  return out;
}

core::Result<api::karpenter::CapacityReservationStatus> reservationStatus(
    const sdk::CapacityReservation& r, core::TimePoint now) {
  const std::string& id = r.capacityReservationId;
  if (r.instanceMatchCriteria != "open" && r.instanceMatchCriteria != "targeted") {
    return core::fail(core::Error::invalid(
        fmt::format("capacity reservation {} has an unsupported instance match criteria \"{}\"", id,
                    r.instanceMatchCriteria)));
  }
  const std::string type = r.reservationType.empty() ? "default" : r.reservationType;
  if (type != "default" && type != "capacity-block") {
    return core::fail(core::Error::invalid(fmt::format(
        "capacity reservation {} has an unsupported reservation type \"{}\"", id, type)));
  }
  api::karpenter::CapacityReservationStatus out;
  out.availabilityZone = r.availabilityZone;
  if (r.endDate) {
    out.endTime = core::Time(*r.endDate);
  }
  out.id = id;
  out.instanceMatchCriteria = r.instanceMatchCriteria;
  out.instanceType = r.instanceType;
  out.ownerID = r.ownerId;
  out.reservationType = type;
  out.interruptible = r.interruptible;
  const bool expiring =
      type == "capacity-block" && r.endDate && now >= *r.endDate - kCapacityBlockReclaim;
  out.state = expiring ? "expiring" : "active";
  return out;
}

CapacityReservationProvider::CapacityReservationProvider(const core::Clock& clock,
                                                         sdk::Ec2Client& ec2,
                                                         std::chrono::seconds ttl)
    : clock_(clock), ec2_(ec2), ttl_(ttl) {}

core::Result<std::vector<sdk::CapacityReservation>> CapacityReservationProvider::list(
    const std::vector<api::karpenter::CapacityReservationSelectorTerm>& terms) {
  std::vector<sdk::CapacityReservation> all;
  for (const ReservationQuery& query : reservationQueries(terms)) {
    const std::string key = query.key();
    {
      std::lock_guard lock(mu_);
      if (auto hit = queries_.get(key, clock_.steadyNow())) {
        all.insert(all.end(), hit->begin(), hit->end());
        continue;
      }
    }
    std::vector<std::string> ids;
    if (!query.id.empty()) {
      ids.push_back(query.id);
    }
    auto found = ec2_.describeCapacityReservations(query.filters(), ids);
    if (!found && sdk::classify(found.error()) != sdk::ErrorClass::NotFound) {
      return core::fail(sdk::toCoreError(found.error()).wrap("describing capacity reservations"));
    }
    std::vector<sdk::CapacityReservation> got =
        found ? std::move(*found) : std::vector<sdk::CapacityReservation>{};
    {
      std::lock_guard lock(mu_);
      const core::TimePoint now = clock_.now();
      for (const sdk::CapacityReservation& r : got) {
        availability_[r.capacityReservationId] = {r.availableInstanceCount, now};
      }
      queries_.put(key, got, clock_.steadyNow() + ttl_);
    }
    all.insert(all.end(), got.begin(), got.end());
  }
  std::vector<sdk::CapacityReservation> out;
  std::set<std::string> seen;
  const core::TimePoint now = clock_.now();
  for (sdk::CapacityReservation& r : all) {
    if ((r.endDate && *r.endDate <= now) || !seen.insert(r.capacityReservationId).second) {
      continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

int64_t CapacityReservationProvider::available(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = availability_.find(id);
  return it == availability_.end() ? 0 : it->second.count;
}

void CapacityReservationProvider::markLaunched(const std::string& id, core::TimePoint launchedAt) {
  std::lock_guard lock(mu_);
  auto it = availability_.find(id);
  // A count EC2 gave after the launch already has it.
  if (it == availability_.end() || it->second.synced > launchedAt) {
    return;
  }
  if (it->second.count > 0) {
    --it->second.count;
  }
}

void CapacityReservationProvider::markTerminated(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = availability_.find(id);
  if (it != availability_.end()) {
    ++it->second.count;
  }
}

void CapacityReservationProvider::markUnavailable(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = availability_.find(id);
  if (it != availability_.end()) {
    it->second.count = 0;
  }
}

}  // namespace nodewright::cloud::aws
