#include "cloud/aws/interruption/event_parser.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <nlohmann/json.hpp>

namespace nodewright::cloud::aws {
namespace {

using cloud::InterruptionKind;
using cloud::InterruptionNotice;
using nlohmann::json;

constexpr std::string_view kEc2 = "aws.ec2";
constexpr std::string_view kHealth = "aws.health";

// How one event type's detail turns into the notice; false when a field is missing or mistyped.
using DetailReader = bool (*)(const json& detail, InterruptionNotice& notice);

struct EventType {
  std::string_view source;
  std::string_view detailType;
  DetailReader read;
};

InterruptionNotice malformed(std::string why) {
  InterruptionNotice notice;
  notice.malformed = std::move(why);
  return notice;
}

const std::string* stringAt(const json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

bool readInstance(const json& detail, InterruptionNotice& notice) {
  const std::string* id = stringAt(detail, "instance-id");
  if (id == nullptr || id->empty()) {
    return false;
  }
  notice.machineIds = {*id};
  return true;
}

bool readSpot(const json& detail, InterruptionNotice& notice) {
  notice.kind = InterruptionKind::SpotInterrupted;
  return readInstance(detail, notice);
}

bool readRebalance(const json& detail, InterruptionNotice& notice) {
  notice.kind = InterruptionKind::RebalanceRecommendation;
  return readInstance(detail, notice);
}

bool readCapacityReservation(const json& detail, InterruptionNotice& notice) {
  notice.kind = InterruptionKind::CapacityReservationInterrupted;
  return readInstance(detail, notice);
}

bool readStateChange(const json& detail, InterruptionNotice& notice) {
  const std::string* state = stringAt(detail, "state");
  if (state == nullptr) {
    return false;
  }
  std::string lower = *state;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "stopping" || lower == "stopped") {
    notice.kind = InterruptionKind::InstanceStopped;
  } else if (lower == "shutting-down" || lower == "terminated") {
    notice.kind = InterruptionKind::InstanceTerminated;
  } else {
    // pending, running: nothing is being taken away.
    notice.kind = InterruptionKind::NoOp;
    return true;
  }
  return readInstance(detail, notice);
}

bool readHealth(const json& detail, InterruptionNotice& notice) {
  const std::string* service = stringAt(detail, "service");
  const std::string* category = stringAt(detail, "eventTypeCategory");
  if (service == nullptr || category == nullptr) {
    return false;
  }
  if (*service != "EC2" || *category != "scheduledChange") {
    notice.kind = InterruptionKind::NoOp;  // issues and notices of other services
    return true;
  }
  auto entities = detail.find("affectedEntities");
  if (entities == detail.end() || !entities->is_array()) {
    return false;
  }
  notice.kind = InterruptionKind::ScheduledChange;
  for (const json& entity : *entities) {
    const std::string* value = entity.is_object() ? stringAt(entity, "entityValue") : nullptr;
    if (value == nullptr) {
      return false;
    }
    notice.machineIds.push_back(*value);
  }
  return true;
}

constexpr EventType kEventTypes[] = {
    {kEc2, "EC2 Spot Instance Interruption Warning", readSpot},
    {kEc2, "EC2 Instance Rebalance Recommendation", readRebalance},
    {kEc2, "EC2 Instance State-change Notification", readStateChange},
    {kHealth, "AWS Health Event", readHealth},
    {kEc2, "EC2 Capacity Reservation Instance Interruption Warning", readCapacityReservation},
};

}  // namespace

InterruptionNotice parseInterruptionEvent(std::string_view body) {
  if (body.empty()) {
    return InterruptionNotice{};
  }
  const json event = json::parse(body, nullptr, false);
  if (event.is_discarded() || !event.is_object()) {
    return malformed("the body is not a JSON object");
  }
  // The envelope's fields, mistyped ones being as unreadable as a broken body.
  const char* envelope[] = {"version", "source", "detail-type", "time"};
  for (const char* field : envelope) {
    if (event.contains(field) && !event[field].is_string()) {
      return malformed(std::string(field) + " is not a string");
    }
  }
  InterruptionNotice notice;
  if (const std::string* time = stringAt(event, "time")) {
    auto parsed = core::Time::parse(*time);
    if (!parsed) {
      return malformed("time is not an RFC 3339 time");
    }
    notice.raisedAt = parsed->point();
  }
  const std::string* version = stringAt(event, "version");
  const std::string* source = stringAt(event, "source");
  const std::string* detailType = stringAt(event, "detail-type");
  if (version == nullptr || source == nullptr || detailType == nullptr || *version != "0") {
    return notice;  // not an event of a type we handle
  }
  for (const EventType& type : kEventTypes) {
    if (type.source != *source || type.detailType != *detailType) {
      continue;
    }
    auto detail = event.find("detail");
    if (detail == event.end() || !detail->is_object() || !type.read(*detail, notice)) {
      return malformed(std::string(*detailType) + ": detail is missing or has mistyped fields");
    }
    return notice;
  }
  return notice;
}

}  // namespace nodewright::cloud::aws
