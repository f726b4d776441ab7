// GetProducts for AmazonEC2 from the catalog, in the shape botocore reads: PriceList holds
// each product document serialized as a JSON string.
#include "emulators/ec2/pricing.h"
#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "api/reflect/json.h"
#include "core/hex.h"

namespace nodewright::emulators::ec2 {
namespace {

using api::Json;

// GUESS: GetProducts' documented MaxResults range is 1..100, 100 by default.
constexpr int64_t kMaxResults = 100;
// The offer term and rate codes EC2's on-demand prices carry (the same for every product).
constexpr std::string_view kOnDemandTerm = "JRTCKXETXF";
constexpr std::string_view kRateCode = "6YS6EN2CT7";
constexpr std::string_view kTokenPrefix = "nwp1:";

PricingReply error(std::string code, std::string message) {
  Json body{{"__type", code}, {"Message", std::move(message)}};
  return {400, api::dumpJson(body), std::move(code)};
}

// A stable, SKU-shaped id per instance type (FNV-1a).
std::string skuOf(std::string_view type) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : type) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return fmt::format("{:016X}", h);
}

Json attributesOf(const InstanceTypeInfo& t, const World& world) {
  Json a{{"servicecode", "AmazonEC2"},  {"instanceType", t.name},
         {"instanceFamily", t.family},  {"operatingSystem", "Linux"},
         {"tenancy", "Shared"},         {"preInstalledSw", "NA"},
         {"capacitystatus", "Used"},    {"licenseModel", "No License required"},
         {"operation", "RunInstances"}, {"usagetype", "BoxUsage:" + t.name},
         {"regionCode", world.region},  {"marketoption", "OnDemand"}};
  if (t.vcpu) {
    a["vcpu"] = std::to_string(*t.vcpu);
  }
  if (t.memoryMiB) {
    a["memory"] = fmt::format("{} GiB", static_cast<double>(*t.memoryMiB) / 1024.0);
  }
  return a;
}

Json productOf(const InstanceTypeInfo& t, const Json& attributes) {
  const std::string sku = skuOf(t.name);
  const std::string term = sku + "." + std::string(kOnDemandTerm);
  const std::string rate = term + "." + std::string(kRateCode);
  Json dimension{{"unit", "Hrs"},
                 {"beginRange", "0"},
                 {"endRange", "Inf"},
                 {"rateCode", rate},
                 {"appliesTo", Json::array()},
                 {"description", fmt::format("${} per On Demand Linux {} Instance Hour",
                                             *t.onDemandPrice, t.name)},
                 {"pricePerUnit", {{"USD", fmt::format("{:.10f}", *t.onDemandPrice)}}}};
  Json onDemand{{"offerTermCode", std::string(kOnDemandTerm)},
                {"sku", sku},
                {"effectiveDate", "2024-11-01T00:00:00Z"},
                {"priceDimensions", {{rate, std::move(dimension)}}},
                {"termAttributes", Json::object()}};
  return Json{{"product",
               {{"productFamily", "Compute Instance"}, {"attributes", attributes}, {"sku", sku}}},
              {"serviceCode", "AmazonEC2"},
              {"terms", {{"OnDemand", {{term, std::move(onDemand)}}}}},
              {"version", "20241115000000"},
              {"publicationDate", "2024-11-15T00:00:00Z"}};
}

struct TermMatch {
  std::string field;  // lower case: the API matches field names without case
  std::string value;
};

bool matches(const Json& attributes, const std::vector<TermMatch>& filters) {
  for (const TermMatch& f : filters) {
    bool found = false;
    for (const auto& [name, value] : attributes.items()) {
      if (core::lowerAscii(name) == f.field && value.is_string() &&
          value.get<std::string>() == f.value) {
        found = true;
      }
    }
    if (!found) {
      return false;
    }
  }
  return true;
}

PricingReply getProducts(const Json& request, const Catalog& catalog, const World& world) {
  auto service = request.find("ServiceCode");
  if (service == request.end() || !service->is_string()) {
    return error("InvalidParameterException", "ServiceCode is required for GetProducts");
  }
  if (*service != "AmazonEC2") {
    // GUESS: code and wording for a service this emulator has no prices of.
    return error("NotFoundException",
                 fmt::format("Service {} is not found", service->get<std::string>()));
  }
  std::vector<TermMatch> filters;
  if (auto f = request.find("Filters"); f != request.end()) {
    if (!f->is_array()) {
      return error("InvalidParameterException", "Filters must be a list");
    }
    for (const Json& filter : *f) {
      if (!filter.is_object() || filter.value("Type", "") != "TERM_MATCH" ||
          !filter.contains("Field") || !filter["Field"].is_string() || !filter.contains("Value") ||
          !filter["Value"].is_string()) {
        // GUESS: the emulator supports TERM_MATCH filters only.
        return error("InvalidParameterException",
                     "Each filter needs Type TERM_MATCH, a Field and a Value");
      }
      filters.push_back({core::lowerAscii(filter["Field"].get<std::string>()), filter["Value"]});
    }
  }
  int64_t limit = kMaxResults;
  if (auto m = request.find("MaxResults"); m != request.end()) {
    if (!m->is_number_integer() || *m < 1 || *m > kMaxResults) {
      return error("InvalidParameterException",
                   fmt::format("MaxResults must be between 1 and {}", kMaxResults));
    }
    limit = m->get<int64_t>();
  }
  std::string after;
  if (auto t = request.find("NextToken"); t != request.end()) {
    auto decoded = t->is_string() ? core::hexDecode(t->get<std::string>()) : std::nullopt;
    if (!decoded || !decoded->starts_with(kTokenPrefix)) {
      return error("InvalidNextTokenException", "The NextToken is invalid");
    }
    after = decoded->substr(kTokenPrefix.size());
  }
  Json list = Json::array();
  std::string last;
  bool more = false;
  // The catalog is sorted by name, so a page resumes after the last name it sent.
  for (const InstanceTypeInfo& t : catalog.all()) {
    if (!t.onDemandPrice || (!after.empty() && t.name <= after)) {
      continue;
    }
    Json attributes = attributesOf(t, world);
    if (!matches(attributes, filters)) {
      continue;
    }
    if (static_cast<int64_t>(list.size()) == limit) {
      more = true;
      break;
    }
    list.push_back(api::dumpJson(productOf(t, attributes)));
    last = t.name;
  }
  Json body{{"FormatVersion", request.value("FormatVersion", "aws_v1")},
            {"PriceList", std::move(list)}};
  if (more) {
    body["NextToken"] = core::hexEncode(std::string(kTokenPrefix) + last);
  }
  return {200, api::dumpJson(body), ""};
}

}  // namespace

PricingReply servePricing(std::string_view operation, std::string_view body, const Catalog& catalog,
                          const World& world) {
  if (operation != "GetProducts") {
    // GUESS: the code AWS JSON services use for a target they do not know.
    return error("UnknownOperationException",
                 fmt::format("The operation AWSPriceListService.{} is not supported", operation));
  }
  Json request = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded() || !request.is_object()) {
    return error("SerializationException", "The request body is not a JSON object");
  }
  return getProducts(request, catalog, world);
}

http::Response servePricingRequest(const http::Request& request, const std::string& requestId,
                                   const aws::ApiResult<aws::sigv4::Identity>& identity,
                                   Engine& engine, const Catalog& catalog, const World& world) {
  const std::string operation = request.header("x-amz-target").substr(kPricingTargetPrefix.size());
  const std::string statsName = "pricing:" + operation;
  http::Response r;
  r.contentType = "application/x-amz-json-1.1";
  r.headers.emplace_back("x-amzn-RequestId", requestId);
  auto fail = [&](const aws::ApiError& e) {
    engine.stats().recordRequest(statsName, e.code);
    r.status = e.httpStatus;
    r.body = api::dumpJson(Json{{"__type", e.code}, {"Message", e.message}});
    return r;
  };
  if (!identity) {
    return fail(identity.error());
  }
  if (auto fault = engine.faults().roll(statsName)) {
    const int status = fault->status != 0                     ? fault->status
                       : fault->code == "ThrottlingException" ? 400
                                                              : 500;
    return fail(
        {fault->code, fault->message.empty() ? "Injected " + fault->code : fault->message, status});
  }
  PricingReply reply = servePricing(operation, request.body, catalog, world);
  engine.stats().recordRequest(statsName, reply.errorCode);
  r.status = reply.status;
  r.body = std::move(reply.body);
  return r;
}

}  // namespace nodewright::emulators::ec2
