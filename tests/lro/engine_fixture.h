#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lro/engine.h"
#include "lro/fake_operations.h"
#include "runtime/metrics.h"

namespace nodewright::lro::testing {

using namespace std::chrono_literals;

inline ResourceRef vnetRef(const std::string& name = "vnet-1") {
  ResourceRef ref;
  ref.id =
      "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/" + name;
  ref.resourceGroup = "rg";
  ref.serviceName = "virtualnetworks";
  ref.name = name;
  return ref;
}

inline api::Json vnetBody() {
  return api::Json{{"location", "westeurope"},
                   {"properties", {{"addressSpace", {{"addressPrefixes", {"10.0.0.0/16"}}}}}}};
}

// Engine over the fake cloud on simulated time. Adaptive timeouts are off unless a test turns
// them on, so the window is exactly Timeouts::call (2 s) and polls land every 500 ms.
class EngineTest : public ::testing::Test {
 protected:
  EngineTest() { restart(); }

  EngineOptions defaults() const {
    EngineOptions o;
    o.adaptive.enabled = false;
    return o;
  }
  // A new engine (and metrics), as after a process restart; the cloud and futures stay.
  void restart(std::optional<EngineOptions> options = std::nullopt) {
    engine_.reset();
    metrics_ = std::make_unique<runtime::Registry>();
    engine_ =
        std::make_unique<Engine>(cloud_, clock_, options.value_or(defaults()), metrics_.get());
  }
  Engine& engine() { return *engine_; }

  double counter(const std::string& name, const std::vector<std::string>& labels) {
    std::vector<std::string> names = {"service", "verb"};
    if (labels.size() == 3) {
      names.push_back("reason");
    }
    return metrics_->counter(name, "", names).with(labels).value();
  }
  std::chrono::steady_clock::duration elapsedSince(std::chrono::steady_clock::time_point t) {
    return clock_.steadyNow() - t;
  }

  core::FakeClock fake_;
  AutoAdvanceClock clock_{fake_};
  FakeOperations cloud_{clock_};
  std::unique_ptr<runtime::Registry> metrics_;
  std::unique_ptr<Engine> engine_;
  ResourceRef ref_ = vnetRef();
  TestSpec spec_{ref_, vnetBody()};
  OperationRecords parked_;
};

}  // namespace nodewright::lro::testing
