#include "emulators/ec2/fleet.h"

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "aws/xml.h"
#include "emulators/ec2/fleet_pools.h"
#include "emulators/ec2/launch.h"
#include "emulators/ec2/param_reader.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/resources.h"
#include "emulators/ec2/spot_prices.h"
#include "emulators/ec2/xml_names.h"

namespace nodewright::emulators::ec2 {
namespace {

// GUESS: how long EC2 lists a deleted instant fleet; it keeps the client token usable.
constexpr std::chrono::hours kDeletedFleetVisible{48};

struct Pool {
  size_t launchTemplate = 0;  // index into FleetRequest::templates
  FleetPoolSpec spec;
};

// The capacity options of one lifecycle.
struct CapacityOptions {
  int64_t target = 0;
  std::string strategy = "lowest-price";
  bool singleInstanceType = false;
  bool singleAvailabilityZone = false;
  int64_t minTargetCapacity = 0;
};

struct FleetRequest {
  std::vector<ResolvedTemplate> templates;  // one per LaunchTemplateConfigs.N
  std::vector<Pool> pools;
  int64_t total = 0;
  CapacityOptions onDemand;
  CapacityOptions spot;
  std::vector<TagSpecification> tags;
  std::string clientToken;
};

CapacityOptions readOptions(const ParamReader& r, std::initializer_list<std::string_view> allowed) {
  CapacityOptions o;
  o.strategy = r.oneOf("AllocationStrategy", allowed).value_or("lowest-price");
  o.singleInstanceType = r.boolean("SingleInstanceType").value_or(false);
  o.singleAvailabilityZone = r.boolean("SingleAvailabilityZone").value_or(false);
  o.minTargetCapacity = r.count("MinTargetCapacity").value_or(0);
  return o;
}

FleetOverrides readOverrides(const ParamReader& r) {
  FleetOverrides o;
  o.instanceType = r.str("InstanceType");
  o.maxPrice = r.str("MaxPrice");
  o.subnetId = r.str("SubnetId");
  o.availabilityZone = r.str("AvailabilityZone");
  o.weightedCapacity = r.number("WeightedCapacity");
  o.priority = r.number("Priority");
  o.imageId = r.str("ImageId");
  if (o.maxPrice) {
    (void)r.number("MaxPrice");  // a string on the wire, but it must be a price
  }
  if (o.weightedCapacity && *o.weightedCapacity <= 0) {
    r.invalid("WeightedCapacity", r.str("WeightedCapacity").value_or(""));
  }
  return o;
}

// Reads and checks everything a request-level error can come from, before anything is created.
aws::ApiResult<FleetRequest> parseRequest(ActionContext& ctx) {
  std::optional<aws::ApiError> error;
  ParamReader r(ctx.params, error);
  FleetRequest req;
  auto type = r.oneOf("Type", {"instant", "maintain", "request"});
  // GUESS: an emulator limit, in EC2's words for an unsupported configuration. EC2 defaults a
  // missing Type to maintain, which is just as unsupported here.
  if (!error && type != "instant") {
    return aws::apiFail("Unsupported",
                        "The requested configuration is currently not supported: this emulator "
                        "supports only EC2 Fleets of Type instant.");
  }
  auto configs = r.list("LaunchTemplateConfigs");
  if (!error && configs.empty()) {
    r.missing("LaunchTemplateConfigs");
  }
  for (const ParamReader& config : configs) {
    auto ref = parseLaunchTemplateRef(config.params().sub("LaunchTemplateSpecification"));
    if (!ref) {
      config.missing("LaunchTemplateSpecification.LaunchTemplateId");
      break;
    }
    auto resolved = config.take(resolveLaunchTemplate(ctx.engine.store(), *ref));
    if (!resolved) {
      break;
    }
    req.templates.push_back(std::move(*resolved));
    FleetPoolSpec base{req.templates.back().id, req.templates.back().name, ref->version, {}};
    auto overrides = config.list("Overrides");
    const size_t index = req.templates.size() - 1;
    if (overrides.empty()) {
      req.pools.push_back({index, base});
    }
    for (const ParamReader& o : overrides) {
      FleetPoolSpec spec = base;
      spec.overrides = readOverrides(o);
      req.pools.push_back({index, std::move(spec)});
    }
  }
  ParamReader capacity = r.sub("TargetCapacitySpecification");
  auto total = capacity.count("TotalTargetCapacity");
  if (!total) {
    capacity.missing("TotalTargetCapacity");
  }
  req.total = total.value_or(0);
  const std::string defaultType =
      capacity
          .oneOf("DefaultTargetCapacityType",
                 {"on-demand", "spot", "capacity-block", "reserved-capacity"})
          .value_or("on-demand");  // GUESS: EC2's default for instant fleets
  req.onDemand = readOptions(r.sub("OnDemandOptions"), {"lowest-price", "prioritized"});
  req.spot = readOptions(r.sub("SpotOptions"),
                         {"lowest-price", "diversified", "capacity-optimized",
                          "capacity-optimized-prioritized", "price-capacity-optimized"});
  // The default type takes what the other does not.
  if (defaultType == "spot") {
    req.onDemand.target = capacity.count("OnDemandTargetCapacity").value_or(0);
    req.spot.target = req.total - req.onDemand.target;
  } else {
    req.spot.target = capacity.count("SpotTargetCapacity").value_or(0);
    req.onDemand.target = req.total - req.spot.target;
  }
  // GUESS: code and wording.
  if (!error && (req.onDemand.target < 0 || req.spot.target < 0)) {
    r.fail({"InvalidParameterValue",
            "The sum of OnDemandTargetCapacity and SpotTargetCapacity must not exceed "
            "TotalTargetCapacity."});
  }
  req.tags = r.take(parseTagSpecifications(ctx.params, "TagSpecification",
                                           {"fleet", "instance", "volume", "network-interface",
                                            "spot-instances-request"}))
                 .value_or(std::vector<TagSpecification>{});
  req.clientToken = r.str("ClientToken").value_or("");
  if (error) {
    return tl::unexpected(std::move(*error));
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return tl::unexpected(dry.error());
  }
  return req;
}

// The launch fields a pool's overrides and the fleet's tags put over its template.
LaunchTemplateData poolData(const FleetRequest& req, const Pool& pool) {
  LaunchTemplateData over;
  over.instanceType = pool.spec.overrides.instanceType;
  over.imageId = pool.spec.overrides.imageId;
  over.availabilityZone = pool.spec.overrides.availabilityZone;
  for (const TagSpecification& spec : req.tags) {
    if (spec.resourceType != "fleet") {
      over.tagSpecifications.push_back(spec);
    }
  }
  LaunchTemplateData data = overlay(req.templates[pool.launchTemplate].version->data, over);
  data.instanceMarketOptions.reset();  // the fleet decides the market
  if (pool.spec.overrides.subnetId) {
    // The override's subnet is the primary interface's, as EC2 Fleet applies it.
    for (NetworkInterfaceRequest& ni : data.networkInterfaces) {
      if (ni.deviceIndex.value_or(0) == 0 && ni.networkCardIndex.value_or(0) == 0) {
        ni.subnetId.reset();
      }
    }
  }
  return data;
}

std::string poolZone(ResourceStore& store, const LaunchTemplateData& data,
                     const FleetOverrides& overrides) {
  std::optional<std::string> subnetId = overrides.subnetId;
  for (const NetworkInterfaceRequest& ni : data.networkInterfaces) {
    if (!subnetId && ni.subnetId) {
      subnetId = ni.subnetId;
    }
  }
  if (subnetId) {
    auto subnet = store.get(kind::kSubnet, *subnetId);
    if (subnet && subnet->as<SubnetAttributes>()) {
      return subnet->as<SubnetAttributes>()->zone;
    }
  }
  return data.availabilityZone.value_or("");
}

PoolCandidate candidate(ActionContext& ctx, const FleetRequest& req, const Pool& pool,
                        const std::string& lifecycle, const FaultConfig& faults) {
  const LaunchTemplateData data = poolData(req, pool);
  PoolCandidate c;
  c.instanceType = data.instanceType.value_or("");
  c.zone = poolZone(ctx.engine.store(), data, pool.spec.overrides);
  c.price = std::numeric_limits<double>::infinity();
  if (const InstanceTypeInfo* type = ctx.catalog.find(c.instanceType)) {
    auto price = lifecycle == "spot" ? spotPrice(*type, c.zone, ctx.engine.time().now())
                                     : type->onDemandPrice;
    c.price = price.value_or(c.price);
  }
  c.priority = pool.spec.overrides.priority;
  c.remaining = remainingCapacity(faults, {c.instanceType, c.zone, lifecycle});
  return c;
}

// A spot pool whose price is above the override's MaxPrice is not launched. GUESS: code from
// the EC2 error reference, wording after its Spot request messages.
std::optional<aws::ApiError> maxPriceTooLow(const FleetOverrides& overrides,
                                            const PoolCandidate& pool,
                                            const std::string& lifecycle) {
  if (lifecycle != "spot" || !overrides.maxPrice) {
    return std::nullopt;
  }
  double max = 0;
  const std::string& text = *overrides.maxPrice;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), max);
  if (ec != std::errc() || end != text.data() + text.size() || max >= pool.price) {
    return std::nullopt;
  }
  return aws::ApiError{"SpotMaxPriceTooLow",
                       fmt::format("Your Spot request price of {} is lower than the minimum "
                                   "required Spot request fulfillment price of {}.",
                                   text, formatSpotPrice(pool.price))};
}

// Launches one lifecycle's target capacity across the pools, recording instances and errors.
void launchLifecycle(ActionContext& ctx, const FleetRequest& req, const std::string& fleetId,
                     const std::string& lifecycle, const CapacityOptions& options,
                     FleetAttributes& out) {
  const FaultConfig faults = ctx.engine.faults().config();
  std::vector<PoolCandidate> candidates;
  for (const Pool& pool : req.pools) {
    candidates.push_back(candidate(ctx, req, pool, lifecycle, faults));
  }
  const bool singlePool = options.singleInstanceType || options.singleAvailabilityZone;
  double remaining = static_cast<double>(options.target);
  for (size_t index : orderPools(candidates, options.strategy)) {
    if (remaining <= 0) {
      break;
    }
    const Pool& pool = req.pools[index];
    if (auto tooLow = maxPriceTooLow(pool.spec.overrides, candidates[index], lifecycle)) {
      out.errors.push_back({pool.spec, lifecycle, tooLow->code, tooLow->message});
      continue;
    }
    const double weight = pool.spec.overrides.weightedCapacity.value_or(1);
    LaunchPlan plan;
    plan.data = poolData(req, pool);
    plan.launchTemplate = req.templates[pool.launchTemplate];
    plan.subnetId = pool.spec.overrides.subnetId.value_or("");
    plan.lifecycle = lifecycle;
    plan.fleetId = fleetId;
    plan.maxCount = static_cast<int64_t>(std::ceil(remaining / weight));
    plan.minCount =
        singlePool
            ? std::max<int64_t>(1, static_cast<int64_t>(std::ceil(
                                       static_cast<double>(options.minTargetCapacity) / weight)))
            : 1;
    plan.minCount = std::min(plan.minCount, plan.maxCount);
    auto outcome = launchInstances(ctx, plan);
    if (!outcome) {
      out.errors.push_back({pool.spec, lifecycle, outcome.error().code, outcome.error().message});
      continue;
    }
    FleetInstances launched{pool.spec, lifecycle, plan.data.instanceType.value_or(""), {}};
    for (const Resource& r : outcome->instances) {
      launched.instanceIds.push_back(r.id);
    }
    const auto count = static_cast<int64_t>(launched.instanceIds.size());
    out.instances.push_back(std::move(launched));
    remaining -= static_cast<double>(count) * weight;
    if (count < plan.maxCount) {
      // The pool ran dry part way: EC2 reports it as the pool's error too.
      aws::ApiError e = insufficientCapacityError(ctx.world, candidates[index].instanceType,
                                                  candidates[index].zone, lifecycle);
      out.errors.push_back({pool.spec, lifecycle, e.code, e.message});
    }
    if (singlePool) {
      break;
    }
  }
}

void renderPool(pugi::xml_node parent, const FleetPoolSpec& p) {
  pugi::xml_node node = addElement(parent, "launchTemplateAndOverrides");
  pugi::xml_node spec = addElement(node, "launchTemplateSpecification");
  addText(spec, "launchTemplateId", p.launchTemplateId);
  if (!p.version.empty()) {
    addText(spec, "version", p.version);
  }
  pugi::xml_node o = addElement(node, "overrides");
  const FleetOverrides& v = p.overrides;
  auto text = [&](const char* name, const std::optional<std::string>& value) {
    if (value) {
      addText(o, name, *value);
    }
  };
  auto number = [&](const char* name, const std::optional<double>& value) {
    if (value) {
      addText(o, name, fmt::format("{}", *value));
    }
  };
  text("instanceType", v.instanceType);
  text("maxPrice", v.maxPrice);
  text("subnetId", v.subnetId);
  text("availabilityZone", v.availabilityZone);
  number("weightedCapacity", v.weightedCapacity);
  number("priority", v.priority);
  text("imageId", v.imageId);
}

std::string render(ActionContext& ctx, const std::string& fleetId, const FleetAttributes& fleet) {
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  addText(response.root(), "fleetId", fleetId);
  pugi::xml_node errors = addElement(response.root(), "errorSet");
  for (const FleetError& e : fleet.errors) {
    pugi::xml_node item = addItem(errors);
    renderPool(item, e.pool);
    addText(item, "lifecycle", e.lifecycle);
    addText(item, "errorCode", e.code);
    addText(item, "errorMessage", e.message);
  }
  pugi::xml_node instances = addElement(response.root(), "fleetInstanceSet");
  for (const FleetInstances& group : fleet.instances) {
    pugi::xml_node item = addItem(instances);
    renderPool(item, group.pool);
    addText(item, "lifecycle", group.lifecycle);
    pugi::xml_node ids = addElement(item, "instanceIds");
    for (const std::string& id : group.instanceIds) {
      addText(ids, "item", id);
    }
    addText(item, "instanceType", group.instanceType);
  }
  return response.str();
}

std::string renderStored(ActionContext& ctx, const Resource& fleet) {
  const auto* attrs = fleet.as<FleetAttributes>();
  // A fleet whose first request is still launching has nothing to show yet.
  return render(ctx, fleet.id, attrs != nullptr ? *attrs : FleetAttributes{});
}

}  // namespace

aws::ApiResult<std::string> createFleet(ActionContext& ctx) {
  ResourceStore& store = ctx.engine.store();
  auto req = parseRequest(ctx);
  if (!req) {
    return tl::unexpected(req.error());
  }
  if (!req->clientToken.empty()) {
    if (auto earlier = store.findByClientToken(kind::kFleet, req->clientToken)) {
      return renderStored(ctx, *earlier);
    }
  }
  NewResource spec;
  spec.type = std::string(kind::kFleet);
  spec.idPrefix = "fleet";
  spec.idHexDigits = 32;
  spec.state = "active";
  spec.tags = tagsFor(req->tags, "fleet");
  spec.clientToken = req->clientToken;
  auto created = store.create(std::move(spec));
  if (!created) {
    return aws::apiFail("InternalError", created.error().message(), 500);
  }
  if (!created->created) {
    return renderStored(ctx, created->resource);  // a concurrent request with the same token
  }
  ctx.engine.stats().recordCreate(req->clientToken);
  const std::string fleetId = created->resource.id;

  FleetAttributes fleet;
  fleet.totalTargetCapacity = req->total;
  launchLifecycle(ctx, *req, fleetId, "on-demand", req->onDemand, fleet);
  launchLifecycle(ctx, *req, fleetId, "spot", req->spot, fleet);
  (void)store.update(kind::kFleet, fleetId, [&](Resource& r) {
    r.attributes = std::make_shared<const FleetAttributes>(fleet);
  });
  (void)store.retire(kind::kFleet, fleetId, "deleted",
                     ctx.engine.time().toReal(kDeletedFleetVisible));
  return render(ctx, fleetId, fleet);
}

}  // namespace nodewright::emulators::ec2
