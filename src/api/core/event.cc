#include "api/core/event.h"

#include "api/core/validation.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

bool hasEventTime(const Event& e) {
  if (!e.unknown.is_object()) {
    return false;
  }
  auto it = e.unknown.find("eventTime");
  return it != e.unknown.end() && !it->is_null();
}

void validateEvent(const Event& e, const FieldPath& path, FieldErrors& errors) {
  checkOptionalEnum(e.type, {kEventTypeNormal, kEventTypeWarning}, path.child("type"), errors);
  // Legacy events (no eventTime) live in their object's namespace; "default" is accepted for
  // cluster-scoped objects, as old clients wrote them there.
  const std::string& ns = e.metadata.namespace_;
  if (hasEventTime(e) || ns.empty()) {
    return;
  }
  const std::string& objectNs = e.involvedObject.namespace_;
  bool mismatch = objectNs.empty() ? ns != "default" : ns != objectNs;
  if (mismatch) {
    errors.push_back({path.child("involvedObject").child("namespace").str(),
                      invalidText(objectNs, "does not match event.namespace")});
  }
}

}  // namespace

const StructSchema& describe(Tag<EventSource>) {
  static const StructSchema s =
      StructBuilder<EventSource>("EventSource", "Who reported an event.")
          .field<&EventSource::component>("component", "The component reporting the event.")
          .field<&EventSource::host>("host", "The node the event was generated on.")
          .keepUnknownIn<&EventSource::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<Event>) {
  static const StructSchema s = [] {
    StructBuilder<Event> b("Event", "A report of something that happened to an object.");
    withTypeMeta(b);
    return b.field<&Event::involvedObject>("involvedObject", "The object this event is about.")
        .field<&Event::reason>("reason", "Short, machine-understandable reason, in CamelCase.")
        .field<&Event::message>("message", "Human-readable description.")
        .field<&Event::source>("source", "The component reporting the event.")
        .field<&Event::firstTimestamp>("firstTimestamp", "When the event was first recorded.")
        .field<&Event::lastTimestamp>("lastTimestamp", "When it most recently occurred.")
        .field<&Event::count>("count", "How many times it has occurred.")
        .min(0)
        .field<&Event::type>("type", "Normal or Warning.")
        .field<&Event::action>("action", "What was done, or failed, about the object.")
        .field<&Event::reportingComponent>("reportingComponent",
                                           "The controller that emitted the event.")
        .field<&Event::reportingInstance>("reportingInstance",
                                          "The instance of the controller, e.g. a pod name.")
        .keepUnknownIn<&Event::unknown>()
        .validate(validateEvent)
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::corev1
