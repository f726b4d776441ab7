#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"

namespace nodewright::emulators {

class ResourceStore;

// Counters that let tests prove what the emulator did through GET /admin/stats: requests per
// action and error code, and creating requests per client token, so a retried request that
// created twice (or a resource left behind) shows. Thread-safe.
class Stats {
 public:
  // One request of `action`; `errorCode` empty when it succeeded.
  void recordRequest(std::string_view action, std::string_view errorCode = {});
  // One request that created something (a fleet, a reservation of instances) under
  // `clientToken`; an idempotent replay that returned the earlier result is not recorded.
  // Empty tokens are counted together.
  void recordCreate(std::string_view clientToken);

  uint64_t requests(std::string_view action) const;
  uint64_t errors(std::string_view action, std::string_view errorCode) const;
  uint64_t creates(std::string_view clientToken) const;
  // Non-empty tokens with more than one create.
  std::vector<std::string> duplicateTokens() const;

  // {"requests": {action: {"count", "errors": {code: n}}}, "createsByClientToken": {token: n},
  //  "duplicateClientTokens": [...], "live": {type: n}, "retained": {type: n}}
  api::Json toJson(ResourceStore& store) const;

 private:
  struct ActionCounts {
    uint64_t count = 0;
    std::map<std::string, uint64_t, std::less<>> errors;
  };

  mutable std::mutex mu_;
  std::map<std::string, ActionCounts, std::less<>> actions_;  // GUARDED_BY(mu_)
  std::map<std::string, uint64_t, std::less<>> creates_;      // GUARDED_BY(mu_)
};

}  // namespace nodewright::emulators
