#pragma once

#include <memory>

#include "api/karpenter/hashing.h"
#include "controllers/nodepool/counter_controller.h"
#include "controllers/nodepool/hash_controller.h"
#include "controllers/nodepool/validation_controller.h"
#include "runtime/manager.h"

// Wires the NodePool controllers (hash, counter, validation) into a Manager.
namespace nodewright::controllers::nodepool {

struct Options {
  // How drift hashes are computed; a test passes another version (and salt) to stand in for
  // an upgrade.
  api::karpenter::HashPolicy hashPolicy = api::karpenter::defaultHashPolicy();
};

// Owns the reconcilers the manager runs; keep it alive until manager.run() has returned.
class Controllers {
 public:
  Controllers(runtime::Manager& manager, Options options);
  Controllers(const Controllers&) = delete;
  Controllers& operator=(const Controllers&) = delete;

  HashController& hash() { return hash_; }
  CounterController& counter() { return counter_; }
  ValidationController& validation() { return validation_; }

 private:
  HashController hash_;
  CounterController counter_;
  ValidationController validation_;
};

// Registers nodepool.hash, nodepool.counter and nodepool.validation with `manager` (before
// manager.run()).
[[nodiscard]] std::unique_ptr<Controllers> setup(runtime::Manager& manager, Options options = {});

}  // namespace nodewright::controllers::nodepool
