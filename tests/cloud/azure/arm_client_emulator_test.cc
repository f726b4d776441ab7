#include <gtest/gtest.h>

#include "cloud/azure/api_versions.h"
#include "cloud/azure/arm_fixture.h"
#include "cloud/azure/counting_clock.h"

namespace nodewright::cloud::azure {
namespace {

using namespace armtest;
using clocktest::AdvanceWhenBlocked;
using clocktest::CountingClock;
using lro::OpStatus;
using lro::Verb;
using Kind = lro::CallError::Kind;

class ArmClientEmulatorTest : public ArmEmulatorFixture {};

TEST_F(ArmClientEmulatorTest, PutPollsAzureAsyncOperationThenReadsTheResource) {
  createResourceGroup();
  auto begun = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_TRUE(begun.has_value()) << begun.error().message;
  ASSERT_EQ(begun->status, OpStatus::InProgress);
  ASSERT_TRUE(begun->retryAfter.has_value()) << "the emulator sends Retry-After with a PUT";
  auto poller = parsePoller(begun->resumeToken);
  ASSERT_TRUE(poller.has_value());
  EXPECT_EQ(poller->via, PollVia::AsyncOperation);
  EXPECT_TRUE(poller->url.starts_with(server_->url() + kSub + "/providers/Microsoft.Network/"))
      << poller->url;

  auto still = client_->poll(begun->resumeToken, kCall);
  ASSERT_TRUE(still.has_value()) << still.error().message;
  EXPECT_EQ(still->status, OpStatus::InProgress);
  EXPECT_EQ(still->resumeToken, begun->resumeToken);

  clock_.advance(10min);
  auto done = client_->poll(begun->resumeToken, kCall);
  ASSERT_TRUE(done.has_value()) << done.error().message;
  EXPECT_EQ(done->status, OpStatus::Succeeded);
  EXPECT_EQ(provisioningState(done->result), "Succeeded");
  EXPECT_EQ(done->result["name"], "vnet");
  EXPECT_TRUE(done->resumeToken.empty());
  EXPECT_EQ(putsOf(kVnetId), 1) << "polls never resend the PUT";
}

TEST_F(ArmClientEmulatorTest, DeletePollsLocationUntilItAnswersDone) {
  createResourceGroup();
  ASSERT_EQ(create(kVnetId, "virtualnetworks", vnetBody()).status, OpStatus::Succeeded);
  auto begun = client_->begin(Verb::Delete, ref(kVnetId, "virtualnetworks"), nullptr, kCall);
  ASSERT_TRUE(begun.has_value()) << begun.error().message;
  ASSERT_EQ(begun->status, OpStatus::InProgress);
  // The emulator sends both monitors; the client prefers Azure-AsyncOperation.
  // Its Location twin (…/operationResults/{id}) is what a Location-only service
  // would have sent.
  auto poller = parsePoller(begun->resumeToken);
  ASSERT_TRUE(poller.has_value());
  ASSERT_EQ(poller->via, PollVia::AsyncOperation);
  PollerState located = *poller;
  located.via = PollVia::Location;
  const size_t at = located.url.find("/operations/");
  ASSERT_NE(at, std::string::npos) << located.url;
  located.url.replace(at, 12, "/operationResults/");
  const std::string token = serializePoller(located);

  auto running = client_->poll(token, kCall);
  ASSERT_TRUE(running.has_value()) << running.error().message;
  EXPECT_EQ(running->status, OpStatus::InProgress);
  EXPECT_TRUE(running->retryAfter.has_value()) << "Retry-After of the 202 is surfaced";
  clock_.advance(10min);
  auto done = client_->poll(token, kCall);
  ASSERT_TRUE(done.has_value()) << done.error().message;
  EXPECT_EQ(done->status, OpStatus::Succeeded);
  auto gone = client_->get(ref(kVnetId, "virtualnetworks"), kCall);
  ASSERT_FALSE(gone.has_value());
  EXPECT_EQ(gone.error().kind, Kind::NotFound);
}

TEST_F(ArmClientEmulatorTest, BodyPollingFollowsProvisioningState) {
  createResourceGroup();
  auto begun = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_TRUE(begun.has_value()) << begun.error().message;
  ASSERT_EQ(begun->status, OpStatus::InProgress);
  PollerState body;
  body.verb = Verb::Put;
  body.resourceId = kVnetId;
  body.apiVersion = *apiVersionFor(kVnetId);
  body.via = PollVia::Body;
  const std::string token = serializePoller(body);

  auto running = client_->poll(token, kCall);
  ASSERT_TRUE(running.has_value()) << running.error().message;
  EXPECT_EQ(running->status, OpStatus::InProgress);
  EXPECT_EQ(running->resumeToken, token);
  clock_.advance(10min);
  auto done = client_->poll(token, kCall);
  ASSERT_TRUE(done.has_value()) << done.error().message;
  EXPECT_EQ(done->status, OpStatus::Succeeded);
  EXPECT_EQ(provisioningState(done->result), "Succeeded");

  // A DELETE polled on the body ends when the resource answers 404.
  auto deleting = client_->begin(Verb::Delete, ref(kVnetId, "virtualnetworks"), nullptr, kCall);
  ASSERT_TRUE(deleting.has_value()) << deleting.error().message;
  body.verb = Verb::Delete;
  const std::string deleteToken = serializePoller(body);
  clock_.advance(10min);
  auto deleted = client_->poll(deleteToken, kCall);
  ASSERT_TRUE(deleted.has_value()) << deleted.error().message;
  EXPECT_EQ(deleted->status, OpStatus::Succeeded);
}

TEST_F(ArmClientEmulatorTest, SecondWriteWhileRunningIsConflict) {
  createResourceGroup();
  auto first = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_TRUE(first.has_value()) << first.error().message;
  ASSERT_EQ(first->status, OpStatus::InProgress);
  auto second = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().kind, Kind::Conflict);
  EXPECT_EQ(second.error().code, "AnotherOperationInProgress");
}

TEST_F(ArmClientEmulatorTest, InjectedProvisioningFailureEndsFailedWithItsCode) {
  createResourceGroup();
  // A rule without an HTTP status lets the write start; its operation ends Failed.
  emulators::FaultConfig faults;
  emulators::ErrorRule rule;
  rule.code = "AllocationFailed";
  rule.message = "no capacity for the gateway";
  rule.probability = 1;
  faults.errors["NatGateways_CreateOrUpdate"] = {rule};
  server_->emulator().engine().faults().replace(faults);

  const api::Json nat = {{"location", "eastus"}, {"sku", {{"name", "Standard"}}}};
  auto begun = client_->begin(Verb::Put, ref(kNatId, "natgateways"), nat, kCall);
  ASSERT_TRUE(begun.has_value()) << begun.error().message;
  ASSERT_EQ(begun->status, OpStatus::InProgress);
  clock_.advance(10min);
  auto failed = client_->poll(begun->resumeToken, kCall);
  ASSERT_TRUE(failed.has_value()) << failed.error().message;
  EXPECT_EQ(failed->status, OpStatus::Failed);
  EXPECT_EQ(failed->errorCode, "AllocationFailed");
  EXPECT_EQ(failed->errorMessage, "no capacity for the gateway");
  EXPECT_TRUE(failed->resumeToken.empty());
}

TEST_F(ArmClientEmulatorTest, PollAfterAnExternalDeleteIsNotFound) {
  createResourceGroup();
  auto begun = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_TRUE(begun.has_value()) << begun.error().message;
  clock_.advance(10min);
  // Someone else deletes the vnet (the portal, another controller) before we
  // poll again.
  auto otherCredential = cached(secretCredential(kClientId, kSecret), clock_);
  auto other = makeClient(*otherCredential);
  auto deleting = other->begin(Verb::Delete, ref(kVnetId, "virtualnetworks"), nullptr, kCall);
  ASSERT_TRUE(deleting.has_value()) << deleting.error().message;
  EXPECT_EQ(finish(*deleting, other.get()).status, OpStatus::Succeeded);

  auto polled = client_->poll(begun->resumeToken, kCall);
  ASSERT_FALSE(polled.has_value()) << "the future points at a deleted resource";
  EXPECT_EQ(polled.error().kind, Kind::NotFound);
  auto got = client_->get(ref(kVnetId, "virtualnetworks"), kCall);
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().kind, Kind::NotFound);
  auto again = client_->begin(Verb::Delete, ref(kVnetId, "virtualnetworks"), nullptr, kCall);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().kind, Kind::NotFound);
}

TEST_F(ArmClientEmulatorTest, ThrottledReadIsNotResentBeforeRetryAfter) {
  createResourceGroup();
  lro::CallResult<api::Json> got;
  int reads = 0;
  for (; reads < 300; ++reads) {
    // Shorter than any Retry-After: the 429 comes back instead of being waited out.
    got = client_->get(ref(kRgId, "resourcegroups"), 500ms);
    if (!got) {
      break;
    }
  }
  ASSERT_FALSE(got.has_value()) << "no 429 after " << reads << " reads";
  EXPECT_EQ(got.error().kind, Kind::Throttled) << got.error().message;
  EXPECT_EQ(got.error().code, "SubscriptionRequestsThrottled");
  ASSERT_TRUE(got.error().retryAfter.has_value());
  EXPECT_GE(*got.error().retryAfter, 1s);
  EXPECT_EQ(reads, 250) << "ARM's read bucket holds 250";

  // With a timeout the Retry-After fits in, the call waits it out on the clock and succeeds:
  // one more 429, then the read. Time moves only while the client sleeps, by what it asked.
  emulators::Stats& stats = server_->emulator().engine().stats();
  const uint64_t throttledBefore = stats.errors("(throttled)", got.error().code);
  CountingClock counting(clock_);
  auto patientClient = makeClient(*credential_, counting);
  const auto started = clock_.steadyNow();
  lro::CallResult<api::Json> patient;
  int advances = 0;
  {
    AdvanceWhenBlocked ticker(counting, clock_);
    patient = patientClient->get(ref(kRgId, "resourcegroups"), 60s);
    advances = ticker.advances();
  }
  ASSERT_TRUE(patient.has_value()) << patient.error().message;
  EXPECT_EQ(advances, 1) << "one wait, for the Retry-After";
  EXPECT_EQ(clock_.steadyNow() - started, *got.error().retryAfter);
  EXPECT_EQ(stats.errors("(throttled)", got.error().code), throttledBefore + 1);
}

TEST_F(ArmClientEmulatorTest, PatchReturnsTheUpdatedResource) {
  createResourceGroup();
  ASSERT_EQ(create(kVnetId, "virtualnetworks", vnetBody()).status, OpStatus::Succeeded);
  auto begun = client_->begin(Verb::Patch, ref(kVnetId, "virtualnetworks"),
                              {{"tags", {{"owner", "capz"}}}}, kCall);
  ASSERT_TRUE(begun.has_value()) << begun.error().message;
  const lro::OpState done = finish(*begun);
  ASSERT_EQ(done.status, OpStatus::Succeeded);
  EXPECT_EQ(done.result["tags"], api::Json({{"owner", "capz"}}));
  EXPECT_EQ(done.result["properties"]["addressSpace"]["addressPrefixes"][0], "10.0.0.0/16")
      << "a PATCH merges";
  EXPECT_EQ(putsOf(kVnetId), 1);
}

TEST_F(ArmClientEmulatorTest, LocationPolledPutEndsWithTheResourcesFinalGet) {
  createResourceGroup();
  auto begun = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_TRUE(begun.has_value()) << begun.error().message;
  ASSERT_EQ(begun->status, OpStatus::InProgress);
  // What a service that sends only Location would have had us follow: the operation's result.
  auto poller = parsePoller(begun->resumeToken);
  ASSERT_TRUE(poller.has_value());
  PollerState located = *poller;
  located.via = PollVia::Location;
  const size_t at = located.url.find("/operations/");
  ASSERT_NE(at, std::string::npos) << located.url;
  located.url.replace(at, 12, "/operationResults/");
  const std::string token = serializePoller(located);

  auto running = client_->poll(token, kCall);
  ASSERT_TRUE(running.has_value()) << running.error().message;
  EXPECT_EQ(running->status, OpStatus::InProgress);
  EXPECT_EQ(running->resumeToken, token);
  clock_.advance(10min);
  auto done = client_->poll(token, kCall);
  ASSERT_TRUE(done.has_value()) << done.error().message;
  EXPECT_EQ(done->status, OpStatus::Succeeded);
  EXPECT_EQ(done->result["id"], kVnetId);
  EXPECT_EQ(provisioningState(done->result), "Succeeded");
  EXPECT_EQ(putsOf(kVnetId), 1);
}

TEST_F(ArmClientEmulatorTest, CreateOvertakenByADeleteEndsCanceled) {
  createResourceGroup();
  auto creating = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_TRUE(creating.has_value()) << creating.error().message;
  ASSERT_EQ(creating->status, OpStatus::InProgress);
  auto deleting = client_->begin(Verb::Delete, ref(kVnetId, "virtualnetworks"), nullptr, kCall);
  ASSERT_TRUE(deleting.has_value()) << deleting.error().message;
  ASSERT_EQ(deleting->status, OpStatus::InProgress);

  auto canceled = client_->poll(creating->resumeToken, kCall);
  ASSERT_TRUE(canceled.has_value()) << canceled.error().message;
  EXPECT_EQ(canceled->status, OpStatus::Canceled);
  EXPECT_EQ(canceled->errorCode, "Canceled");
  EXPECT_EQ(canceled->errorMessage, "Operation was canceled: the resource is being deleted.");
  EXPECT_TRUE(canceled->resumeToken.empty());
  EXPECT_EQ(finish(*deleting).status, OpStatus::Succeeded);
}

TEST_F(ArmClientEmulatorTest, TokenPointingAtAnotherHostIsRefusedBeforeSending) {
  PollerState state;
  state.verb = Verb::Put;
  state.resourceId = kVnetId;
  state.apiVersion = "2023-04-01";
  state.via = PollVia::AsyncOperation;
  state.url = "https://127.0.0.1:1/steal";
  auto polled = client_->poll(serializePoller(state), kCall);
  ASSERT_FALSE(polled.has_value());
  EXPECT_EQ(polled.error().kind, Kind::BadToken);
  EXPECT_EQ(polled.error().code, "InvalidResumeToken");
}

}  // namespace
}  // namespace nodewright::cloud::azure
