#pragma once

#include <cstdint>
#include <string>

#include "api/meta.h"
#include "api/reflect/schema.h"

// core/v1 Event, as controllers record them (kubectl describe shows these).
namespace nodewright::api::corev1 {

inline constexpr const char* kEventTypeNormal = "Normal";
inline constexpr const char* kEventTypeWarning = "Warning";

struct EventSource {
  std::string component;
  std::string host;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<EventSource>);

struct Event {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  ObjectReference involvedObject;
  std::string reason;
  std::string message;
  EventSource source;
  core::Time firstTimestamp;
  core::Time lastTimestamp;
  int32_t count = 0;
  std::string type;  // Normal or Warning
  std::string action;
  std::string reportingComponent;
  std::string reportingInstance;
  Json unknown;  // eventTime (MicroTime, kept verbatim), series, related
};
const reflect::StructSchema& describe(reflect::Tag<Event>);

}  // namespace nodewright::api::corev1
