#include <gtest/gtest.h>

#include "cloud/azure/arm_fixture.h"
#include "cloud/azure/counting_clock.h"

// How our ARM client fails against the emulator: what it refuses to send, what it retries, and
// which refusals mean "later" rather than "never".
namespace nodewright::cloud::azure {
namespace {

using namespace armtest;
using clocktest::AdvanceWhenBlocked;
using clocktest::CountingClock;
using lro::OpStatus;
using lro::Verb;
using Kind = lro::CallError::Kind;

class ArmClientFailuresTest : public ArmEmulatorFixture {
 protected:
  static std::string assignmentId(char last) {
    return kRgId + "/providers/Microsoft.Authorization/roleAssignments/" +
           "6f1b2a3c-0000-4000-8000-00000000000" + last;
  }
  static api::Json assignmentBody() {
    return {{"properties",
             {{"roleDefinitionId",
               kSub + "/providers/Microsoft.Authorization/roleDefinitions/contributor"},
              {"principalId", "p-1"}}}};
  }
};

TEST_F(ArmClientFailuresTest, ConflictThatWaitingCannotResolveIsInvalid) {
  createResourceGroup();
  auto first =
      client_->begin(Verb::Put, ref(assignmentId('1'), "roleassignments"), assignmentBody(), kCall);
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_EQ(first->status, OpStatus::Succeeded);
  // The same role for the same principal under another name: ARM's 409 RoleAssignmentExists,
  // which no amount of waiting resolves.
  auto second =
      client_->begin(Verb::Put, ref(assignmentId('2'), "roleassignments"), assignmentBody(), kCall);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().kind, Kind::Invalid);
  EXPECT_EQ(second.error().code, "RoleAssignmentExists");
  EXPECT_EQ(second.error().message, "PUT " + assignmentId('2') +
                                        ": HTTP 409 RoleAssignmentExists: The role assignment "
                                        "already exists.");
}

TEST_F(ArmClientFailuresTest, WriteIntoAGroupBeingDeletedIsAConflictToRetry) {
  createResourceGroup();
  auto deleting = client_->begin(Verb::Delete, ref(kRgId, "resourcegroups"), nullptr, kCall);
  ASSERT_TRUE(deleting.has_value()) << deleting.error().message;
  ASSERT_EQ(deleting->status, OpStatus::InProgress);
  auto put = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_FALSE(put.has_value());
  EXPECT_EQ(put.error().kind, Kind::Conflict);
  EXPECT_EQ(put.error().code, "ResourceGroupBeingDeleted");
}

TEST_F(ArmClientFailuresTest, ServerErrorIsRetriedAfterTheBackoff) {
  createResourceGroup();
  ASSERT_EQ(create(kVnetId, "virtualnetworks", vnetBody()).status, OpStatus::Succeeded);
  emulators::FaultConfig faults;
  emulators::ErrorRule rule;
  rule.code = "ServiceUnavailable";
  rule.status = 503;
  rule.probability = 1;
  faults.errors["VirtualNetworks_Get"] = {rule};
  server_->emulator().engine().faults().replace(faults);

  CountingClock counting(clock_);
  auto client = makeClient(*credential_, counting);
  const auto started = clock_.steadyNow();
  lro::CallResult<api::Json> got;
  int advances = 0;
  {
    // The outage ends while the client waits to retry.
    AdvanceWhenBlocked ticker(counting, clock_, [&] {
      server_->emulator().engine().faults().replace(emulators::FaultConfig{});
    });
    got = client->get(ref(kVnetId, "virtualnetworks"), 60s);
    advances = ticker.advances();
  }
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ((*got)["name"], "vnet");
  EXPECT_EQ(advances, 1);
  EXPECT_EQ(clock_.steadyNow() - started, client->options().baseDelay);
  EXPECT_EQ(
      server_->emulator().engine().stats().errors("VirtualNetworks_Get", "ServiceUnavailable"), 1u);
}

// A retry whose wait leaves less than minRequestTime would not be sent after the sleep: the
// worker would be held for nothing and the answer lost. The 503 comes back at once instead.
TEST_F(ArmClientFailuresTest, RetryThatWouldLeaveNoTimeToSendIsNotWaitedFor) {
  createResourceGroup();
  ASSERT_EQ(create(kVnetId, "virtualnetworks", vnetBody()).status, OpStatus::Succeeded);
  emulators::FaultConfig faults;
  emulators::ErrorRule rule;
  rule.code = "ServiceUnavailable";
  rule.status = 503;
  rule.probability = 1;
  faults.errors["VirtualNetworks_Get"] = {rule};
  server_->emulator().engine().faults().replace(faults);

  CountingClock counting(clock_);
  auto client = makeClient(*credential_, counting);
  // The back-off (800 ms) ends before the timeout, but only 200 ms before it.
  const auto timeout = client->options().baseDelay + client->options().minRequestTime - 50ms;
  const auto started = clock_.steadyNow();
  lro::CallResult<api::Json> got;
  int advances = 0;
  {
    AdvanceWhenBlocked ticker(counting, clock_);
    got = client->get(ref(kVnetId, "virtualnetworks"), timeout);
    advances = ticker.advances();
  }
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().kind, Kind::Transient);
  EXPECT_EQ(got.error().code, "ServiceUnavailable") << got.error().message;
  EXPECT_EQ(advances, 0);
  EXPECT_EQ(clock_.steadyNow(), started);
  EXPECT_EQ(
      server_->emulator().engine().stats().errors("VirtualNetworks_Get", "ServiceUnavailable"), 1u);
}

// Delegates to another credential, taking `delay` of the clock to answer.
class SlowCredential final : public TokenCredential {
 public:
  SlowCredential(TokenCredential& inner, core::FakeClock& clock, std::chrono::milliseconds delay)
      : inner_(inner), clock_(clock), delay_(delay) {}
  lro::CallResult<AccessToken> getToken(const std::string& scope,
                                        std::chrono::milliseconds timeout) override {
    clock_.advance(delay_);
    return inner_.getToken(scope, timeout);
  }
  std::string name() const override { return "slow"; }

 private:
  TokenCredential& inner_;
  core::FakeClock& clock_;
  const std::chrono::milliseconds delay_;
};

TEST_F(ArmClientFailuresTest, WriteWithTooLittleTimeLeftAfterTheTokenIsNotSent) {
  createResourceGroup();
  SlowCredential slow(*credential_, clock_, 1900ms);
  auto client = makeClient(slow);
  auto begun = client->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), 2s);
  ASSERT_FALSE(begun.has_value());
  EXPECT_EQ(begun.error().kind, Kind::Transient);
  EXPECT_EQ(begun.error().code, "RequestTimeout");
  EXPECT_EQ(putsOf(kVnetId), 0) << "a PUT whose answer could not arrive in time was sent";
}

TEST_F(ArmClientFailuresTest, PlainHttpEndpointIsRefusedWithoutSending) {
  createResourceGroup();
  ArmClientOptions options;
  options.endpoint = "http://127.0.0.1:" + std::to_string(server_->port());
  ArmClient insecure(options, *transport_, *credential_, clock_);
  auto begun = insecure.begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_FALSE(begun.has_value());
  EXPECT_EQ(begun.error().kind, Kind::Invalid);
  EXPECT_EQ(begun.error().code, "InsecureEndpoint");
  EXPECT_EQ(begun.error().message, "ARM endpoint " + options.endpoint +
                                       " is not https: bearer tokens are never sent over plain "
                                       "HTTP");
  auto got = insecure.get(ref(kRgId, "resourcegroups"), kCall);
  ASSERT_FALSE(got.has_value());
  EXPECT_EQ(got.error().code, "InsecureEndpoint");
  PollerState body;
  body.resourceId = kVnetId;
  body.apiVersion = "2023-04-01";
  auto polled = insecure.poll(serializePoller(body), kCall);
  ASSERT_FALSE(polled.has_value());
  EXPECT_EQ(polled.error().code, "InsecureEndpoint");
  EXPECT_EQ(putsOf(kVnetId), 0);

  // Nor does a client secret go to an http authority.
  EntraOptions entraOptions = entra(kClientId);
  entraOptions.authorityHost = options.endpoint;
  ClientSecretCredential secret(entraOptions, kSecret, *transport_, clock_);
  auto token = secret.getToken(kArmScope, kCall);
  ASSERT_FALSE(token.has_value());
  EXPECT_EQ(token.error().kind, Kind::Invalid);
  EXPECT_EQ(token.error().code, "InsecureAuthorityHost");
}

TEST_F(ArmClientFailuresTest, ParametersThatAreNotUtf8AreRefusedNotSent) {
  createResourceGroup();
  api::Json body = vnetBody();
  body["tags"] = {{"owner", std::string("caf\xC3", 4)}};  // a truncated "é"
  auto begun = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), body, kCall);
  ASSERT_FALSE(begun.has_value());
  EXPECT_EQ(begun.error().kind, Kind::Invalid);
  EXPECT_EQ(begun.error().code, "InvalidParameters");
  EXPECT_EQ(putsOf(kVnetId), 0);
}

TEST_F(ArmClientFailuresTest, EditedResumeTokenThatCurlWouldRefuseIsABadToken) {
  createResourceGroup();
  auto begun = client_->begin(Verb::Put, ref(kVnetId, "virtualnetworks"), vnetBody(), kCall);
  ASSERT_TRUE(begun.has_value()) << begun.error().message;
  auto poller = parsePoller(begun->resumeToken);
  ASSERT_TRUE(poller.has_value());
  PollerState edited = *poller;
  edited.url.insert(edited.url.find("/operations/"), " ");
  auto polled = client_->poll(serializePoller(edited), kCall);
  ASSERT_FALSE(polled.has_value());
  EXPECT_EQ(polled.error().kind, Kind::BadToken) << polled.error().message;
  EXPECT_EQ(polled.error().code, "InvalidResumeToken");
  edited = *poller;
  edited.via = PollVia::Body;
  edited.url.clear();
  edited.resourceId = kRgId + "/providers/Microsoft.Network/virtualNetworks/my vnet";
  polled = client_->poll(serializePoller(edited), kCall);
  ASSERT_FALSE(polled.has_value());
  EXPECT_EQ(polled.error().kind, Kind::BadToken) << polled.error().message;
  EXPECT_EQ(polled.error().code, "InvalidResumeToken");
}

}  // namespace
}  // namespace nodewright::cloud::azure
