#include "cloud/azure/poller_fixture.h"

#include <gtest/gtest.h>

namespace nodewright::cloud::azure {
namespace {

using lro::OpStatus;
using lro::Verb;
using Kind = lro::CallError::Kind;

using namespace pollertest;

TEST(PollerSerializationTest, RoundTripsEveryMechanism) {
  for (PollVia via : {PollVia::AsyncOperation, PollVia::Location, PollVia::Body}) {
    for (Verb verb : {Verb::Put, Verb::Patch, Verb::Delete}) {
      PollerState state;
      state.verb = verb;
      state.resourceId = kVnet;
      state.apiVersion = "2023-04-01";
      state.via = via;
      state.url = via == PollVia::Body ? "" : kAsyncUrl;
      const std::string token = serializePoller(state);
      auto back = parsePoller(token);
      ASSERT_TRUE(back.has_value()) << token << ": " << back.error().message;
      EXPECT_EQ(*back, state);
    }
  }
}

TEST(PollerSerializationTest, IsCompactJsonWithAVersion) {
  PollerState state;
  state.verb = Verb::Delete;
  state.resourceId = kVnet;
  state.apiVersion = "2023-04-01";
  state.via = PollVia::Location;
  state.url = kLocationUrl;
  EXPECT_EQ(serializePoller(state), R"({"v":1,"verb":"DELETE","id":")" + kVnet +
                                        R"(","api":"2023-04-01","via":"location","url":")" +
                                        kLocationUrl + R"("})");
}

class GarbledTokenTest : public testing::TestWithParam<std::pair<const char*, std::string>> {};

TEST_P(GarbledTokenTest, IsABadToken) {
  auto state = parsePoller(GetParam().second);
  ASSERT_FALSE(state.has_value());
  EXPECT_EQ(state.error().kind, Kind::BadToken);
  EXPECT_EQ(state.error().code, "InvalidResumeToken");
}

const std::string kGood = R"("id":")" + kVnet + R"(","api":"2023-04-01")";

INSTANTIATE_TEST_SUITE_P(
    Tokens, GarbledTokenTest,
    testing::Values(
        std::make_pair("Empty", std::string()), std::make_pair("NotJson", std::string("{v:1")),
        std::make_pair("Array", std::string("[1]")),
        std::make_pair("Base64", std::string("eyJ2IjoxfQ==")),
        std::make_pair("OtherVersion", R"({"v":2,"verb":"PUT","via":"body",)" + kGood + "}"),
        std::make_pair("NoVersion", R"({"verb":"PUT","via":"body",)" + kGood + "}"),
        std::make_pair("UnknownVerb", R"({"v":1,"verb":"POST","via":"body",)" + kGood + "}"),
        std::make_pair("UnknownVia", R"({"v":1,"verb":"PUT","via":"poll",)" + kGood + "}"),
        std::make_pair("UnknownField",
                       R"({"v":1,"verb":"PUT","via":"body","token":"x",)" + kGood + "}"),
        std::make_pair("NotAResourceId",
                       R"({"v":1,"verb":"PUT","via":"body","id":"/vnet","api":"1"})"),
        std::make_pair("NoApiVersion",
                       R"({"v":1,"verb":"PUT","via":"body","id":")" + kVnet + R"("})"),
        std::make_pair("AsyncWithoutUrl", R"({"v":1,"verb":"PUT","via":"async",)" + kGood + "}"),
        std::make_pair("RelativeUrl",
                       R"({"v":1,"verb":"PUT","via":"async","url":"/x",)" + kGood + "}"),
        std::make_pair("IdWithASpace",
                       R"({"v":1,"verb":"PUT","via":"body","api":"2023-04-01","id":")" + kVnet +
                           R"( 2"})"),
        std::make_pair("IdNotUtf8",
                       R"({"v":1,"verb":"PUT","via":"body","api":"2023-04-01","id":")" + kVnet +
                           "\xC3" + R"("})"),
        std::make_pair("ApiVersionNotADate",
                       R"({"v":1,"verb":"PUT","via":"body","api":"2023-04-01&x=1","id":")" + kVnet +
                           R"("})"),
        std::make_pair("UrlWithASpace", R"({"v":1,"verb":"PUT","via":"async","url":")" + kEndpoint +
                                            R"(/ops/a b",)" + kGood + "}"),
        std::make_pair("UrlWithNonAscii", R"({"v":1,"verb":"PUT","via":"async","url":")" +
                                              kEndpoint + "/ops/\xC3\xA9" + R"(",)" + kGood + "}"),
        std::make_pair("BodyWithUrl", R"({"v":1,"verb":"PUT","via":"body","url":")" + kAsyncUrl +
                                          R"(",)" + kGood + "}")),
    [](const auto& info) { return std::string(info.param.first); });

// Begin -------------------------------------------------------------------------------------

TEST(PollerBeginTest, PutCreatedWithAsyncOperationPollsIt) {
  auto state =
      stateAfterBegin(Verb::Put, kVnet, "2023-04-01", kEndpoint,
                      response(201, R"({"properties":{"provisioningState":"Updating"}})",
                               {{"azure-asyncoperation", kAsyncUrl}, {"retry-after", "10"}}),
                      kNow);
  ASSERT_TRUE(state.has_value()) << state.error().message;
  EXPECT_EQ(state->status, OpStatus::InProgress);
  EXPECT_EQ(state->retryAfter, std::chrono::seconds(10));
  const PollerState poller = parsed(*state);
  EXPECT_EQ(poller.via, PollVia::AsyncOperation);
  EXPECT_EQ(poller.url, kAsyncUrl);
  EXPECT_EQ(poller.resourceId, kVnet);
}

TEST(PollerBeginTest, PutWithTerminalStateIsDoneWithTheBody) {
  auto state = stateAfterBegin(Verb::Put, kVnet, "2023-04-01", kEndpoint,
                               response(200,
                                        R"({"name":"vnet","properties":)"
                                        R"({"provisioningState":"Succeeded"}})",
                                        {{"azure-asyncoperation", kAsyncUrl}}),
                               kNow);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->status, OpStatus::Succeeded);
  EXPECT_EQ(state->result["name"], "vnet");
  EXPECT_TRUE(state->resumeToken.empty());
}

TEST(PollerBeginTest, PutWithoutMonitorAndNonTerminalStatePollsTheBody) {
  auto state =
      stateAfterBegin(Verb::Put, kVnet, "2023-04-01", kEndpoint,
                      response(201, R"({"properties":{"provisioningState":"Creating"}})"), kNow);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(parsed(*state).via, PollVia::Body);
}

TEST(PollerBeginTest, PutWithoutProvisioningStateCompletedSynchronously) {
  auto state = stateAfterBegin(Verb::Put, kVnet, "2023-04-01", kEndpoint,
                               response(200, R"({"tags":{}})"), kNow);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->status, OpStatus::Succeeded);
  EXPECT_EQ(state->result, api::Json::parse(R"({"tags":{}})"));
}

TEST(PollerBeginTest, DeleteAcceptedPrefersAsyncOperationOverLocation) {
  auto state = stateAfterBegin(
      Verb::Delete, kVnet, "2023-04-01", kEndpoint,
      response(202, "", {{"azure-asyncoperation", kAsyncUrl}, {"location", kLocationUrl}}), kNow);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(parsed(*state).via, PollVia::AsyncOperation);
  auto located = stateAfterBegin(Verb::Delete, kVnet, "2023-04-01", kEndpoint,
                                 response(202, "", {{"location", kLocationUrl}}), kNow);
  ASSERT_TRUE(located.has_value());
  EXPECT_EQ(parsed(*located).via, PollVia::Location);
  EXPECT_EQ(parsed(*located).url, kLocationUrl);
}

TEST(PollerBeginTest, DeleteNoContentMeansNoSuchResource) {
  auto state = stateAfterBegin(Verb::Delete, kVnet, "2023-04-01", kEndpoint, response(204), kNow);
  ASSERT_FALSE(state.has_value());
  EXPECT_EQ(state.error().kind, Kind::NotFound);
  auto deleted = stateAfterBegin(Verb::Delete, kVnet, "2023-04-01", kEndpoint, response(200), kNow);
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->status, OpStatus::Succeeded);
}

TEST(PollerBeginTest, RelativeMonitorResolvesAgainstTheEndpoint) {
  auto state = stateAfterBegin(Verb::Delete, kVnet, "2023-04-01", kEndpoint + "/",
                               response(202, "", {{"location", "/ops/1?api-version=x"}}), kNow);
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(parsed(*state).url, kEndpoint + "/ops/1?api-version=x");
}

TEST(PollerBeginTest, ConflictsOnlyWaitForOperationsThatEnd) {
  const std::map<std::string, Kind> expected = {{"AnotherOperationInProgress", Kind::Conflict},
                                                {"anotheroperationinprogress", Kind::Conflict},
                                                {"ResourceGroupBeingDeleted", Kind::Conflict},
                                                {"RoleAssignmentExists", Kind::Invalid},
                                                {"OperationNotAllowed", Kind::Invalid},
                                                {"MissingSubscriptionRegistration", Kind::Invalid},
                                                {"", Kind::Invalid}};
  for (const auto& [code, kind] : expected) {
    auto state = stateAfterBegin(
        Verb::Put, kVnet, "2023-04-01", kEndpoint,
        response(409, R"({"error":{"code":")" + code + R"(","message":"m"}})"), kNow);
    ASSERT_FALSE(state.has_value()) << code;
    EXPECT_EQ(state.error().kind, kind) << code;
    EXPECT_EQ(state.error().code, code);
    EXPECT_EQ(state.error().message,
              "PUT " + kVnet + ": HTTP 409" + (code.empty() ? "" : " " + code) + ": m");
  }
}

TEST(PollerBeginTest, FailureStatusesMapToCallErrors) {
  const std::map<int, Kind> expected = {{400, Kind::Invalid},   {401, Kind::Auth},
                                        {403, Kind::Auth},      {404, Kind::NotFound},
                                        {409, Kind::Conflict},  {429, Kind::Throttled},
                                        {500, Kind::Transient}, {503, Kind::Transient}};
  for (const auto& [status, kind] : expected) {
    auto state = stateAfterBegin(
        Verb::Put, kVnet, "2023-04-01", kEndpoint,
        response(status, R"({"error":{"code":"AnotherOperationInProgress","message":"busy"}})",
                 {{"retry-after", "7"}}),
        kNow);
    ASSERT_FALSE(state.has_value()) << status;
    EXPECT_EQ(state.error().kind, kind) << status;
    EXPECT_EQ(state.error().code, "AnotherOperationInProgress");
    EXPECT_EQ(state.error().retryAfter, std::chrono::seconds(7));
  }
}

// Poll -----------------------------------------------------------------------------------------

PollerState poller(Verb verb, PollVia via) {
  PollerState state;
  state.verb = verb;
  state.resourceId = kVnet;
  state.apiVersion = "2023-04-01";
  state.via = via;
  state.url = via == PollVia::AsyncOperation ? kAsyncUrl
              : via == PollVia::Location     ? kLocationUrl
                                             : "";
  return state;
}

TEST(PollerSerializationTest, NeverThrowsOnBytesThatAreNotUtf8) {
  PollerState state = poller(Verb::Put, PollVia::AsyncOperation);
  state.url = kEndpoint + "/ops/\xFF";
  const std::string token = serializePoller(state);
  auto back = parsePoller(token);
  ASSERT_FALSE(back.has_value()) << token;
  EXPECT_EQ(back.error().kind, Kind::BadToken);
}

// A 2xx answer that is not the JSON it should be: a proxy's page, a cut-off body. The operation
// is where it was: try again, never conclude from nothing.
void expectUnreadable(const lro::CallResult<PollOutcome>& out, const std::string& what) {
  ASSERT_FALSE(out.has_value()) << what;
  EXPECT_EQ(out.error().kind, Kind::Transient) << what;
  EXPECT_EQ(out.error().code, "InvalidResponse") << what;
}

TEST(PollerPollTest, UnreadableSuccessBodiesAreTransient) {
  for (const char* body : {"<html>busy</html>", "", "{\"status\":"}) {
    expectUnreadable(
        interpretPoll(poller(Verb::Put, PollVia::AsyncOperation), "tok", response(200, body), kNow),
        std::string("monitor: ") + body);
    expectUnreadable(
        interpretPoll(poller(Verb::Put, PollVia::Body), "tok", response(200, body), kNow),
        std::string("body: ") + body);
    auto last = stateAfterFinalGet(poller(Verb::Put, PollVia::Location), response(200, body), kNow);
    ASSERT_FALSE(last.has_value()) << body;
    EXPECT_EQ(last.error().kind, Kind::Transient);
    EXPECT_EQ(last.error().code, "InvalidResponse");
  }
  auto accepted = stateAfterBegin(Verb::Put, kVnet, "2023-04-01", kEndpoint,
                                  response(202, "", {{"azure-asyncoperation", kAsyncUrl}}), kNow);
  ASSERT_TRUE(accepted.has_value()) << "an empty 202 is fine";
  EXPECT_EQ(accepted->status, OpStatus::InProgress);
}

TEST(PollerPollTest, AsyncOperationInProgressKeepsTheTokenAndRetryAfter) {
  auto out =
      interpretPoll(poller(Verb::Put, PollVia::AsyncOperation), "tok",
                    response(200, R"({"status":"InProgress"})", {{"retry-after", "4"}}), kNow);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->state.status, OpStatus::InProgress);
  EXPECT_EQ(out->state.resumeToken, "tok");
  EXPECT_EQ(out->state.retryAfter, std::chrono::seconds(4));
  EXPECT_FALSE(out->fetchResource);
}

TEST(PollerPollTest, AsyncOperationSucceededFetchesThePutResourceButNotADeleted) {
  auto put = interpretPoll(poller(Verb::Put, PollVia::AsyncOperation), "tok",
                           response(200, R"({"status":"Succeeded"})"), kNow);
  ASSERT_TRUE(put.has_value());
  EXPECT_TRUE(put->fetchResource);
  auto del = interpretPoll(poller(Verb::Delete, PollVia::AsyncOperation), "tok",
                           response(200, R"({"status":"succeeded"})"), kNow);
  ASSERT_TRUE(del.has_value());
  EXPECT_FALSE(del->fetchResource);
  EXPECT_EQ(del->state.status, OpStatus::Succeeded);
}

TEST(PollerPollTest, AsyncOperationFailedCarriesTheError) {
  auto out = interpretPoll(
      poller(Verb::Put, PollVia::AsyncOperation), "tok",
      response(200, R"({"status":"Failed","error":{"code":"QuotaExceeded","message":"no"}})"),
      kNow);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->state.status, OpStatus::Failed);
  EXPECT_EQ(out->state.errorCode, "QuotaExceeded");
  EXPECT_EQ(out->state.errorMessage, "no");
  EXPECT_TRUE(out->state.resumeToken.empty());
  auto canceled = interpretPoll(poller(Verb::Put, PollVia::AsyncOperation), "tok",
                                response(200, R"({"status":"Canceled"})"), kNow);
  ASSERT_TRUE(canceled.has_value());
  EXPECT_EQ(canceled->state.status, OpStatus::Canceled);
  EXPECT_EQ(canceled->state.errorCode, "OperationCanceled");
}

TEST(PollerPollTest, UnknownOperationIsNotFound) {
  auto out = interpretPoll(poller(Verb::Put, PollVia::AsyncOperation), "tok", response(404), kNow);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().kind, Kind::NotFound);
}

TEST(PollerPollTest, LocationAcceptedRunsAndNoContentEndsADelete) {
  auto running = interpretPoll(poller(Verb::Delete, PollVia::Location), "tok",
                               response(202, "", {{"retry-after", "2"}}), kNow);
  ASSERT_TRUE(running.has_value());
  EXPECT_EQ(running->state.status, OpStatus::InProgress);
  EXPECT_EQ(running->state.retryAfter, std::chrono::seconds(2));
  auto done = interpretPoll(poller(Verb::Delete, PollVia::Location), "tok", response(204), kNow);
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->state.status, OpStatus::Succeeded);
}

TEST(PollerPollTest, LocationClientErrorIsTheOperationsFailure) {
  auto out = interpretPoll(
      poller(Verb::Delete, PollVia::Location), "tok",
      response(400, R"({"error":{"code":"InUseSubnetCannotBeDeleted","message":"in use"}})"), kNow);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->state.status, OpStatus::Failed);
  EXPECT_EQ(out->state.errorCode, "InUseSubnetCannotBeDeleted");
  auto throttled = interpretPoll(poller(Verb::Delete, PollVia::Location), "tok",
                                 response(429, "", {{"retry-after", "9"}}), kNow);
  ASSERT_FALSE(throttled.has_value());
  EXPECT_EQ(throttled.error().kind, Kind::Throttled);
  EXPECT_EQ(throttled.error().retryAfter, std::chrono::seconds(9));
}

TEST(PollerPollTest, BodyPollingReadsProvisioningState) {
  const PollerState put = poller(Verb::Put, PollVia::Body);
  auto running = interpretPoll(
      put, "tok", response(200, R"({"properties":{"provisioningState":"Creating"}})"), kNow);
  ASSERT_TRUE(running.has_value());
  EXPECT_EQ(running->state.status, OpStatus::InProgress);
  auto done = interpretPoll(
      put, "tok", response(200, R"({"id":"x","properties":{"provisioningState":"Succeeded"}})"),
      kNow);
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->state.status, OpStatus::Succeeded);
  EXPECT_EQ(done->state.result["id"], "x");
  auto failed = interpretPoll(
      put, "tok", response(200, R"({"properties":{"provisioningState":"Failed"}})"), kNow);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->state.status, OpStatus::Failed);
  EXPECT_EQ(failed->state.errorCode, "ProvisioningFailed");
  auto gone = interpretPoll(put, "tok", response(404), kNow);
  ASSERT_FALSE(gone.has_value());
  EXPECT_EQ(gone.error().kind, Kind::NotFound);
}

TEST(PollerPollTest, BodyPollingOfADeleteEndsWhenTheResourceIsGone) {
  const PollerState del = poller(Verb::Delete, PollVia::Body);
  auto running = interpretPoll(
      del, "tok", response(200, R"({"properties":{"provisioningState":"Deleting"}})"), kNow);
  ASSERT_TRUE(running.has_value());
  EXPECT_EQ(running->state.status, OpStatus::InProgress);
  auto gone = interpretPoll(del, "tok", response(404), kNow);
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(gone->state.status, OpStatus::Succeeded);
}

TEST(PollerPollTest, FinalGetOfAResourceDeletedMeanwhileIsNotFound) {
  auto out = stateAfterFinalGet(poller(Verb::Put, PollVia::AsyncOperation), response(404), kNow);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().kind, Kind::NotFound);
}

}  // namespace
}  // namespace nodewright::cloud::azure
