#pragma once

#include <memory>

#include "api/karpenter/hashing.h"
#include "controllers/nodeclass/hash_controller.h"
#include "runtime/manager.h"

// Wires the cloud-neutral EC2NodeClass controllers (hash) into a Manager; the provider's own
// node class controller (status, finalizer) is wired by the provider.
namespace nodewright::controllers::nodeclass {

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

 private:
  HashController hash_;
};

// Registers nodeclass.hash with `manager` (before manager.run()).
[[nodiscard]] std::unique_ptr<Controllers> setup(runtime::Manager& manager, Options options = {});

}  // namespace nodewright::controllers::nodeclass
