// How stateAfterBegin reads 2xx answers it cannot follow as sent, and refusals that clear by
// themselves: an accepted operation is never left without a token to park.
#include <chrono>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "cloud/azure/poller_fixture.h"

namespace nodewright::cloud::azure {
namespace {

using lro::OpStatus;
using lro::Verb;
using Kind = lro::CallError::Kind;

using namespace pollertest;

// ARM accepted the operation: refusing its monitor must still leave a token to park, or the
// next reconcile sends the PUT again. The resource on our endpoint is polled instead.
void expectPolledViaBody(const lro::CallResult<lro::OpState>& state, Verb verb,
                         const std::string& what) {
  ASSERT_TRUE(state.has_value()) << what << ": " << state.error().message;
  EXPECT_EQ(state->status, OpStatus::InProgress) << what;
  PollerState expected;
  expected.verb = verb;
  expected.resourceId = kVnet;
  expected.apiVersion = "2023-04-01";
  expected.via = PollVia::Body;
  EXPECT_EQ(state->resumeToken, serializePoller(expected)) << what;
}

TEST(PollerBeginTest, MonitorOnAnotherHostIsNotFollowedButTheResourceIsPolled) {
  auto state = stateAfterBegin(
      Verb::Put, kVnet, "2023-04-01", kEndpoint,
      response(201, "{}",
               {{"azure-asyncoperation", "https://evil.example/ops/1"}, {"retry-after", "4"}}),
      kNow);
  expectPolledViaBody(state, Verb::Put, "PUT");
  EXPECT_EQ(state->retryAfter, std::chrono::seconds(4));
  auto deleting =
      stateAfterBegin(Verb::Delete, kVnet, "2023-04-01", kEndpoint,
                      response(202, "", {{"location", "https://evil.example/r/1"}}), kNow);
  expectPolledViaBody(deleting, Verb::Delete, "DELETE");
}

TEST(PollerBeginTest, MonitorUrlCurlWouldRefuseIsNotFollowedButTheResourceIsPolled) {
  auto state = stateAfterBegin(
      Verb::Put, kVnet, "2023-04-01", kEndpoint,
      response(201, "{}", {{"azure-asyncoperation", kEndpoint + "/ops/a b"}}), kNow);
  expectPolledViaBody(state, Verb::Put, "PUT");
}

TEST(PollerBeginTest, AcceptedWriteWithAnUnreadableBodyIsFollowed) {
  // An accepted PUT/PATCH with such a body still has an operation to follow: the resource's.
  for (int status : {200, 201, 202}) {
    expectPolledViaBody(stateAfterBegin(Verb::Put, kVnet, "2023-04-01", kEndpoint,
                                        response(status, "<html>busy</html>"), kNow),
                        Verb::Put, "HTTP " + std::to_string(status));
  }
  auto patching = stateAfterBegin(
      Verb::Patch, kVnet, "2023-04-01", kEndpoint,
      response(201, "{\"properties\":", {{"azure-asyncoperation", kAsyncUrl}}), kNow);
  ASSERT_TRUE(patching.has_value()) << patching.error().message;
  EXPECT_EQ(patching->status, OpStatus::InProgress);
  EXPECT_EQ(parsed(*patching).via, PollVia::AsyncOperation);
  EXPECT_EQ(parsed(*patching).url, kAsyncUrl);
}

// The codes the ARM emulator sends (src/emulators/arm/types.cc) and its default. During a
// teardown they clear once the dependents are deleted: a requeue, not DeletionFailed.
TEST(PollerBeginTest, DeleteOfAResourceInUseIsAConflictToRetry) {
  for (const std::string code :
       {"InUseSubnetCannotBeDeleted", "InUseNetworkSecurityGroupCannotBeDeleted",
        "InUseRouteTableCannotBeDeleted", "PublicIPAddressInUse", "InUseNatGatewayCannotBeDeleted",
        "NicInUse", "AvailabilitySetInUse", "ResourceInUse", "nicinuse"}) {
    for (int status : {400, 409}) {
      auto state = stateAfterBegin(
          Verb::Delete, kVnet, "2023-04-01", kEndpoint,
          response(status, R"({"error":{"code":")" + code + R"(","message":"m"}})"), kNow);
      ASSERT_FALSE(state.has_value()) << code;
      EXPECT_EQ(state.error().kind, Kind::Conflict) << code << " " << status;
      EXPECT_EQ(state.error().code, code);
    }
  }
  // A PUT refused with such a code, or a DELETE with another, is not about dependents.
  auto put = stateAfterBegin(
      Verb::Put, kVnet, "2023-04-01", kEndpoint,
      response(400, R"({"error":{"code":"InUseSubnetCannotBeUpdated","message":"m"}})"), kNow);
  ASSERT_FALSE(put.has_value());
  EXPECT_EQ(put.error().kind, Kind::Invalid);
  auto other = stateAfterBegin(
      Verb::Delete, kVnet, "2023-04-01", kEndpoint,
      response(400, R"({"error":{"code":"InvalidRequestFormat","message":"m"}})"), kNow);
  ASSERT_FALSE(other.has_value());
  EXPECT_EQ(other.error().kind, Kind::Invalid);
}

}  // namespace
}  // namespace nodewright::cloud::azure
