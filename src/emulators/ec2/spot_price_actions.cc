// DescribeSpotPriceHistory from the spot price model (spot_prices.h). Without StartTime it
// answers the price in effect now (or at EndTime) per (type, zone, product); with StartTime,
// every price in effect during [StartTime, EndTime or now], newest first, including the one in
// effect at StartTime, as EC2 does.
#include <algorithm>
#include <charconv>
#include <tuple>

#include <fmt/format.h>

#include "aws/xml.h"
#include "core/time.h"
#include "emulators/ec2/describe_actions.h"
#include "emulators/ec2/spot_prices.h"
#include "emulators/ec2/xml_names.h"

namespace nodewright::emulators::ec2 {
namespace {

// GUESS: EC2 documents no minimum; 1000 is the documented default and maximum.
constexpr int64_t kMinResults = 1, kMaxResults = 1000;
// EC2 keeps 90 days of history.
constexpr int64_t kMaxHistorySteps = 90 * 24 / kSpotPriceStep.count();

// The products with a Linux price; sorted, as they are listed.
constexpr std::string_view kLinuxProducts[] = {"Linux/UNIX", "Linux/UNIX (Amazon VPC)"};

// One entry of the history, and where it sorts: (type, zone, product) ascending, then step
// descending.
struct Entry {
  const InstanceTypeInfo* type;
  const ZoneConfig* zone;
  std::string_view product;
  int64_t step;
  double price;
};

std::string keyOf(const Entry& e) {
  return fmt::format("{}\n{}\n{}\n{}", e.type->name, e.zone->name, e.product, e.step);
}

struct Position {
  std::string type, zone, product;
  int64_t step = 0;
};

std::optional<Position> parseKey(std::string_view key) {
  Position p;
  std::string* parts[] = {&p.type, &p.zone, &p.product};
  for (std::string* part : parts) {
    size_t newline = key.find('\n');
    if (newline == std::string_view::npos) {
      return std::nullopt;
    }
    *part = std::string(key.substr(0, newline));
    key.remove_prefix(newline + 1);
  }
  auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), p.step);
  if (error != std::errc() || end != key.data() + key.size()) {
    return std::nullopt;
  }
  return p;
}

aws::ApiResult<std::optional<core::TimePoint>> optTime(const aws::Params& params,
                                                       std::string_view name) {
  auto text = params.find(name);
  if (!text) {
    return std::nullopt;
  }
  auto time = core::Time::parse(*text);
  if (!time) {
    // GUESS: the message.
    return aws::apiFail("InvalidParameterValue",
                        fmt::format("Invalid value '{}' for {}", *text, name));
  }
  return time->point();
}

struct Query {
  std::vector<const InstanceTypeInfo*> types;
  std::vector<const ZoneConfig*> zones;
  std::vector<std::string_view> products;
  int64_t firstStep = 0, lastStep = 0;
  std::vector<Filter> filters;
  PageRequest page;
};

aws::ApiResult<Query> parseQuery(ActionContext& ctx) {
  Query q;
  auto types = ctx.params.strings("InstanceType");
  if (!types) {
    return tl::unexpected(types.error());
  }
  auto products = ctx.params.strings("ProductDescription");
  if (!products) {
    return tl::unexpected(products.error());
  }
  auto filters = parseFilters(ctx.params);
  if (!filters) {
    return tl::unexpected(filters.error());
  }
  auto start = optTime(ctx.params, "StartTime");
  if (!start) {
    return tl::unexpected(start.error());
  }
  auto end = optTime(ctx.params, "EndTime");
  if (!end) {
    return tl::unexpected(end.error());
  }
  auto page = parsePageRequest(ctx.params, kMinResults, kMaxResults);
  if (!page) {
    return tl::unexpected(page.error());
  }
  if (auto ok = checkFilterNames(*filters,
                                 {"instance-type", "availability-zone", "availability-zone-id",
                                  "product-description", "spot-price", "timestamp"},
                                 /*withTags=*/false);
      !ok) {
    return tl::unexpected(ok.error());
  }
  const std::string zoneName = ctx.params.strOr("AvailabilityZone", "");
  const std::string zoneId = ctx.params.strOr("AvailabilityZoneId", "");
  for (const ZoneConfig& zone : ctx.world.zones) {
    if ((zoneName.empty() || zone.name == zoneName) && (zoneId.empty() || zone.zoneId == zoneId)) {
      q.zones.push_back(&zone);
    }
  }
  if (q.zones.empty()) {
    // GUESS: code and message.
    return aws::apiFail("InvalidParameterValue", "Invalid availability zone: [" +
                                                     (zoneName.empty() ? zoneId : zoneName) + "]");
  }
  std::sort(q.zones.begin(), q.zones.end(),
            [](const ZoneConfig* a, const ZoneConfig* b) { return a->name < b->name; });
  if (types->empty()) {
    for (const InstanceTypeInfo& t : ctx.catalog.all()) {
      q.types.push_back(&t);
    }
  } else {
    // Unknown types have no history, as on EC2, rather than an error.
    std::sort(types->begin(), types->end());
    types->erase(std::unique(types->begin(), types->end()), types->end());
    for (const std::string& name : *types) {
      if (const InstanceTypeInfo* t = ctx.catalog.find(name)) {
        q.types.push_back(t);
      }
    }
  }
  for (std::string_view product : kLinuxProducts) {
    if (products->empty() || std::count(products->begin(), products->end(), product)) {
      q.products.push_back(product);
    }
  }
  const core::TimePoint now = ctx.engine.time().now();
  // Prices are known up to now; a later EndTime adds nothing.
  q.lastStep = spotPriceStepIndex(std::min(end->value_or(now), now));
  q.firstStep =
      *start ? std::max(spotPriceStepIndex(**start), q.lastStep - kMaxHistorySteps) : q.lastStep;
  q.filters = std::move(*filters);
  q.page = std::move(*page);
  return q;
}

bool matches(const Query& q, const Entry& e) {
  return matchesFilters(q.filters, {}, [&](std::string_view n) -> std::vector<std::string> {
    if (n == "instance-type") {
      return {e.type->name};
    }
    if (n == "availability-zone") {
      return {e.zone->name};
    }
    if (n == "availability-zone-id") {
      return {e.zone->zoneId};
    }
    if (n == "product-description") {
      return {std::string(e.product)};
    }
    if (n == "spot-price") {
      return {formatSpotPrice(e.price)};
    }
    if (n == "timestamp") {
      return {aws::xml::formatTimestamp(spotPriceStepStart(e.step))};
    }
    return {};
  });
}

// Up to `limit` entries (0: all) after `after`, plus one more if there is one, so the caller
// knows whether a next page exists.
std::vector<Entry> collect(const Query& q, const std::optional<Position>& after, size_t limit) {
  std::vector<Entry> out;
  for (const InstanceTypeInfo* type : q.types) {
    for (const ZoneConfig* zone : q.zones) {
      for (std::string_view product : q.products) {
        int64_t from = q.lastStep;
        if (after) {
          auto here =
              std::make_tuple(std::string_view(type->name), std::string_view(zone->name), product);
          auto there = std::make_tuple(std::string_view(after->type), std::string_view(after->zone),
                                       std::string_view(after->product));
          if (here < there) {
            continue;
          }
          if (here == there) {
            from = std::min(from, after->step - 1);
          }
        }
        for (int64_t step = from; step >= q.firstStep; --step) {
          auto price = spotPriceAtStep(*type, zone->name, step);
          if (!price) {
            break;
          }
          Entry e{type, zone, product, step, *price};
          if (!matches(q, e)) {
            continue;
          }
          out.push_back(e);
          if (limit != 0 && out.size() > limit) {
            return out;
          }
        }
      }
    }
  }
  return out;
}

aws::ApiResult<std::string> describeSpotPriceHistory(ActionContext& ctx) {
  auto query = parseQuery(ctx);
  if (!query) {
    return tl::unexpected(query.error());
  }
  std::optional<Position> after;
  if (!query->page.after.empty()) {
    after = parseKey(query->page.after);
    if (!after) {
      return aws::apiFail("InvalidParameterValue",
                          "Value for parameter NextToken is invalid. The token is invalid.");
    }
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  const size_t limit = query->page.limit ? query->page.limit : kMaxResults;
  std::vector<Entry> entries = collect(*query, after, limit);
  std::string nextAfter;
  if (entries.size() > limit) {
    entries.resize(limit);
    nextAfter = keyOf(entries.back());
  }
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  pugi::xml_node list = addElement(response.root(), "spotPriceHistorySet");
  for (const Entry& e : entries) {
    pugi::xml_node item = addItem(list);
    addText(item, "instanceType", e.type->name);
    addText(item, "productDescription", e.product);
    addText(item, "spotPrice", formatSpotPrice(e.price));
    aws::xml::addTime(item, "timestamp", spotPriceStepStart(e.step));
    addText(item, "availabilityZone", e.zone->name);
    addText(item, "availabilityZoneId", e.zone->zoneId);
  }
  addNextToken(response.root(), nextAfter);
  return response.str();
}

}  // namespace

void addSpotPriceActions(ActionTable& table) {
  table["DescribeSpotPriceHistory"] = {bucket::kDescribe, describeSpotPriceHistory};
}

}  // namespace nodewright::emulators::ec2
