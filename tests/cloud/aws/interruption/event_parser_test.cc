#include "cloud/aws/interruption/event_parser.h"

#include <gtest/gtest.h>

#include "support/cloud/aws/interruption_events.h"

namespace nodewright::cloud::aws {
namespace {

using cloud::InterruptionKind;
namespace events = ::nodewright::cloud::aws::testing;

struct ParseCase {
  std::string name;
  std::string body;
  InterruptionKind kind;
  std::vector<std::string> machineIds;
  bool malformed = false;
};

class InterruptionEventParserTest : public ::testing::TestWithParam<ParseCase> {};

TEST_P(InterruptionEventParserTest, ReadsTheKindAndTheInstances) {
  const ParseCase& c = GetParam();
  const cloud::InterruptionNotice notice = parseInterruptionEvent(c.body);
  EXPECT_EQ(interruptionKindLabel(notice.kind), interruptionKindLabel(c.kind));
  EXPECT_EQ(notice.machineIds, c.machineIds);
  EXPECT_EQ(!notice.malformed.empty(), c.malformed) << notice.malformed;
  EXPECT_TRUE(notice.receipt.empty());
}

const std::string kI1 = "i-0123456789abcdef0";
const std::string kI2 = "i-0fedcba9876543210";

INSTANTIATE_TEST_SUITE_P(
    Events, InterruptionEventParserTest,
    ::testing::Values(
        ParseCase{"SpotInterruption",
                  events::spotInterruptionWarning(kI1),
                  InterruptionKind::SpotInterrupted,
                  {kI1}},
        ParseCase{"Rebalance",
                  events::rebalanceRecommendation(kI1),
                  InterruptionKind::RebalanceRecommendation,
                  {kI1}},
        ParseCase{"Stopping",
                  events::stateChange(kI1, "stopping"),
                  InterruptionKind::InstanceStopped,
                  {kI1}},
        ParseCase{"Stopped",
                  events::stateChange(kI1, "stopped"),
                  InterruptionKind::InstanceStopped,
                  {kI1}},
        ParseCase{"ShuttingDown",
                  events::stateChange(kI1, "shutting-down"),
                  InterruptionKind::InstanceTerminated,
                  {kI1}},
        ParseCase{"Terminated",
                  events::stateChange(kI1, "terminated"),
                  InterruptionKind::InstanceTerminated,
                  {kI1}},
        ParseCase{"StateInUpperCase",
                  events::stateChange(kI1, "Stopping"),
                  InterruptionKind::InstanceStopped,
                  {kI1}},
        ParseCase{"RunningIsNoOp", events::stateChange(kI1, "running"), InterruptionKind::NoOp, {}},
        ParseCase{"PendingIsNoOp", events::stateChange(kI1, "pending"), InterruptionKind::NoOp, {}},
        ParseCase{"ScheduledChange",
                  events::healthEvent({kI1, kI2}),
                  InterruptionKind::ScheduledChange,
                  {kI1, kI2}},
        ParseCase{"HealthOfAnotherServiceIsNoOp",
                  events::healthEvent({kI1}, "EBS"),
                  InterruptionKind::NoOp,
                  {}},
        ParseCase{"HealthIssueIsNoOp",
                  events::healthEvent({kI1}, "EC2", "issue"),
                  InterruptionKind::NoOp,
                  {}},
        ParseCase{"CapacityReservation",
                  events::capacityReservationInterruption(kI2),
                  InterruptionKind::CapacityReservationInterrupted,
                  {kI2}},
        ParseCase{"EmptyBodyIsNoOp", "", InterruptionKind::NoOp, {}},
        ParseCase{"UnknownDetailTypeIsNoOp",
                  R"({"version":"0","source":"aws.ec2","detail-type":"EC2 AMI State Change",
                      "time":"2026-11-29T15:00:00Z","detail":{"ImageId":"ami-1"}})",
                  InterruptionKind::NoOp,
                  {}},
        ParseCase{"AnotherVersionIsNoOp",
                  R"({"version":"1","source":"aws.ec2",
                      "detail-type":"EC2 Spot Instance Interruption Warning",
                      "detail":{"instance-id":"i-1"}})",
                  InterruptionKind::NoOp,
                  {}},
        ParseCase{"NotJsonIsMalformed", "{not json", InterruptionKind::NoOp, {}, true},
        ParseCase{"AnArrayIsMalformed", "[1,2]", InterruptionKind::NoOp, {}, true},
        ParseCase{"MistypedEnvelopeIsMalformed",
                  R"({"version":0,"source":"aws.ec2","detail-type":"x"})",
                  InterruptionKind::NoOp,
                  {},
                  true},
        ParseCase{"BadTimeIsMalformed",
                  R"({"version":"0","source":"aws.ec2","detail-type":"x","time":"yesterday"})",
                  InterruptionKind::NoOp,
                  {},
                  true},
        ParseCase{"SpotWithoutInstanceIsMalformed",
                  R"({"version":"0","source":"aws.ec2",
                      "detail-type":"EC2 Spot Instance Interruption Warning",
                      "detail":{"instance-action":"terminate"}})",
                  InterruptionKind::NoOp,
                  {},
                  true},
        ParseCase{"SpotWithoutDetailIsMalformed",
                  R"({"version":"0","source":"aws.ec2",
                      "detail-type":"EC2 Spot Instance Interruption Warning"})",
                  InterruptionKind::NoOp,
                  {},
                  true},
        ParseCase{"HealthWithMistypedEntitiesIsMalformed",
                  R"({"version":"0","source":"aws.health","detail-type":"AWS Health Event",
                      "detail":{"service":"EC2","eventTypeCategory":"scheduledChange",
                                "affectedEntities":[{"entityValue":7}]}})",
                  InterruptionKind::NoOp,
                  {},
                  true}),
    [](const auto& info) { return info.param.name; });

TEST(InterruptionEventTimeTest, TheEventTimeIsWhenItWasRaised) {
  const auto notice =
      parseInterruptionEvent(events::spotInterruptionWarning(kI1, "2026-11-29T15:00:00Z"));
  ASSERT_TRUE(notice.raisedAt.has_value());
  EXPECT_EQ(core::Time(*notice.raisedAt).toString(), "2026-11-29T15:00:00Z");
  EXPECT_FALSE(parseInterruptionEvent("{}").raisedAt.has_value());
}

}  // namespace
}  // namespace nodewright::cloud::aws
