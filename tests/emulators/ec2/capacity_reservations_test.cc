// Capacity reservations in process: CreateCapacityReservation and DescribeCapacityReservations
// (ids, filters, counts, end dates), launches that target a reservation or take an open one,
// ReservationCapacityExceeded once it is full, and capacity given back at termination.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/time.h"

#include <string>

#include "emulators/ec2/capacity_reservations.h"
#include "emulators/ec2/launch_fixture.h"

namespace nodewright::emulators::ec2 {
namespace {

using testing::kNodeGroup;
using testing::kSubnetA;
using testing::LaunchWorld;
using testing::Xml;

class CapacityReservationsTest : public ::testing::Test {
 protected:
  // A reservation of `count` m5.large in us-east-1a; its id.
  std::string reserve(int count, const std::string& criteria = "open",
                      const aws::ParamPairs& more = {}) {
    aws::ParamPairs p{{"InstanceType", "m5.large"},
                      {"InstancePlatform", "Linux/UNIX"},
                      {"AvailabilityZone", "us-east-1a"},
                      {"InstanceCount", std::to_string(count)},
                      {"InstanceMatchCriteria", criteria}};
    p.insert(p.end(), more.begin(), more.end());
    Xml created = w_.ok("CreateCapacityReservation", p);
    return created.root().child("capacityReservation").child_value("capacityReservationId");
  }

  pugi::xml_node describedItem(const Xml& described) {
    return described.root().child("capacityReservationSet").child("item");
  }

  int64_t available(const std::string& id) {
    Xml described = w_.ok("DescribeCapacityReservations", {{"CapacityReservationId.1", id}});
    return std::stoll(describedItem(described).child_value("availableInstanceCount"));
  }

  // RunInstances of `count` m5.large in subnet A, with a capacity reservation specification.
  aws::ParamPairs run(int count, const std::string& preference, const std::string& target = "") {
    aws::ParamPairs p = w_.runParams(count);
    if (!preference.empty()) {
      p.emplace_back("CapacityReservationSpecification.CapacityReservationPreference", preference);
    }
    if (!target.empty()) {
      p.emplace_back(
          "CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId",
          target);
    }
    return p;
  }

  LaunchWorld w_;
};

TEST_F(CapacityReservationsTest, CreatedReservationIsDescribedWithItsCounts) {
  const std::string id = reserve(3, "targeted",
                                 {{"TagSpecifications.1.ResourceType", "capacity-reservation"},
                                  {"TagSpecifications.1.Tag.1.Key", "team"},
                                  {"TagSpecifications.1.Tag.1.Value", "ml"}});
  ASSERT_EQ(id.rfind("cr-", 0), 0u) << id;
  Xml described = w_.ok("DescribeCapacityReservations", {{"CapacityReservationId.1", id}});
  pugi::xml_node item = describedItem(described);
  EXPECT_STREQ(item.child_value("instanceType"), "m5.large");
  EXPECT_STREQ(item.child_value("availabilityZone"), "us-east-1a");
  EXPECT_STREQ(item.child_value("availabilityZoneId"), "use1-az1");
  EXPECT_STREQ(item.child_value("totalInstanceCount"), "3");
  EXPECT_STREQ(item.child_value("availableInstanceCount"), "3");
  EXPECT_STREQ(item.child_value("state"), "active");
  EXPECT_STREQ(item.child_value("instanceMatchCriteria"), "targeted");
  EXPECT_STREQ(item.child_value("reservationType"), "default");
  EXPECT_STREQ(item.child_value("interruptible"), "false");
  EXPECT_STREQ(item.child_value("ownerId"), w_.world().accountId.c_str());
  EXPECT_STREQ(item.child("tagSet").child("item").child_value("value"), "ml");
}

TEST_F(CapacityReservationsTest, FiltersSelectByTagCriteriaOwnerAndState) {
  const std::string open = reserve(1, "open");
  const std::string targeted =
      reserve(1, "targeted",
              {{"TagSpecifications.1.ResourceType", "capacity-reservation"},
               {"TagSpecifications.1.Tag.1.Key", "team"},
               {"TagSpecifications.1.Tag.1.Value", "ml"}});
  auto ids = [&](const aws::ParamPairs& filters) {
    return Xml(*w_.call("DescribeCapacityReservations", filters))
        .texts("capacityReservationSet", "capacityReservationId");
  };
  EXPECT_EQ(ids({{"Filter.1.Name", "instance-match-criteria"}, {"Filter.1.Value.1", "targeted"}}),
            std::vector<std::string>{targeted});
  EXPECT_EQ(ids({{"Filter.1.Name", "tag:team"}, {"Filter.1.Value.1", "ml"}}),
            std::vector<std::string>{targeted});
  EXPECT_EQ(ids({{"Filter.1.Name", "tag-key"}, {"Filter.1.Value.1", "team"}}),
            std::vector<std::string>{targeted});
  EXPECT_EQ(ids({{"Filter.1.Name", "owner-id"}, {"Filter.1.Value.1", "000000000000"}}),
            std::vector<std::string>{});
  EXPECT_EQ(ids({{"Filter.1.Name", "instance-match-criteria"}, {"Filter.1.Value.1", "open"}}),
            std::vector<std::string>{open});
  EXPECT_EQ(ids({{"Filter.1.Name", "state"}, {"Filter.1.Value.1", "active"}}).size(), 2u);
}

TEST_F(CapacityReservationsTest, UnknownIdIsNotFound) {
  aws::ApiError e = w_.fails("DescribeCapacityReservations",
                             {{"CapacityReservationId.1", "cr-0123456789abcdef0"}});
  EXPECT_EQ(e.code, "InvalidCapacityReservationId.NotFound");
}

TEST_F(CapacityReservationsTest, ReservationPastItsEndDateIsExpired) {
  const core::Time end(
      std::chrono::floor<std::chrono::seconds>(w_.engine().time().now() + std::chrono::hours(1)));
  const std::string id =
      reserve(1, "open", {{"EndDateType", "limited"}, {"EndDate", end.toString()}});
  Xml before = w_.ok("DescribeCapacityReservations", {{"CapacityReservationId.1", id}});
  EXPECT_STREQ(describedItem(before).child_value("state"), "active");
  EXPECT_STREQ(describedItem(before).child_value("endDateType"), "limited");
  w_.advance(std::chrono::hours(2));
  Xml after = w_.ok("DescribeCapacityReservations", {{"CapacityReservationId.1", id}});
  EXPECT_STREQ(describedItem(after).child_value("state"), "expired");
  EXPECT_EQ(w_.fails("RunInstances", run(1, "capacity-reservations-only", id)).code,
            "ReservationCapacityExceeded");
  EXPECT_EQ(w_.fails("CreateCapacityReservation", {{"InstanceType", "m5.large"},
                                                   {"InstancePlatform", "Linux/UNIX"},
                                                   {"AvailabilityZone", "us-east-1a"},
                                                   {"InstanceCount", "1"},
                                                   {"EndDateType", "limited"}})
                .code,
            "InvalidParameterCombination");
}

TEST_F(CapacityReservationsTest, TargetedLaunchTakesCapacityUntilFullThenFails) {
  const std::string id = reserve(2, "targeted");
  Xml first = w_.ok("RunInstances", run(1, "capacity-reservations-only", id));
  const std::string instance = LaunchWorld::instanceIds(first).at(0);
  EXPECT_EQ(available(id), 1);
  w_.ok("RunInstances", run(1, "capacity-reservations-only", id));
  EXPECT_EQ(available(id), 0);

  aws::ApiError full = w_.fails("RunInstances", run(1, "capacity-reservations-only", id));
  EXPECT_EQ(full.code, "ReservationCapacityExceeded");
  EXPECT_EQ(available(id), 0);

  Xml described = w_.ok("DescribeInstances", {{"InstanceId.1", instance}});
  pugi::xml_node item = LaunchWorld::firstInstance(described);
  EXPECT_STREQ(item.child_value("capacityReservationId"), id.c_str());
  EXPECT_STREQ(
      item.child("capacityReservationSpecification").child_value("capacityReservationPreference"),
      "capacity-reservations-only");

  // Termination gives the capacity back, once however often it is asked.
  w_.ok("TerminateInstances", {{"InstanceId.1", instance}});
  w_.ok("TerminateInstances", {{"InstanceId.1", instance}});
  EXPECT_EQ(available(id), 1);
}

TEST_F(CapacityReservationsTest, TargetOfAnotherTypeOrAnUnknownIdFails) {
  const std::string id = reserve(2, "targeted");
  aws::ParamPairs other = run(1, "capacity-reservations-only", id);
  for (auto& [name, value] : other) {
    if (name == "InstanceType") {
      value = "m5.xlarge";
    }
  }
  EXPECT_EQ(w_.fails("RunInstances", other).code, "ReservationCapacityExceeded");
  EXPECT_EQ(
      w_.fails("RunInstances", run(1, "capacity-reservations-only", "cr-00000000000000000")).code,
      "InvalidCapacityReservationId.NotFound");
  EXPECT_EQ(available(id), 2);
}

TEST_F(CapacityReservationsTest, OpenReservationIsTakenByDefaultButNotWithPreferenceNone) {
  const std::string open = reserve(1, "open");
  const std::string targeted = reserve(1, "targeted");
  w_.ok("RunInstances", run(1, "none"));
  EXPECT_EQ(available(open), 1);
  Xml taken = w_.ok("RunInstances", run(1, ""));
  EXPECT_EQ(available(open), 0);
  EXPECT_EQ(available(targeted), 1);  // a targeted one is never taken unasked
  Xml described =
      w_.ok("DescribeInstances", {{"InstanceId.1", LaunchWorld::instanceIds(taken).at(0)}});
  EXPECT_STREQ(LaunchWorld::firstInstance(described).child_value("capacityReservationId"),
               open.c_str());
  // Full: the next launch runs outside it.
  Xml outside = w_.ok("RunInstances", run(1, ""));
  described =
      w_.ok("DescribeInstances", {{"InstanceId.1", LaunchWorld::instanceIds(outside).at(0)}});
  EXPECT_STREQ(LaunchWorld::firstInstance(described).child_value("capacityReservationId"), "");
}

TEST_F(CapacityReservationsTest, InterruptibleReservationLaunchesShowTheirLifecycle) {
  const std::string id = reserve(1, "targeted");
  (void)w_.engine().store().update(kind::kCapacityReservation, id, [](Resource& r) {
    auto next =
        std::make_shared<CapacityReservationAttributes>(*r.as<CapacityReservationAttributes>());
    next->interruptible = true;
    r.attributes = std::move(next);
  });
  Xml run1 = w_.ok("RunInstances", run(1, "capacity-reservations-only", id));
  Xml described =
      w_.ok("DescribeInstances", {{"InstanceId.1", LaunchWorld::instanceIds(run1).at(0)}});
  EXPECT_STREQ(LaunchWorld::firstInstance(described).child_value("instanceLifecycle"),
               "interruptible-capacity-reservation");
}

}  // namespace
}  // namespace nodewright::emulators::ec2
