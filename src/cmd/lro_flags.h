#pragma once

#include <string>

#include "core/error.h"
#include "lro/engine.h"

namespace CLI {
class App;
}  // namespace CLI

// The futures engine's timeouts as flags (seed 004, "Context timeouts"), in Go duration syntax
// as CAPZ's flags take them: the call window before an operation is parked, each service's and
// each reconcile's budget, the requeue when the cloud sends no Retry-After, and the bounds of the
// adaptive call timeout.
namespace nodewright::cmd {

struct LroFlags {
  std::string callTimeout = "2s";
  std::string serviceTimeout = "12s";
  std::string reconcileTimeout = "2m";
  std::string requeueAfter = "15s";
  bool adaptive = true;
  std::string adaptiveMin = "500ms";
  std::string adaptiveMax = "10s";
};

// Registers --azure-call-timeout, --azure-service-timeout, --azure-reconcile-timeout,
// --azure-requeue-after, --azure-adaptive-timeouts and --azure-adaptive-timeout-min/-max on
// `sub`; `flags` must outlive the parse.
void addLroFlags(CLI::App& sub, LroFlags& flags);

// The engine options, or Invalid naming the flag: every duration positive, the call within the
// service and the service within the reconcile, min <= max.
core::Result<lro::EngineOptions> lroOptions(const LroFlags& flags);

}  // namespace nodewright::cmd
