#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cloud/azure/engine_fixture.h"
#include "cloud/azure/transport.h"
#include "controllers/capz/service.h"
#include "emulators/arm/types.h"

// CAPZ services against the ARM emulator over HTTPS: an ArmClient and a futures engine on a
// jumping view of the emulator's FakeClock (engine_fixture.h), so poll windows cost no real
// time, and fixed operation latencies, so which operations finish within a window is known.
namespace nodewright::controllers::capz::testing {

using namespace std::chrono_literals;
using cloud::azure::enginetest::JumpingClock;
using emulators::Latency;
using Kind = lro::Outcome::Kind;

// Latencies by type group ("NetworkSecurityGroups"): {PUT, DELETE}.
using LatencyTable = std::map<std::string, std::pair<std::chrono::seconds, std::chrono::seconds>>;

// The medians of the emulator's default latencies, fixed.
inline LatencyTable medianLatencies() {
  return {{"ResourceGroups", {0s, 15s}},  {"VirtualNetworks", {4s, 6s}},
          {"Subnets", {3s, 4s}},          {"NetworkSecurityGroups", {2s, 3s}},
          {"RouteTables", {2s, 3s}},      {"PublicIPAddresses", {3s, 5s}},
          {"NatGateways", {20s, 20s}},    {"LoadBalancers", {3s, 5s}},
          {"PrivateZones", {30s, 30s}},   {"VirtualNetworkLinks", {30s, 30s}},
          {"BastionHosts", {300s, 180s}}, {"NetworkInterfaces", {2s, 3s}}};
}

// Counts what the ArmClient sends. Token requests go through the credential's own transport,
// so the count is of ARM requests only.
class CountingTransport final : public cloud::azure::Transport {
 public:
  explicit CountingTransport(cloud::azure::Transport& inner) : inner_(inner) {}

  // cloud::azure::Transport
  cloud::azure::TransportResult<cloud::azure::HttpResponse> send(
      const cloud::azure::HttpRequest& request, std::chrono::milliseconds timeout) override {
    sent_.fetch_add(1);
    return inner_.send(request, timeout);
  }

  size_t sent() const { return sent_.load(); }

 private:
  cloud::azure::Transport& inner_;
  std::atomic<size_t> sent_{0};
};

class CapzEmulatorFixture : public cloud::azure::armtest::ArmEmulatorFixture {
 protected:
  // The engine's window: operations up to ~20 s end within it, longer ones are parked.
  static constexpr auto kWindow = 30s;

  void SetUp() override {}

  // Starts the emulator with `latencies` (every other operation: 1 s) and boots the engine
  // with a call window of `window`.
  void startEmulator(const LatencyTable& latencies, std::chrono::milliseconds window = kWindow) {
    cloud::azure::armtest::ArmEmulatorOptions options;
    for (auto& [op, latency] : options.latencies) {
      latency = Latency::fixed(1s);
    }
    for (const auto& [group, pair] : latencies) {
      options.latencies["arm:" + group + "_CreateOrUpdate"] = Latency::fixed(pair.first);
      options.latencies["arm:" + group + "_Delete"] = Latency::fixed(pair.second);
    }
    start(std::move(options));
    cloud::azure::ArmClientOptions armOptions;
    armOptions.endpoint = server_->url();
    armTransport_ = std::make_unique<CountingTransport>(*transport_);
    arm_ = std::make_unique<cloud::azure::ArmClient>(armOptions, *armTransport_, *credential_,
                                                     jumping_);
    lro::EngineOptions engineOptions;
    engineOptions.adaptive.enabled = false;  // the window is exactly `window`
    engineOptions.timeouts.call = window;
    engineOptions.timeouts.service = std::max<std::chrono::milliseconds>(2 * window, 12s);
    engineOptions.timeouts.reconcile = std::chrono::minutes(10);
    engine_ = std::make_unique<lro::Engine>(*arm_, jumping_, engineOptions);
  }

  // PUT /admin/faults over HTTPS (the admin API takes no token).
  void putFaults(const std::string& json) {
    cloud::azure::HttpRequest request;
    request.method = "PUT";
    request.url = server_->url() + "/admin/faults";
    request.headers = {{"Content-Type", "application/json"}};
    request.body = json;
    auto response = transport_->send(request, cloud::azure::armtest::kCall);
    ASSERT_TRUE(response.has_value()) << response.error().message;
    ASSERT_EQ(response->status, 200) << response->body;
  }

  // Requests the services' ArmClient (arm_) has sent to the emulator.
  size_t armRequests() const { return armTransport_->sent(); }

  // Resources the emulator holds that are not deleted, resource groups included.
  size_t liveResources() {
    size_t n = 0;
    for (const auto& [type, count] : server_->emulator().engine().store().liveCounts()) {
      n += count;
    }
    return n;
  }

  bool exists(const std::string& id) {
    lro::ResourceRef ref;
    ref.id = id;
    auto got = client_->get(ref, cloud::azure::armtest::kCall);
    return got.has_value();
  }

  // Runs passes until every service is Done or one fails, advancing the clock by each pass's
  // requeue in between. Returns the passes.
  std::vector<Pass> runToEnd(ServiceRunner& runner, const std::vector<Service>& services,
                             api::capz::Futures& futures,
                             std::vector<api::capi::CapiCondition>& conditions, bool deleting,
                             int maxPasses = 100) {
    std::vector<Pass> passes;
    for (int i = 0; i < maxPasses; ++i) {
      passes.push_back(deleting ? runner.remove(services, futures, conditions)
                                : runner.reconcile(services, futures, conditions));
      const Pass& pass = passes.back();
      if (pass.done || pass.failed) {
        break;
      }
      clock_.advance(pass.requeueAfter.value_or(15s));
    }
    return passes;
  }

  static std::vector<std::string> namesOf(const Pass& pass) {
    std::vector<std::string> out;
    for (const auto& [name, outcome] : pass.outcomes) {
      out.push_back(name);
    }
    return out;
  }

  static std::optional<Kind> kindOf(const Pass& pass, const std::string& service) {
    for (const auto& [name, outcome] : pass.outcomes) {
      if (name == service) {
        return outcome.kind;
      }
    }
    return std::nullopt;
  }

  static const api::capi::CapiCondition* find(
      const std::vector<api::capi::CapiCondition>& conditions, const std::string& type) {
    for (const auto& c : conditions) {
      if (c.type == type) {
        return &c;
      }
    }
    return nullptr;
  }

  JumpingClock jumping_{clock_};
  std::unique_ptr<CountingTransport> armTransport_;
  std::unique_ptr<cloud::azure::ArmClient> arm_;
  std::unique_ptr<lro::Engine> engine_;
};

}  // namespace nodewright::controllers::capz::testing
