// capacityReservationSelectorTerms resolved against the EC2 emulator into
// status.capacityReservations, as Karpenter's capacity reservation provider does: one query per
// id term and per tag/match-criteria term, active reservations only, each once, with
// CapacityReservationsReady True whether or not anything matched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/time.h"

#include "cloud/aws/capacityreservation/provider.h"
#include "cloud/aws/capacityreservation/reserve.h"
#include "cloud/aws/nodeclass/emulated_peer.h"
#include "cloud/aws/nodeclass/resolver.h"
#include "cloud/aws/nodeclass/status.h"

namespace nodewright::cloud::aws {
namespace {

using namespace testing;
using api::karpenter::CapacityReservationSelectorTerm;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

CapacityReservationSelectorTerm idTerm(const std::string& id) {
  CapacityReservationSelectorTerm t;
  t.id = id;
  return t;
}

CapacityReservationSelectorTerm tagTerm(std::map<std::string, std::string> tags,
                                        std::string criteria = "") {
  CapacityReservationSelectorTerm t;
  t.tags = std::move(tags);
  t.instanceMatchCriteria = std::move(criteria);
  return t;
}

std::vector<std::string> idsOf(const ResolvedNodeClass& r) {
  std::vector<std::string> out;
  for (const auto& c : r.status.capacityReservations) {
    out.push_back(c.id);
  }
  return out;
}

class CapacityReservationResolutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    peer_ = std::make_unique<EmulatedPeer>(clock_, emulators::testing::fastOptions());
    ASSERT_TRUE(peer_->ok());
    resolver_ = std::make_unique<NodeClassResolver>(
        clock_, peer_->ec2(), peer_->ssm(), ResolverOptions{"1.32", std::chrono::minutes(1)});
  }

  ResolvedNodeClass resolve(const std::vector<CapacityReservationSelectorTerm>& terms) {
    auto nc = discoveryNodeClass();
    nc.spec.capacityReservationSelectorTerms = terms;
    auto r = resolver_->resolve(nc);
    EXPECT_TRUE(r) << r.error().message();
    return r ? *r : ResolvedNodeClass{};
  }

  // A reservation of m5.large in us-east-1a; its id.
  std::string reserve(int count = 1, const std::string& criteria = "open",
                      const std::map<std::string, std::string>& tags = {},
                      const std::string& endDate = "") {
    ReservationSpec spec;
    spec.count = count;
    spec.matchCriteria = criteria;
    spec.tags = tags;
    spec.endDate = endDate;
    return createReservation(peer_->ec2(), spec);
  }

  core::FakeClock clock_;
  std::unique_ptr<EmulatedPeer> peer_;
  std::unique_ptr<NodeClassResolver> resolver_;
};

TEST_F(CapacityReservationResolutionTest, IdTermResolvesIntoStatusWithEveryField) {
  const std::string id = reserve(3, "targeted");
  ResolvedNodeClass r = resolve({idTerm(id)});
  ASSERT_EQ(r.status.capacityReservations.size(), 1u);
  const auto& c = r.status.capacityReservations[0];
  EXPECT_EQ(c.id, id);
  EXPECT_EQ(c.availabilityZone, "us-east-1a");
  EXPECT_EQ(c.instanceType, "m5.large");
  EXPECT_EQ(c.instanceMatchCriteria, "targeted");
  EXPECT_EQ(c.ownerID, "123456789012");
  EXPECT_EQ(c.reservationType, "default");
  EXPECT_FALSE(c.interruptible);
  EXPECT_EQ(c.state, "active");
  EXPECT_FALSE(c.endTime.has_value());
  EXPECT_EQ(resolver_->capacityReservations().available(id), 3);
  const api::Condition* ready = nullptr;
  for (const auto& cond : r.status.conditions) {
    if (cond.type == nodeclass::kCapacityReservationsReady) {
      ready = &cond;
    }
  }
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "True");
  EXPECT_TRUE(r.ready());
}

TEST_F(CapacityReservationResolutionTest, TermsAreOredAndTheFieldsOfOneTermAnded) {
  const std::string mlOpen = reserve(1, "open", {{"team", "ml"}});
  const std::string mlTargeted = reserve(1, "targeted", {{"team", "ml"}});
  const std::string web = reserve(1, "open", {{"team", "web"}});
  const std::string untagged = reserve();
  EXPECT_THAT(idsOf(resolve({tagTerm({{"team", "ml"}})})),
              UnorderedElementsAre(mlOpen, mlTargeted));
  EXPECT_THAT(idsOf(resolve({tagTerm({{"team", "ml"}}, "targeted")})), ElementsAre(mlTargeted));
  EXPECT_THAT(idsOf(resolve({tagTerm({{"team", "*"}})})),
              UnorderedElementsAre(mlOpen, mlTargeted, web));
  // The same reservation from two terms is listed once; the list is sorted by id.
  ResolvedNodeClass both = resolve({tagTerm({{"team", "web"}}), idTerm(web), idTerm(untagged)});
  std::vector<std::string> expected = {web, untagged};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(idsOf(both), expected);
}

TEST_F(CapacityReservationResolutionTest, NothingMatchingIsAnEmptyListNotAFault) {
  ResolvedNodeClass r = resolve({idTerm("cr-00000000000000000"), tagTerm({{"team", "none"}})});
  EXPECT_TRUE(r.status.capacityReservations.empty());
  EXPECT_TRUE(r.ready());
  // No terms: nothing is asked.
  const int64_t before = peer_->requests("DescribeCapacityReservations");
  resolve({});
  EXPECT_EQ(peer_->requests("DescribeCapacityReservations"), before);
}

TEST_F(CapacityReservationResolutionTest, CancelledAndEndedReservationsAreLeftOut) {
  const std::string cancelled = reserve(1, "open", {{"team", "ml"}});
  const std::string kept = reserve(1, "open", {{"team", "ml"}});
  auto cancel = peer_->ec2().query().call("CancelCapacityReservation",
                                          {{"CapacityReservationId", cancelled}});
  ASSERT_TRUE(cancel) << cancel.error().message;
  EXPECT_THAT(idsOf(resolve({tagTerm({{"team", "ml"}})})), ElementsAre(kept));
}

TEST_F(CapacityReservationResolutionTest, CapacityBlockWithinFortyMinutesOfItsEndIsExpiring) {
  const auto end = [&](std::chrono::minutes in) -> std::string {
    return core::Time(std::chrono::floor<std::chrono::seconds>(clock_.now() + in)).toString();
  };
  const std::string soon = reserve(1, "open", {{"kind", "block"}}, end(std::chrono::minutes(30)));
  const std::string later = reserve(1, "open", {{"kind", "block"}}, end(std::chrono::hours(5)));
  for (const std::string& id : {soon, later}) {
    editReservation(peer_->server().emulator(), id,
                    [](auto& a) { a.reservationType = "capacity-block"; });
  }
  ResolvedNodeClass r = resolve({tagTerm({{"kind", "block"}})});
  ASSERT_EQ(r.status.capacityReservations.size(), 2u);
  for (const auto& c : r.status.capacityReservations) {
    EXPECT_EQ(c.reservationType, "capacity-block");
    ASSERT_TRUE(c.endTime.has_value());
    EXPECT_EQ(c.state, c.id == soon ? "expiring" : "active") << c.id;
  }
}

TEST_F(CapacityReservationResolutionTest, AnswersAreCachedForTheTtl) {
  const std::string id = reserve(2);
  resolve({idTerm(id)});
  const int64_t asked = peer_->requests("DescribeCapacityReservations");
  resolve({idTerm(id)});
  EXPECT_EQ(peer_->requests("DescribeCapacityReservations"), asked);
  clock_.advance(std::chrono::seconds(61));
  resolve({idTerm(id)});
  EXPECT_EQ(peer_->requests("DescribeCapacityReservations"), asked + 1);
}

TEST_F(CapacityReservationResolutionTest, AvailabilityFollowsLaunchesUntilTheNextSync) {
  const std::string id = reserve(2);
  resolve({idTerm(id)});
  CapacityReservationProvider& p = resolver_->capacityReservations();
  p.markLaunched(id, clock_.now());
  EXPECT_EQ(p.available(id), 1);
  p.markTerminated(id);
  EXPECT_EQ(p.available(id), 2);
  p.markUnavailable(id);
  EXPECT_EQ(p.available(id), 0);
  // A launch from before the last sync is already in EC2's count.
  clock_.advance(std::chrono::seconds(61));
  resolve({idTerm(id)});
  EXPECT_EQ(p.available(id), 2);
  p.markLaunched(id, clock_.now() - std::chrono::seconds(5));
  EXPECT_EQ(p.available(id), 2);
  EXPECT_EQ(p.available("cr-unknown"), 0);
}

}  // namespace
}  // namespace nodewright::cloud::aws
