#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "api/codec.h"
#include "cloud/azure/engine_fixture.h"

// The issue's "engine tests with an injected clock", with the real cloud side: the futures
// engine drives our ARM client against the ARM emulator over HTTPS. Every wait is on the
// FakeClock (see engine_fixture.h), so each test takes a fraction of a second of real time.
namespace nodewright::cloud::azure::enginetest {
namespace {

using Kind = lro::Outcome::Kind;
using lro::OpStatus;
using lro::Verb;

class EngineArmEmulatorTest : public EngineEmulatorFixture {
 protected:
  // PUT /admin/faults over HTTPS (the admin API takes no token).
  void putFaults(const std::string& json) {
    HttpRequest request;
    request.method = "PUT";
    request.url = server_->url() + "/admin/faults";
    request.headers = {{"Content-Type", "application/json"}};
    request.body = json;
    auto response = transport_->send(request, kCall);
    ASSERT_TRUE(response.has_value()) << response.error().message;
    ASSERT_EQ(response->status, 200) << response->body;
  }

  // Deletes the gateway behind the engine's back (the portal, another controller) and waits
  // for the delete to end.
  void deleteExternally() {
    auto deleting = client_->begin(Verb::Delete, ref(kNatId, "natgateways"), nullptr, kCall);
    ASSERT_TRUE(deleting.has_value()) << deleting.error().message;
    ASSERT_EQ(finish(*deleting).status, OpStatus::Succeeded);
  }

  void expectCondition(const char* status, const char* reason, const char* severity,
                       const std::string& message) {
    const api::capi::CapiCondition* c = natCondition();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->status, status);
    EXPECT_EQ(c->reason, reason);
    EXPECT_EQ(c->severity, severity);
    EXPECT_EQ(c->message, message);
  }

  std::string provisioningStateOfNat() {
    auto got = client_->get(ref(kNatId, "natgateways"), kCall);
    EXPECT_TRUE(got.has_value()) << got.error().message;
    return got ? provisioningState(*got) : "";
  }

  double notDoneCount() {
    return metrics_->counter("nodewright_lro_not_done_total", "", {"service", "verb"})
        .with({"natgateways", "PUT"})
        .value();
  }
};

TEST_F(EngineArmEmulatorTest, StoresOneFutureWhenTheCallWindowPasses) {
  const auto began = clock_.steadyNow();
  lro::Outcome o = reconcileNat();

  ASSERT_EQ(o.kind, Kind::NotDone) << o.message;
  EXPECT_EQ(o.message, "operation PUT on rg-lro/nat (natgateways) is not done");
  // Polled once within the window, at the PUT's Retry-After (ARM's 10 s cap); the next
  // Retry-After would end past the window, so the operation was parked then.
  EXPECT_EQ(since(began), 10s);
  ASSERT_EQ(futures().size(), 1u);
  const api::capz::Future& future = futures()[0];
  EXPECT_EQ(future.type, "PUT");
  EXPECT_EQ(future.resourceGroup, "rg-lro");
  EXPECT_EQ(future.serviceName, "natgateways");
  EXPECT_EQ(future.name, "nat");
  auto poller = parsePoller(future.data);
  ASSERT_TRUE(poller.has_value()) << future.data;
  EXPECT_EQ(poller->via, PollVia::AsyncOperation);
  EXPECT_EQ(poller->resourceId, kNatId);

  // The requeue is the emulator's Retry-After as it stands: 7 s of the 17 s are left.
  auto now = client_->poll(future.data, kCall);
  ASSERT_TRUE(now.has_value()) << now.error().message;
  EXPECT_EQ(now->status, OpStatus::InProgress);
  EXPECT_EQ(now->retryAfter, std::optional<std::chrono::milliseconds>(7s));
  EXPECT_EQ(o.requeueAfter, std::optional<std::chrono::milliseconds>(7s));

  expectCondition("False", "Creating", "Info",
                  "operation PUT on rg-lro/nat (natgateways) is not done");
  const api::Json stored = api::toJson(cluster_)["status"]["longRunningOperationStates"];
  ASSERT_EQ(stored.size(), 1u) << stored.dump();
  EXPECT_EQ(stored[0]["type"], "PUT");
  EXPECT_EQ(stored[0]["serviceName"], "natgateways");
  EXPECT_EQ(stored[0]["name"], "nat");
  EXPECT_EQ(putsOf(kNatId), 1);
}

TEST_F(EngineArmEmulatorTest, RestartedProcessResumesFromTheClusterJsonWithNoSecondPut) {
  ASSERT_EQ(reconcileNat().kind, Kind::NotDone);
  // The status goes through the API server as JSON text; the process dies.
  const std::string persisted = api::toJson(cluster_).dump();
  api::capz::AzureCluster reloaded;
  const api::Json parsed = api::Json::parse(persisted, nullptr, false);
  ASSERT_FALSE(parsed.is_discarded());
  ASSERT_TRUE(api::decodeJson(parsed, reloaded).empty());
  cluster_ = std::move(reloaded);
  ASSERT_EQ(futures().size(), 1u);
  boot();

  clock_.advance(7s);  // the requeue
  const auto began = clock_.steadyNow();
  lro::Outcome o = reconcileNat();

  ASSERT_EQ(o.kind, Kind::Done) << o.message;
  EXPECT_EQ(since(began), 0s) << "a resume is one poll, no window";
  EXPECT_TRUE(futures().empty());
  EXPECT_EQ(o.result.value("name", ""), "nat");
  EXPECT_EQ(provisioningState(o.result), "Succeeded");
  expectCondition("True", "", "", "");
  EXPECT_EQ(nat_.asked(), 1) << "the resume neither read the resource nor asked the spec";
  EXPECT_EQ(putsOf(kNatId), 1) << "per /admin/stats, the restarted process sent no PUT";
}

TEST_F(EngineArmEmulatorTest, FailedOperationRemovesItsFutureAndReportsTheCode) {
  // A rule without an HTTP status lets the PUT start; its operation ends Failed.
  ASSERT_NO_FATAL_FAILURE(putFaults(R"({"errors": {"NatGateways_CreateOrUpdate": [
      {"code": "AllocationFailed", "message": "no capacity for the gateway",
       "probability": 1}]}})"));
  ASSERT_EQ(reconcileNat().kind, Kind::NotDone);
  ASSERT_EQ(futures().size(), 1u);
  const std::string failedToken = futures()[0].data;

  clock_.advance(7s);
  lro::Outcome o = reconcileNat();

  ASSERT_EQ(o.kind, Kind::Failed) << o.message;
  EXPECT_EQ(o.errorCode, "AllocationFailed");
  const std::string message =
      "operation PUT on rg-lro/nat (natgateways) failed: AllocationFailed: no capacity for the "
      "gateway";
  EXPECT_EQ(o.message, message);
  EXPECT_TRUE(futures().empty());
  expectCondition("False", "Failed", "Error", message);
  EXPECT_EQ(putsOf(kNatId), 1);

  // The failure is not resumed: the next reconcile PUTs the Failed gateway afresh.
  ASSERT_NO_FATAL_FAILURE(putFaults("{}"));
  EXPECT_EQ(provisioningStateOfNat(), "Failed");
  ASSERT_EQ(reconcileNat().kind, Kind::NotDone);
  EXPECT_EQ(putsOf(kNatId), 2);
  ASSERT_EQ(futures().size(), 1u);
  EXPECT_NE(futures()[0].data, failedToken);
  expectCondition("False", "Creating", "Info",
                  "operation PUT on rg-lro/nat (natgateways) is not done");
}

TEST_F(EngineArmEmulatorTest, DeleteParksThenEndsDeletedAndTheResourceIsGone) {
  ASSERT_EQ(reconcileNat().kind, Kind::NotDone);
  expectCondition("False", "Creating", "Info",
                  "operation PUT on rg-lro/nat (natgateways) is not done");
  clock_.advance(7s);
  ASSERT_EQ(reconcileNat().kind, Kind::Done);
  expectCondition("True", "", "", "");

  const auto began = clock_.steadyNow();
  lro::Outcome o = deleteNat();
  ASSERT_EQ(o.kind, Kind::NotDone) << o.message;
  EXPECT_EQ(since(began), 10s);
  EXPECT_EQ(o.requeueAfter, std::optional<std::chrono::milliseconds>(7s));
  ASSERT_EQ(futures().size(), 1u);
  EXPECT_EQ(futures()[0].type, "DELETE");
  EXPECT_EQ(futures()[0].name, "nat");
  expectCondition("False", "Deleting", "Info",
                  "operation DELETE on rg-lro/nat (natgateways) is not done");
  EXPECT_EQ(provisioningStateOfNat(), "Deleting");

  clock_.advance(7s);
  lro::Outcome deleted = deleteNat();
  ASSERT_EQ(deleted.kind, Kind::Done) << deleted.message;
  EXPECT_TRUE(futures().empty());
  expectCondition("False", "Deleted", "Info", "rg-lro/nat (natgateways) has been deleted");
  auto gone = client_->get(ref(kNatId, "natgateways"), kCall);
  ASSERT_FALSE(gone.has_value());
  EXPECT_EQ(gone.error().kind, lro::CallError::Kind::NotFound);
}

TEST_F(EngineArmEmulatorTest, StaleFutureCannotBlockADelete) {
  ASSERT_EQ(reconcileNat().kind, Kind::NotDone);
  clock_.advance(7s);  // the PUT ends; nobody looks
  ASSERT_NO_FATAL_FAILURE(deleteExternally());
  ASSERT_EQ(futures().size(), 1u) << "the PUT future is still parked";

  const auto began = clock_.steadyNow();
  lro::Outcome o = deleteNat();

  ASSERT_EQ(o.kind, Kind::Done) << o.message;
  EXPECT_EQ(since(began), 0s) << "one call, no window";
  EXPECT_TRUE(futures().empty());
  expectCondition("False", "Deleted", "Info", "rg-lro/nat (natgateways) has been deleted");
}

TEST_F(EngineArmEmulatorTest, StalePutFutureAfterAnExternalDeleteIsReevaluated) {
  ASSERT_EQ(reconcileNat().kind, Kind::NotDone);
  const std::string stale = futures().at(0).data;
  clock_.advance(7s);
  ASSERT_NO_FATAL_FAILURE(deleteExternally());

  // The parked operation succeeded, but its resource 404s: no endless loop (CAPZ PR 2238),
  // the gateway is created again in the same call.
  lro::Outcome o = reconcileNat();

  ASSERT_EQ(o.kind, Kind::NotDone) << o.message;
  ASSERT_EQ(futures().size(), 1u);
  EXPECT_NE(futures()[0].data, stale);
  EXPECT_EQ(putsOf(kNatId), 2);
  EXPECT_EQ(provisioningStateOfNat(), "Creating");
}

TEST_F(EngineArmEmulatorTest, GarbledFutureNeverBlocksARemove) {
  ASSERT_NO_FATAL_FAILURE(createNat());
  const std::string garbled = R"({"v":1,"verb":"DELETE","via":)";
  futures().push_back(
      controllers::capz::toFuture({lro::operationKey(nat_.resource(), Verb::Delete), garbled}));

  // Dropped, and the delete re-evaluated: a DELETE is sent and parked in its place.
  lro::Outcome o = deleteNat();
  ASSERT_EQ(o.kind, Kind::NotDone) << o.message;
  ASSERT_EQ(futures().size(), 1u);
  EXPECT_EQ(futures()[0].type, "DELETE");
  EXPECT_NE(futures()[0].data, garbled);
  EXPECT_TRUE(parsePoller(futures()[0].data).has_value()) << futures()[0].data;
  EXPECT_EQ(provisioningStateOfNat(), "Deleting");
  clock_.advance(7s);
  ASSERT_EQ(deleteNat().kind, Kind::Done);
  EXPECT_TRUE(futures().empty());

  // Of a resource already gone: Done in one call.
  futures().push_back(
      controllers::capz::toFuture({lro::operationKey(nat_.resource(), Verb::Delete), garbled}));
  const auto began = clock_.steadyNow();
  lro::Outcome gone = deleteNat();
  ASSERT_EQ(gone.kind, Kind::Done) << gone.message;
  EXPECT_EQ(since(began), 0s);
  EXPECT_TRUE(futures().empty());
}

TEST_F(EngineArmEmulatorTest, UpToDateResourceIsDoneWithoutAPut) {
  ASSERT_NO_FATAL_FAILURE(createNat());
  ASSERT_EQ(nat_.askedWithExisting(), 0);

  const auto began = clock_.steadyNow();
  lro::Outcome o = reconcileNat();

  ASSERT_EQ(o.kind, Kind::Done) << o.message;
  EXPECT_EQ(since(began), 0s);
  EXPECT_EQ(nat_.askedWithExisting(), 1) << "the spec saw the existing gateway";
  EXPECT_EQ(o.result.value("name", ""), "nat");
  EXPECT_EQ(provisioningState(o.result), "Succeeded");
  EXPECT_TRUE(futures().empty());
  expectCondition("True", "", "", "");
  EXPECT_EQ(putsOf(kNatId), 1) << "no PUT for an up-to-date resource";
}

// Records every log record's level and text.
class CapturingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::pair<spdlog::level::level_enum, std::string>> records() {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.clear();
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    records_.emplace_back(msg.level, std::string(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  std::vector<std::pair<spdlog::level::level_enum, std::string>> records_;
};

// The capturing logger lives as long as the process: the emulator's threads log through
// spdlog's raw default logger pointer and may still hold it after the previous logger is back.
struct LogCapture {
  std::shared_ptr<CapturingSink> sink = std::make_shared<CapturingSink>();
  std::shared_ptr<spdlog::logger> logger = [this] {
    auto l = std::make_shared<spdlog::logger>("lro-arm-capture", sink);
    l->set_level(spdlog::level::trace);
    return l;
  }();
};
LogCapture& logCapture() {
  static LogCapture capture;
  return capture;
}

TEST_F(EngineArmEmulatorTest, NotDoneIsNeverLoggedAtWarnOrAbove) {
  LogCapture& capture = logCapture();
  capture.sink->clear();
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(capture.logger);

  lro::Outcome parked = reconcileNat();
  const double parkedCount = notDoneCount();
  cluster_ = [&] {
    api::capz::AzureCluster reloaded;
    EXPECT_TRUE(api::decodeJson(api::toJson(cluster_), reloaded).empty());
    return reloaded;
  }();
  boot();
  clock_.advance(3s);
  lro::Outcome still = reconcileNat();
  const double stillCount = notDoneCount();
  clock_.advance(5s);
  lro::Outcome done = reconcileNat();
  spdlog::set_default_logger(previous);

  EXPECT_EQ(parked.kind, Kind::NotDone);
  EXPECT_EQ(still.kind, Kind::NotDone);
  EXPECT_EQ(done.kind, Kind::Done) << done.message;
  EXPECT_EQ(parkedCount, 1) << "counted in a metric instead";
  EXPECT_EQ(stillCount, 1) << "by the restarted process's engine";
  int notDoneLines = 0;
  for (const auto& [level, text] : capture.sink->records()) {
    EXPECT_LT(level, spdlog::level::warn) << text;
    if (text.starts_with("lro: not done")) {
      EXPECT_EQ(level, spdlog::level::debug) << text;
      ++notDoneLines;
    }
  }
  EXPECT_EQ(notDoneLines, 2);
}

}  // namespace
}  // namespace nodewright::cloud::azure::enginetest
