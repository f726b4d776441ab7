#include "controllers/capz/conditions.h"

#include <vector>

#include <gtest/gtest.h>

#include "api/capz/conditions.h"

namespace nodewright::controllers::capz {
namespace {

using api::capi::CapiCondition;
using lro::Outcome;
using lro::ResourceRef;
using namespace std::chrono_literals;

ResourceRef subnet() {
  ResourceRef ref;
  ref.id =
      "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/"
      "subnets/nodes";
  ref.resourceGroup = "rg";
  ref.serviceName = "subnets";
  ref.name = "nodes";
  return ref;
}

Outcome outcome(Outcome::Kind kind, std::string message = "") {
  Outcome o;
  o.kind = kind;
  o.message = std::move(message);
  return o;
}

class CapzConditionsTest : public ::testing::Test {
 protected:
  core::Time at(int seconds) {
    return core::Time(core::TimePoint(std::chrono::seconds(1700000000 + seconds)));
  }
  const CapiCondition& only() {
    EXPECT_EQ(conditions_.size(), 1u);
    return conditions_.at(0);
  }
  std::vector<CapiCondition> conditions_;
  const char* type_ = api::capz::kSubnetsReadyCondition;
};

TEST_F(CapzConditionsTest, PutNotDoneIsCreatingThenTrue) {
  updatePutStatus(
      conditions_, type_, subnet(),
      outcome(Outcome::Kind::NotDone, "operation PUT on rg/nodes (subnets) is not done"), at(0));
  EXPECT_EQ(only().type, "SubnetsReady");
  EXPECT_EQ(only().status, "False");
  EXPECT_EQ(only().reason, "Creating");
  EXPECT_EQ(only().severity, "Info");
  EXPECT_EQ(only().message, "operation PUT on rg/nodes (subnets) is not done");

  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Done), at(10));
  EXPECT_EQ(only().status, "True");
  EXPECT_EQ(only().reason, "");
  EXPECT_EQ(only().severity, "");
  EXPECT_EQ(only().message, "");
  EXPECT_EQ(only().lastTransitionTime, at(10));
}

TEST_F(CapzConditionsTest, PutFailureIsFailedWithSeverityError) {
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Failed, "quota"), at(0));
  EXPECT_EQ(only().reason, "Failed");
  EXPECT_EQ(only().severity, "Error");
  EXPECT_EQ(only().message, "quota");
}

TEST_F(CapzConditionsTest, TransientErrorIsFailedWithSeverityWarning) {
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Error), at(0));
  EXPECT_EQ(only().reason, "Failed");
  EXPECT_EQ(only().severity, "Warning");
  EXPECT_EQ(only().message, "rg/nodes (subnets): operation failed");
}

TEST_F(CapzConditionsTest, PatchNotDoneIsUpdating) {
  updatePatchStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::NotDone), at(0));
  EXPECT_EQ(only().reason, api::capz::kUpdatingReason);
  EXPECT_EQ(only().severity, "Info");
  EXPECT_EQ(only().message, "rg/nodes (subnets): operation is not done");
  updatePatchStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Failed, "x"), at(0));
  EXPECT_EQ(only().reason, "Failed");
  updatePatchStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Done), at(0));
  EXPECT_EQ(only().status, "True");
}

TEST_F(CapzConditionsTest, DeleteGoesDeletingThenDeleted) {
  updateDeleteStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::NotDone), at(0));
  EXPECT_EQ(only().status, "False");
  EXPECT_EQ(only().reason, "Deleting");
  EXPECT_EQ(only().severity, "Info");
  updateDeleteStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Done), at(5));
  EXPECT_EQ(only().status, "False");
  EXPECT_EQ(only().reason, "Deleted");
  EXPECT_EQ(only().severity, "Info");
  EXPECT_EQ(only().message, "rg/nodes (subnets) has been deleted");
}

TEST_F(CapzConditionsTest, DeleteFailureIsDeletionFailed) {
  updateDeleteStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Failed, "in use"), at(0));
  EXPECT_EQ(only().reason, "DeletionFailed");
  EXPECT_EQ(only().severity, "Error");
  EXPECT_EQ(only().message, "in use");
}

// CAPI's conditions.Set: the time moves when the status, reason, severity or message changes.
TEST_F(CapzConditionsTest, TransitionTimeMovesWhenTheConditionChanges) {
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::NotDone), at(0));
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::NotDone), at(15));
  EXPECT_EQ(only().lastTransitionTime, at(0));
  // Same status, new reason and severity.
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Failed, "x"), at(30));
  EXPECT_EQ(only().reason, "Failed");
  EXPECT_EQ(only().lastTransitionTime, at(30));
  // Same reason, new severity.
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Error, "x"), at(40));
  EXPECT_EQ(only().severity, "Warning");
  EXPECT_EQ(only().lastTransitionTime, at(40));
  // Only the message.
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Error, "y"), at(50));
  EXPECT_EQ(only().lastTransitionTime, at(50));
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Done), at(60));
  EXPECT_EQ(only().lastTransitionTime, at(60));
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Done), at(90));
  EXPECT_EQ(only().lastTransitionTime, at(60));
}

TEST_F(CapzConditionsTest, TransitionTimeIsTruncatedToSeconds) {
  core::Time now(core::TimePoint(std::chrono::seconds(1700000000) + 750ms));
  updatePutStatus(conditions_, type_, subnet(), outcome(Outcome::Kind::Done), now);
  EXPECT_EQ(only().lastTransitionTime, at(0));
}

TEST_F(CapzConditionsTest, KeepsReadyFirstThenTypesInOrder) {
  updatePutStatus(conditions_, "VNetReady", subnet(), outcome(Outcome::Kind::Done), at(0));
  updatePutStatus(conditions_, "Ready", subnet(), outcome(Outcome::Kind::Done), at(0));
  updatePutStatus(conditions_, "SubnetsReady", subnet(), outcome(Outcome::Kind::Done), at(0));
  std::vector<std::string> types;
  for (const auto& c : conditions_) {
    types.push_back(c.type);
  }
  EXPECT_EQ(types, (std::vector<std::string>{"Ready", "SubnetsReady", "VNetReady"}));
}

}  // namespace
}  // namespace nodewright::controllers::capz
