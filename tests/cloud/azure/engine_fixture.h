#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/capz/azure_cluster.h"
#include "api/capz/conditions.h"
#include "cloud/azure/arm_fixture.h"
#include "controllers/capz/conditions.h"
#include "controllers/capz/futures.h"
#include "lro/engine.h"
#include "runtime/metrics.h"

// The futures engine over our ARM client against the ARM emulator (real HTTPS on loopback), all
// on one FakeClock: the emulator's operation latencies run on it, and so does the engine's call
// window, through a view of the clock whose waits jump to their deadline. A window thus costs
// no real time, and every poll's answer is known from the latencies set here.
namespace nodewright::lro {
// Outcome kinds by name in assertion failures.
inline void PrintTo(Outcome::Kind kind, std::ostream* out) {
  *out << outcomeKindName(kind);
}
}  // namespace nodewright::lro

namespace nodewright::cloud::azure::enginetest {

using namespace armtest;
using emulators::Latency;

// The FakeClock, except that a wait advances it to its deadline (what tests/lro call an
// auto-advancing clock): the engine's poll intervals and the client's retry waits pass at once.
class JumpingClock final : public core::Clock {
 public:
  explicit JumpingClock(core::FakeClock& fake) : fake_(fake) {}
  core::TimePoint now() const override { return fake_.now(); }
  std::chrono::steady_clock::time_point steadyNow() const override { return fake_.steadyNow(); }
  void waitUntil(std::unique_lock<std::mutex>&, std::condition_variable&,
                 std::chrono::steady_clock::time_point deadline) const override {
    const auto now = fake_.steadyNow();
    if (deadline > now) {
      fake_.advance(std::chrono::duration_cast<std::chrono::microseconds>(deadline - now));
    }
  }

 private:
  core::FakeClock& fake_;
};

// A NAT gateway as CAPZ's natgateways service wants it. Up to date when one has been
// provisioned with the same SKU and location: nothing is sent then (a Failed one is PUT again).
class NatGatewaySpec final : public lro::ResourceSpec {
 public:
  lro::ResourceRef resource() const override { return ref(kNatId, "natgateways"); }
  core::Result<std::optional<api::Json>> parameters(const api::Json& existing) const override {
    std::lock_guard<std::mutex> lock(mu_);
    ++asked_;
    if (!existing.is_null()) {
      ++askedWithExisting_;
      const api::Json sku = existing.value("sku", api::Json::object());
      const api::Json properties = existing.value("properties", api::Json::object());
      if (existing.value("location", "") == "eastus" && sku.value("name", "") == "Standard" &&
          properties.value("provisioningState", "") == "Succeeded") {
        return std::optional<api::Json>();
      }
    }
    return std::optional<api::Json>(body());
  }
  static api::Json body() { return {{"location", "eastus"}, {"sku", {{"name", "Standard"}}}}; }

  int asked() const {
    std::lock_guard<std::mutex> lock(mu_);
    return asked_;
  }
  int askedWithExisting() const {
    std::lock_guard<std::mutex> lock(mu_);
    return askedWithExisting_;
  }

 private:
  mutable std::mutex mu_;
  mutable int asked_ = 0;              // GUARDED_BY(mu_)
  mutable int askedWithExisting_ = 0;  // GUARDED_BY(mu_)
};

class EngineEmulatorFixture : public ArmEmulatorFixture {
 protected:
  // The NAT gateway's operations take this long; below ARM's 10 s Retry-After cap once the
  // window has polled once, so the parked requeue is the emulator's live Retry-After (7 s).
  static constexpr auto kNatLatency = 17s;
  // Must hold one of ARM's Retry-Afters (at most 10 s) for the engine to poll within it.
  static constexpr auto kWindow = 12s;

  void SetUp() override {
    ArmEmulatorOptions options;
    options.latencies["arm:NatGateways_CreateOrUpdate"] = Latency::fixed(kNatLatency);
    options.latencies["arm:NatGateways_Delete"] = Latency::fixed(kNatLatency);
    start(std::move(options));
    ASSERT_NO_FATAL_FAILURE(createResourceGroup());
    cluster_.apiVersion = "infrastructure.cluster.x-k8s.io/v1beta1";
    cluster_.kind = "AzureCluster";
    cluster_.metadata.name = "lro";
    cluster_.metadata.namespace_ = "default";
    boot();
  }

  // A new process: its own connection pool, credential (no cached token), client and engine.
  // Only the cloud and what the caller persisted survive.
  void boot() {
    engine_.reset();
    arm_.reset();
    engineCredential_.reset();
    engineTransport_.reset();
    CurlTransportOptions transportOptions;
    transportOptions.caPem = server_->caPem();
    engineTransport_ = makeCurlTransport(transportOptions);
    engineCredential_ = cached(std::make_unique<ClientSecretCredential>(
                                   entra(kClientId), kSecret, *engineTransport_, jumping_),
                               jumping_);
    ArmClientOptions armOptions;
    armOptions.endpoint = server_->url();
    arm_ = std::make_unique<ArmClient>(armOptions, *engineTransport_, *engineCredential_, jumping_);
    metrics_ = std::make_unique<runtime::Registry>();
    lro::EngineOptions options;
    options.adaptive.enabled = false;  // the window is exactly kWindow
    options.timeouts.call = kWindow;
    engine_ = std::make_unique<lro::Engine>(*arm_, jumping_, options, metrics_.get());
  }

  // The cluster's status.longRunningOperationStates: the engine's records as CAPZ stores them.
  api::capz::Futures& futures() { return cluster_.status.longRunningOperationStates; }
  std::vector<api::capi::CapiCondition>& conditions() { return cluster_.status.conditions; }

  // One reconcile of the NAT gateway, its condition set as CAPZ's natgateways service does.
  lro::Outcome reconcileNat() {
    lro::Outcome o = controllers::capz::withRecords(
        futures(), [&](lro::OperationRecords& r) { return engine_->createOrUpdate(nat_, r); });
    controllers::capz::updatePutStatus(conditions(), api::capz::kNATGatewaysReadyCondition,
                                       nat_.resource(), o, core::Time(clock_.now()));
    return o;
  }
  lro::Outcome deleteNat() {
    lro::Outcome o = controllers::capz::withRecords(
        futures(), [&](lro::OperationRecords& r) { return engine_->remove(nat_, r); });
    controllers::capz::updateDeleteStatus(conditions(), api::capz::kNATGatewaysReadyCondition,
                                          nat_.resource(), o, core::Time(clock_.now()));
    return o;
  }
  // Creates the gateway through the engine: parked, then resumed once it is due.
  void createNat() {
    ASSERT_EQ(reconcileNat().kind, lro::Outcome::Kind::NotDone);
    clock_.advance(kNatLatency);
    lro::Outcome done = reconcileNat();
    ASSERT_EQ(done.kind, lro::Outcome::Kind::Done) << done.message;
    ASSERT_TRUE(futures().empty());
  }

  const api::capi::CapiCondition* natCondition() {
    for (const auto& c : conditions()) {
      if (c.type == api::capz::kNATGatewaysReadyCondition) {
        return &c;
      }
    }
    return nullptr;
  }

  std::chrono::steady_clock::duration since(std::chrono::steady_clock::time_point t) const {
    return clock_.steadyNow() - t;
  }

  JumpingClock jumping_{clock_};
  // The engine's "process"; the fixture's client_ is another one, sharing only the cloud.
  TransportPtr engineTransport_;
  TokenCredentialPtr engineCredential_;
  std::unique_ptr<runtime::Registry> metrics_;
  std::unique_ptr<ArmClient> arm_;
  std::unique_ptr<lro::Engine> engine_;
  NatGatewaySpec nat_;
  api::capz::AzureCluster cluster_;
};

}  // namespace nodewright::cloud::azure::enginetest
