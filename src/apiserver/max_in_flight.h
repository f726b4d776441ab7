#pragma once

#include <cstddef>
#include <memory>

#include "http/server.h"

// kube-apiserver's max-in-flight filter: at most N mutating and M read-only requests are served
// at once; one more is answered 429 with Retry-After at once rather than queued, so a flood of
// requests costs the server no more than the limits. Long-running requests (watches) are not
// counted: how long they last is the client's choice. Runs after authentication, as in kube.
namespace nodewright::apiserver {

struct InFlightLimits {
  // kube-apiserver's --max-mutating-requests-inflight and --max-requests-inflight defaults;
  // 0: no limit.
  size_t maxMutating = 400;
  size_t maxReadOnly = 200;
};

// Whether kube-apiserver treats the request as long-running: the watch and proxy verbs and the
// attach, exec, log, portforward and proxy subresources.
bool isLongRunning(const http::Request& request);

// Thread-safe. A slot outlives this object if a request still holds it.
class MaxInFlight {
 public:
  explicit MaxInFlight(InFlightLimits limits);

  // A slot for `head` (method, path, query), held until the returned Admission's hold is
  // released; or a 429 Status refusal when its kind is at its limit.
  http::Admission admit(const http::Request& head);

  // Requests holding a slot now (for tests and metrics).
  size_t mutating() const;
  size_t readOnly() const;

 private:
  struct Counters;
  std::shared_ptr<Counters> counters_;
  InFlightLimits limits_;
};

}  // namespace nodewright::apiserver
