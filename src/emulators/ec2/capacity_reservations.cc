#include "emulators/ec2/capacity_reservations.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "aws/xml.h"
#include "core/time.h"
#include "emulators/ec2/describe_actions.h"
#include "emulators/ec2/param_reader.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/tagging.h"
#include "emulators/ec2/xml_names.h"

namespace nodewright::emulators::ec2 {
namespace {

// GUESS: how long EC2 lists a cancelled reservation.
constexpr std::chrono::hours kCancelledVisible{1};

// CONFIRMED wording (RunInstances into a full reservation, scylladb/scylla-cluster-tests#8839).
aws::ApiError capacityExceeded() {
  return {"ReservationCapacityExceeded",
          "The requested reservation does not have sufficient compatible and available capacity "
          "for this request."};
}

// GUESS: wording; the code is the one Karpenter treats as not found.
aws::ApiError reservationNotFound(std::string_view id) {
  return {"InvalidCapacityReservationId.NotFound",
          fmt::format("The capacity reservation ID '{}' does not exist", id)};
}

std::string arnOf(const World& world, std::string_view id) {
  return fmt::format("arn:aws:ec2:{}:{}:capacity-reservation/{}", world.region, world.accountId,
                     id);
}

// ---- DescribeCapacityReservations

std::vector<std::string> reservationValues(const World& world, core::TimePoint now,
                                           const Resource& r, std::string_view n) {
  const auto* a = r.as<CapacityReservationAttributes>();
  if (a == nullptr) {
    return {};
  }
  if (n == "instance-type") {
    return {a->instanceType};
  }
  if (n == "owner-id") {
    return {a->ownerId};
  }
  if (n == "instance-platform") {
    return {a->instancePlatform};
  }
  if (n == "availability-zone") {
    return {a->zone};
  }
  if (n == "availability-zone-id") {
    return {a->zoneId};
  }
  if (n == "tenancy") {
    return {a->tenancy};
  }
  if (n == "state") {
    return {reservationState(r, now)};
  }
  if (n == "end-date-type") {
    return {a->endDate ? "limited" : "unlimited"};
  }
  if (n == "end-date" && a->endDate) {
    return {*a->endDate};
  }
  if (n == "instance-match-criteria") {
    return {a->instanceMatchCriteria};
  }
  if (n == "reservation-type") {
    return {a->reservationType};
  }
  if (n == "capacity-reservation-arn") {
    return {arnOf(world, r.id)};
  }
  return {};
}

void renderReservation(pugi::xml_node item, const World& world, core::TimePoint now,
                       const Resource& r) {
  const auto* a = r.as<CapacityReservationAttributes>();
  if (a == nullptr) {
    return;
  }
  addText(item, "capacityReservationId", r.id);
  addText(item, "ownerId", a->ownerId);
  addText(item, "capacityReservationArn", arnOf(world, r.id));
  addText(item, "availabilityZoneId", a->zoneId);
  addText(item, "instanceType", a->instanceType);
  addText(item, "instancePlatform", a->instancePlatform);
  addText(item, "availabilityZone", a->zone);
  addText(item, "tenancy", a->tenancy);
  aws::xml::addInt(item, "totalInstanceCount", a->totalInstanceCount);
  aws::xml::addInt(item, "availableInstanceCount", a->availableInstanceCount);
  aws::xml::addBool(item, "ebsOptimized", false);
  aws::xml::addBool(item, "ephemeralStorage", false);
  addText(item, "state", reservationState(r, now));
  aws::xml::addTime(item, "startDate", r.created);
  if (a->endDate) {
    addText(item, "endDate", *a->endDate);
  }
  addText(item, "endDateType", a->endDate ? "limited" : "unlimited");
  addText(item, "instanceMatchCriteria", a->instanceMatchCriteria);
  aws::xml::addTime(item, "createDate", r.created);
  addTagSet(item, r.tags);
  addText(item, "reservationType", a->reservationType);
  aws::xml::addBool(item, "interruptible", a->interruptible);
}

// ---- CreateCapacityReservation

aws::ApiResult<std::string> createCapacityReservation(ActionContext& ctx) {
  std::optional<aws::ApiError> error;
  ParamReader r(ctx.params, error);
  CapacityReservationAttributes a;
  auto type = r.str("InstanceType");
  auto platform = r.str("InstancePlatform");
  auto count = r.count("InstanceCount");
  if (!type) {
    r.missing("InstanceType");
  } else if (ctx.catalog.find(*type) == nullptr) {
    r.invalid("InstanceType", *type);
  }
  if (!platform) {
    r.missing("InstancePlatform");
  }
  if (!count) {
    r.missing("InstanceCount");
  } else if (*count < 1) {
    r.invalid("InstanceCount", std::to_string(*count));
  }
  auto zoneName = r.str("AvailabilityZone");
  auto zoneId = r.str("AvailabilityZoneId");
  const ZoneConfig* zone = nullptr;
  for (const ZoneConfig& z : ctx.world.zones) {
    if ((zoneName && z.name == *zoneName) || (!zoneName && zoneId && z.zoneId == *zoneId)) {
      zone = &z;
    }
  }
  if (zone == nullptr && !error) {
    if (zoneName || zoneId) {
      r.invalid(zoneName ? "AvailabilityZone" : "AvailabilityZoneId", zoneName.value_or(*zoneId));
    } else {
      r.missing("AvailabilityZone");
    }
  }
  a.tenancy = r.oneOf("Tenancy", {"default", "dedicated"}).value_or("default");
  a.instanceMatchCriteria = r.oneOf("InstanceMatchCriteria", {"open", "targeted"}).value_or("open");
  const std::string endDateType =
      r.oneOf("EndDateType", {"unlimited", "limited"}).value_or("unlimited");
  auto endDate = r.str("EndDate");
  if (endDate && !core::Time::parse(*endDate)) {
    r.invalid("EndDate", *endDate);
  }
  // GUESS: wording; EC2 wants an end date exactly when the end date type is limited.
  if (!error && (endDateType == "limited") != endDate.has_value()) {
    r.fail({"InvalidParameterCombination",
            "EndDate must be specified if and only if EndDateType is limited"});
  }
  auto tags =
      r.take(parseTagSpecifications(ctx.params, "TagSpecifications", {"capacity-reservation"}));
  const std::string clientToken = r.str("ClientToken").value_or("");
  if (error) {
    return tl::unexpected(std::move(*error));
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return tl::unexpected(dry.error());
  }
  a.instanceType = *type;
  a.instancePlatform = *platform;
  a.zone = zone->name;
  a.zoneId = zone->zoneId;
  a.totalInstanceCount = *count;
  a.availableInstanceCount = *count;
  a.ownerId = ctx.world.accountId;
  a.endDate = endDate;

  NewResource spec;
  spec.type = std::string(kind::kCapacityReservation);
  spec.idPrefix = "cr";
  spec.state = "active";
  spec.tags = tagsFor(tags.value_or(std::vector<TagSpecification>{}), "capacity-reservation");
  spec.clientToken = clientToken;
  spec.attributes = std::make_shared<const CapacityReservationAttributes>(std::move(a));
  auto created = ctx.engine.store().create(std::move(spec));
  if (!created) {
    return aws::apiFail("InternalError", created.error().message(), 500);
  }
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  renderReservation(addElement(response.root(), "capacityReservation"), ctx.world,
                    ctx.engine.time().now(), created->resource);
  return response.str();
}

aws::ApiResult<std::string> describeCapacityReservations(ActionContext& ctx) {
  auto request = parseDescribeRequest(
      ctx.params, "CapacityReservationId",
      {"instance-type", "owner-id", "instance-platform", "availability-zone",
       "availability-zone-id", "tenancy", "state", "end-date", "end-date-type",
       "instance-match-criteria", "reservation-type", "capacity-reservation-arn"},
      1, 1000);
  if (!request) {
    return tl::unexpected(request.error());
  }
  ResourceStore& store = ctx.engine.store();
  if (auto missing = missingIds(store, kind::kCapacityReservation, request->ids);
      !missing.empty()) {
    return tl::unexpected(reservationNotFound(missing.front()));
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  const World& world = ctx.world;
  const core::TimePoint now = ctx.engine.time().now();
  Page page = findResources(
      store, kind::kCapacityReservation, *request,
      [&](const Resource& r, std::string_view n) { return reservationValues(world, now, r, n); });
  return pageResponse(
      ctx, "capacityReservationSet", page,
      [&](pugi::xml_node item, const Resource& r) { renderReservation(item, world, now, r); });
}

// ---- CancelCapacityReservation

aws::ApiResult<std::string> cancelCapacityReservation(ActionContext& ctx) {
  auto id = ctx.params.find("CapacityReservationId");
  if (!id) {
    return aws::apiFail("MissingParameter",
                        "The request must contain the parameter CapacityReservationId");
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  ResourceStore& store = ctx.engine.store();
  auto found = store.get(kind::kCapacityReservation, *id);
  if (!found || !found->live()) {
    return tl::unexpected(reservationNotFound(*id));
  }
  (void)store.retire(kind::kCapacityReservation, *id, "cancelled",
                     ctx.engine.time().toReal(kCancelledVisible));
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  aws::xml::addBool(response.root(), "return", true);
  return response.str();
}

// Whether reservation `r` can take a launch of `instanceType` in `zone` now.
bool compatible(const Resource& r, const std::string& instanceType, const std::string& zone,
                core::TimePoint now) {
  const auto* a = r.as<CapacityReservationAttributes>();
  return a != nullptr && r.live() && reservationState(r, now) == "active" &&
         a->instanceType == instanceType && a->zone == zone;
}

// Takes up to maxCount (at least minCount) from reservation `id` under the store's lock.
std::optional<ReservedCapacity> take(ResourceStore& store, const std::string& id, int64_t minCount,
                                     int64_t maxCount) {
  std::optional<ReservedCapacity> out;
  (void)store.update(kind::kCapacityReservation, id, [&](Resource& r) {
    const auto* a = r.as<CapacityReservationAttributes>();
    if (a == nullptr || a->availableInstanceCount < std::max<int64_t>(minCount, 1)) {
      return;
    }
    auto next = std::make_shared<CapacityReservationAttributes>(*a);
    const int64_t count = std::min(maxCount, next->availableInstanceCount);
    next->availableInstanceCount -= count;
    std::string lifecycle;
    if (a->reservationType == "capacity-block") {
      lifecycle = "capacity-block";
    } else if (a->interruptible) {
      lifecycle = "interruptible-capacity-reservation";
    }
    out = ReservedCapacity{r.id, count, std::move(lifecycle)};
    r.attributes = std::move(next);
  });
  return out;
}

}  // namespace

void addCapacityReservationActions(ActionTable& table) {
  table["CreateCapacityReservation"] = {bucket::kMutating, createCapacityReservation};
  table["DescribeCapacityReservations"] = {bucket::kDescribe, describeCapacityReservations};
  table["CancelCapacityReservation"] = {bucket::kMutating, cancelCapacityReservation};
}

std::string reservationState(const Resource& r, core::TimePoint now) {
  const auto* a = r.as<CapacityReservationAttributes>();
  if (r.state == "active" && a != nullptr && a->endDate) {
    auto end = core::Time::parse(*a->endDate);
    if (end && end->point() <= now) {
      return "expired";
    }
  }
  return r.state;
}

aws::ApiResult<std::optional<ReservedCapacity>> takeReservedCapacity(
    ActionContext& ctx, const LaunchTemplateData& data, const std::string& instanceType,
    const std::string& zone, int64_t minCount, int64_t maxCount) {
  ResourceStore& store = ctx.engine.store();
  const core::TimePoint now = ctx.engine.time().now();
  const std::optional<CapacityReservationSpec>& spec = data.capacityReservation;
  const std::string preference = spec && spec->preference ? *spec->preference : std::string("open");
  if (spec && spec->reservationId) {
    auto target = store.get(kind::kCapacityReservation, *spec->reservationId);
    if (!target || !target->live()) {
      return tl::unexpected(reservationNotFound(*spec->reservationId));
    }
    if (!compatible(*target, instanceType, zone, now)) {
      return tl::unexpected(capacityExceeded());
    }
    auto taken = take(store, target->id, minCount, maxCount);
    if (!taken) {
      return tl::unexpected(capacityExceeded());
    }
    return taken;
  }
  if (preference == "none") {
    return std::nullopt;
  }
  // EC2 matches open reservations of the type, zone, platform and tenancy; this emulator's
  // instances are Linux/UNIX with default tenancy.
  auto open = store.list(kind::kCapacityReservation, [&](const Resource& c) {
    const auto* a = c.as<CapacityReservationAttributes>();
    return compatible(c, instanceType, zone, now) && a->instanceMatchCriteria == "open" &&
           a->tenancy == "default" && a->instancePlatform == "Linux/UNIX";
  });
  for (const Resource& r : open) {
    if (auto taken = take(store, r.id, minCount, maxCount)) {
      return taken;
    }
  }
  if (preference == "capacity-reservations-only") {
    return tl::unexpected(capacityExceeded());
  }
  return std::nullopt;
}

void returnReservedCapacity(ResourceStore& store, const std::string& id, int64_t count) {
  (void)store.update(kind::kCapacityReservation, id, [&](Resource& r) {
    const auto* a = r.as<CapacityReservationAttributes>();
    if (a == nullptr) {
      return;
    }
    auto next = std::make_shared<CapacityReservationAttributes>(*a);
    next->availableInstanceCount =
        std::min(next->totalInstanceCount, next->availableInstanceCount + count);
    r.attributes = std::move(next);
  });
}

}  // namespace nodewright::emulators::ec2
