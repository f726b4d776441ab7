#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "emulators/arm/identity.h"
#include "emulators/arm/model.h"
#include "emulators/arm/rate_limits.h"
#include "emulators/arm/skus.h"
#include "emulators/arm/types.h"
#include "emulators/engine/engine.h"
#include "http/server.h"

// `nodewright emulate azure`: Azure Resource Manager and the Entra token endpoints on the
// simulated-cloud engine. Every ARM request needs an api-version and a bearer token the emulator
// issued; answers carry x-ms-request-id, x-ms-correlation-request-id and the remaining requests
// of ARM's throttling buckets. Faults come from the engine's configuration, keyed by ARM action
// ("VirtualMachines_CreateOrUpdate"): a rule with an HTTP status refuses the request at once; a
// rule without one lets a write start and its operation end Failed with the rule's code.
namespace nodewright::emulators::arm {

struct ArmEmulatorOptions {
  EngineOptions engine;
  std::map<std::string, Latency, std::less<>> latencies = defaultLatencies();
  // ../shared/data/azure-vm-sizes.json or alike; empty: a built-in handful of sizes.
  std::string vmSizesFile;
  // Client id -> secret; empty: any secret accepted.
  std::map<std::string, std::string, std::less<>> clientSecrets;
  std::string tenantId = "00000000-0000-0000-0000-000000000001";
  // Client assertions are accepted only with a key registered for the client (identity.h).
  std::map<std::string, std::vector<FederatedCredential>, std::less<>> federatedCredentials;
  std::map<std::string, std::string, std::less<>> clientCertificates;
  std::string managedIdentityClientId = "00000000-0000-0000-0000-0000000000aa";
  // Where the SKU list offers every size.
  std::vector<std::string> skuLocations = {"eastus", "westus2", "westeurope"};
  size_t maxBodyBytes = 4 * 1024 * 1024;
  // Finished operations kept readable (for a day of emulated time), oldest forgotten first.
  size_t maxRetainedOperations = 10000;
  // Where the emulator keeps its state across restarts (state.h); empty: in memory only. An
  // existing file is restored at start (a file that cannot be used fails the start and is left
  // as it is); the server saves it about a second after changes and once more on stop().
  std::string stateFile{};
};

// Thread-safe: the HTTP server calls serve() from one thread per connection.
class ArmEmulator {
 public:
  static core::Result<std::unique_ptr<ArmEmulator>> create(const core::Clock& clock,
                                                           ArmEmulatorOptions options);

  http::Response serve(const http::Request& request);
  http::Response tooLarge(size_t limit) const;
  // The origin of async-operation URLs when a request names no Host.
  void setBaseUrl(std::string url);

  Engine& engine() { return engine_; }
  ArmModel& model() { return model_; }
  const Identity& identity() const { return identity_; }
  const SkuCatalog& skus() const { return skus_; }
  const ArmEmulatorOptions& options() const { return options_; }
  // PUT requests that named the resource (any casing), whatever their outcome. Kept while the
  // resource exists and for the operation retention after it is gone.
  uint64_t puts(std::string_view resourceId) const;
  // The engine's stats plus {"puts": {lower-case id: n}}.
  api::Json stats();

  // The document a state file holds (state.h), as of now.
  core::Result<api::Json> saveState();
  // Replaces the model's state with a saved one and continues emulated time from when it was
  // saved; Invalid, the emulator unchanged, when malformed. Call before serving.
  core::Status restoreState(const api::Json& state);
  // Moves whenever saveState() would give a different document (not as time alone passes).
  uint64_t stateGeneration() { return engine_.store().generation(); }

 private:
  ArmEmulator(const core::Clock& clock, ArmEmulatorOptions options, SkuCatalog skus);

  // An ARM request under /subscriptions; `action` is set for the stats.
  Reply serveArm(const http::Request& request, std::string& action);
  Reply route(const http::Request& request, const std::vector<std::string>& segs,
              RequestContext& ctx, std::string& action);

  ArmEmulatorOptions options_;
  Engine engine_;
  SkuCatalog skus_;
  Identity identity_;
  ArmRateLimits rateLimits_;
  ArmModel model_;
  // The origin of the async-operation URLs when a request names no Host.
  std::string baseUrl() const;
  std::string originOf(const http::Request& request) const;

  mutable std::mutex baseUrlMu_;
  std::string baseUrl_;  // GUARDED_BY(baseUrlMu_)
  struct PutCount {
    uint64_t n = 0;
    std::optional<core::TimePoint> goneSince;  // when a prune first found the resource gone
  };
  // Forgets the counts of resources gone for longer than the operation retention.
  void prunePutsLocked();

  mutable std::mutex putsMu_;
  std::map<std::string, PutCount, std::less<>> puts_;  // GUARDED_BY(putsMu_)
  size_t prunePutsAt_;                                 // GUARDED_BY(putsMu_)
};

}  // namespace nodewright::emulators::arm
