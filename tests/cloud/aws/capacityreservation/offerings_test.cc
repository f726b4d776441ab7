// The reserved capacity type's offerings and the choice of reservations a launch targets, as
// Karpenter's reserved capacity resolver and its capacity reservation filters make them.
#include "cloud/aws/capacityreservation/offerings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/aws/capacityreservation/provider.h"

namespace nodewright::cloud::aws {
namespace {

using api::karpenter::CapacityReservationStatus;

InstanceType typeWithOnDemand(const std::string& name, double price) {
  InstanceType t;
  t.name = name;
  for (const char* zone : {"us-east-1a", "us-east-1b"}) {
    t.offerings.push_back(Offering{.zone = zone,
                                   .capacityType = kCapacityTypeOnDemand,
                                   .pricePerHour = price,
                                   .available = true});
  }
  return t;
}

UsableReservation reservation(const std::string& id, const std::string& type,
                              const std::string& zone, int64_t available) {
  UsableReservation r;
  r.reservation.id = id;
  r.reservation.instanceType = type;
  r.reservation.availabilityZone = zone;
  r.reservation.instanceMatchCriteria = "targeted";
  r.available = available;
  return r;
}

const Offering* reservedIn(const InstanceType& t, const std::string& zone) {
  for (const Offering& o : t.offerings) {
    if (o.capacityType == kCapacityTypeReserved && o.zone == zone) {
      return &o;
    }
  }
  return nullptr;
}

api::karpenter::NodeClaim claimAllowing(std::vector<std::string> capacityTypes) {
  api::karpenter::NodeClaim c;
  c.metadata.name = "claim";
  c.spec.requirements.push_back(
      {"karpenter.sh/capacity-type", "In", std::move(capacityTypes), std::nullopt});
  return c;
}

std::vector<std::string> idsOf(const std::vector<UsableReservation>& rs) {
  std::vector<std::string> out;
  for (const auto& r : rs) {
    out.push_back(r.reservation.id);
  }
  return out;
}

const std::vector<std::string> kZones = {"us-east-1a", "us-east-1b"};

TEST(ReservedOfferingsTest, ReservationBecomesAnAlmostFreeOfferingInItsZone) {
  std::vector<InstanceType> types = {typeWithOnDemand("m5.large", 0.096),
                                     typeWithOnDemand("m5.xlarge", 0.192)};
  addReservedOfferings(types, {reservation("cr-1", "m5.large", "us-east-1a", 2)}, kZones);
  const Offering* o = reservedIn(types[0], "us-east-1a");
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(o->available);
  EXPECT_DOUBLE_EQ(o->pricePerHour, 0.096 / 10'000'000.0);
  EXPECT_EQ(reservedIn(types[0], "us-east-1b"), nullptr);
  EXPECT_EQ(reservedIn(types[1], "us-east-1a"), nullptr);
  EXPECT_EQ(types[0].cheapestAvailablePrice(), o->pricePerHour);
}

TEST(ReservedOfferingsTest, FullExpiringOrOutOfZoneReservationIsOfferedUnavailable) {
  std::vector<InstanceType> types = {typeWithOnDemand("m5.large", 0.096)};
  UsableReservation expiring = reservation("cr-2", "m5.large", "us-east-1b", 4);
  expiring.reservation.state = "expiring";
  addReservedOfferings(types,
                       {reservation("cr-1", "m5.large", "us-east-1a", 0), expiring,
                        reservation("cr-3", "m5.large", "us-east-1c", 4)},
                       kZones);
  for (const char* zone : {"us-east-1a", "us-east-1b", "us-east-1c"}) {
    const Offering* o = reservedIn(types[0], zone);
    ASSERT_NE(o, nullptr) << zone;
    EXPECT_FALSE(o->available) << zone;
  }
}

TEST(ReservedOfferingsTest, OneReservationWithRoomMakesTheZoneAvailable) {
  std::vector<InstanceType> types = {typeWithOnDemand("m5.large", 0.096)};
  addReservedOfferings(types,
                       {reservation("cr-1", "m5.large", "us-east-1a", 0),
                        reservation("cr-2", "m5.large", "us-east-1a", 1)},
                       kZones);
  int reserved = 0;
  for (const Offering& o : types[0].offerings) {
    reserved += o.capacityType == kCapacityTypeReserved ? 1 : 0;
  }
  EXPECT_EQ(reserved, 1);
  EXPECT_TRUE(reservedIn(types[0], "us-east-1a")->available);
}

TEST(ChooseReservationsTest, ClaimMustAllowReservedExplicitly) {
  InstanceType large = typeWithOnDemand("m5.large", 0.096);
  const std::vector<UsableReservation> rs = {reservation("cr-1", "m5.large", "us-east-1a", 1)};
  api::karpenter::NodeClaim unmentioned;
  EXPECT_TRUE(chooseReservations({&large}, unmentioned, kZones, rs).empty());
  EXPECT_TRUE(chooseReservations({&large}, claimAllowing({"on-demand"}), kZones, rs).empty());
  EXPECT_THAT(
      idsOf(chooseReservations({&large}, claimAllowing({"reserved", "on-demand"}), kZones, rs)),
      ::testing::ElementsAre("cr-1"));
}

TEST(ChooseReservationsTest, DefaultBeforeCapacityBlockBeforeInterruptible) {
  InstanceType large = typeWithOnDemand("m5.large", 0.096);
  UsableReservation block = reservation("cr-block", "m5.large", "us-east-1a", 5);
  block.reservation.reservationType = "capacity-block";
  UsableReservation interruptible = reservation("cr-int", "m5.large", "us-east-1b", 5);
  interruptible.reservation.interruptible = true;
  const auto claim = claimAllowing({"reserved"});
  EXPECT_THAT(idsOf(chooseReservations(
                  {&large}, claim, kZones,
                  {block, interruptible, reservation("cr-default", "m5.large", "us-east-1b", 1)})),
              ::testing::ElementsAre("cr-default"));
  EXPECT_THAT(idsOf(chooseReservations({&large}, claim, kZones, {interruptible, block})),
              ::testing::ElementsAre("cr-block"));
  EXPECT_THAT(idsOf(chooseReservations({&large}, claim, kZones, {interruptible})),
              ::testing::ElementsAre("cr-int"));
}

TEST(ChooseReservationsTest, MostRoomPerTypeAndZoneWithinTheClaimsZonesAndTypes) {
  InstanceType large = typeWithOnDemand("m5.large", 0.096);
  InstanceType xlarge = typeWithOnDemand("m5.xlarge", 0.192);
  const std::vector<UsableReservation> rs = {
      reservation("cr-a1", "m5.large", "us-east-1a", 1),
      reservation("cr-a3", "m5.large", "us-east-1a", 3),
      reservation("cr-b", "m5.large", "us-east-1b", 1),
      reservation("cr-x", "m5.xlarge", "us-east-1a", 9),
      reservation("cr-full", "m5.xlarge", "us-east-1b", 0),
      reservation("cr-other", "c5.large", "us-east-1a", 9),
  };
  auto claim = claimAllowing({"reserved", "on-demand"});
  EXPECT_THAT(idsOf(chooseReservations({&large, &xlarge}, claim, kZones, rs)),
              ::testing::ElementsAre("cr-a3", "cr-b", "cr-x"));
  claim.spec.requirements.push_back(
      {"topology.kubernetes.io/zone", "In", {"us-east-1b"}, std::nullopt});
  EXPECT_THAT(idsOf(chooseReservations({&large, &xlarge}, claim, kZones, rs)),
              ::testing::ElementsAre("cr-b"));
  // A zone without a subnet of the node class cannot launch.
  EXPECT_TRUE(chooseReservations({&large}, claim, {"us-east-1a"}, rs).empty());
}

TEST(ChooseReservationsTest, FleetAndMarketTypesFollowTheReservationKind) {
  CapacityReservationStatus r;
  EXPECT_EQ(fleetCapacityTypeOf(r), "on-demand");
  EXPECT_EQ(marketTypeOf(r), "");
  r.interruptible = true;
  EXPECT_EQ(fleetCapacityTypeOf(r), "reserved-capacity");
  EXPECT_EQ(marketTypeOf(r), "interruptible-capacity-reservation");
  r.interruptible = false;
  r.reservationType = "capacity-block";
  EXPECT_EQ(fleetCapacityTypeOf(r), "capacity-block");
  EXPECT_EQ(marketTypeOf(r), "capacity-block");
}

TEST(ReservationQueriesTest, IdAndTagTermsBecomeTheirOwnQueries) {
  api::karpenter::CapacityReservationSelectorTerm both;
  both.id = "cr-1";
  both.tags = {{"team", "ml"}};
  api::karpenter::CapacityReservationSelectorTerm ownerOnly;
  ownerOnly.ownerID = "123456789012";
  api::karpenter::CapacityReservationSelectorTerm criteria;
  criteria.ownerID = "123456789012";
  criteria.instanceMatchCriteria = "open";
  criteria.tags = {{"env", "*"}};
  auto queries = reservationQueries({both, ownerOnly, criteria});
  ASSERT_EQ(queries.size(), 3u);
  EXPECT_EQ(queries[0].id, "cr-1");
  EXPECT_EQ(queries[0].filters().size(), 1u);  // state=active
  EXPECT_EQ(queries[1].tags.at("team"), "ml");
  std::vector<std::string> names;
  for (const auto& f : queries[2].filters()) {
    names.push_back(f.name + "=" + f.values.at(0));
  }
  EXPECT_THAT(names, ::testing::ElementsAre("state=active", "owner-id=123456789012", "tag-key=env",
                                            "instance-match-criteria=open"));
  EXPECT_NE(queries[1].key(), queries[2].key());
}

TEST(ReservationStatusTest, UnknownKindsAreRefusedAndTheTypeDefaults) {
  sdk::CapacityReservation r;
  r.capacityReservationId = "cr-1";
  r.instanceMatchCriteria = "open";
  r.availabilityZone = "us-east-1a";
  r.instanceType = "m5.large";
  r.ownerId = "123456789012";
  auto status = reservationStatus(r, core::TimePoint{});
  ASSERT_TRUE(status) << status.error().message();
  EXPECT_EQ(status->reservationType, "default");
  EXPECT_EQ(status->state, "active");
  r.instanceMatchCriteria = "flexible";
  EXPECT_TRUE(reservationStatus(r, core::TimePoint{}).error().is(core::Code::Invalid));
  r.instanceMatchCriteria = "targeted";
  r.reservationType = "future";
  EXPECT_FALSE(reservationStatus(r, core::TimePoint{}));
}

}  // namespace
}  // namespace nodewright::cloud::aws
