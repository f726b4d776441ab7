#pragma once

#include <optional>
#include <string_view>

#include "http/server.h"

namespace nodewright::emulators {

class Faults;
class ResourceStore;
class Stats;

// The emulator's admin endpoints, for tests and demos to steer and inspect it:
//   GET /admin/stats          requests, creates per client token, live resources (Stats)
//   GET /admin/faults         the fault configuration, with remaining launches as they are now
//   PUT|POST /admin/faults    replaces it with the JSON body, all at once; on bad input 400
//                             naming the field paths, and the old configuration stays
// Mounted in front of the cloud's own handler. Thread-safe; Faults, Stats and the store must
// outlive it.
class AdminApi {
 public:
  AdminApi(Faults& faults, Stats& stats, ResourceStore& store);

  // True for /admin and /admin/*: the paths serve() answers. A front end that authenticates
  // its callers checks this first, so no admin request runs unauthenticated.
  static bool handles(std::string_view path);

  // Answers /admin and /admin/* and returns true; false for any other path, untouched.
  bool handle(const http::Request& request, http::Exchange& exchange);
  // The response for an /admin path; nullopt for any other.
  std::optional<http::Response> serve(const http::Request& request);

 private:
  http::Response putFaults(const http::Request& request);

  Faults& faults_;
  Stats& stats_;
  ResourceStore& store_;
};

}  // namespace nodewright::emulators
