#pragma once

#include <chrono>
#include <string>

#include "lro/operation.h"
#include "runtime/metrics.h"

// The futures engine's metrics, labelled by service and verb. A null registry makes every
// method a no-op.
namespace nodewright::lro {

class EngineMetrics {
 public:
  explicit EngineMetrics(runtime::Registry* registry);

  void notDone(const std::string& service, Verb verb);
  void stored(const std::string& service, Verb verb);
  void resumed(const std::string& service, Verb verb);
  // A parked operation that could not be resumed (`reason`: "stale"), whose poll was refused
  // ("refused") or that no longer matters ("superseded": a PUT or PATCH of a resource being
  // deleted).
  void dropped(const std::string& service, Verb verb, const char* reason);
  // An operation that finished within the call that began it.
  void duration(const std::string& service, Verb verb, std::chrono::microseconds elapsed);

 private:
  runtime::Family<runtime::Counter>* notDone_ = nullptr;
  runtime::Family<runtime::Counter>* stored_ = nullptr;
  runtime::Family<runtime::Counter>* resumed_ = nullptr;
  runtime::Family<runtime::Counter>* dropped_ = nullptr;
  runtime::Family<runtime::Histogram>* duration_ = nullptr;
};

}  // namespace nodewright::lro
