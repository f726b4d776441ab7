#pragma once

#include <string>
#include <string_view>

#include "aws/error.h"
#include "aws/sigv4.h"
#include "emulators/ec2/catalog.h"
#include "emulators/ec2/world.h"
#include "emulators/engine/engine.h"
#include "http/server.h"

// The AWS Price List Query API's GetProducts over the catalog's on-demand prices, in the AWS
// JSON 1.1 protocol (X-Amz-Target AWSPriceListService.<Operation>, signing name "pricing"),
// enough for a client refreshing EC2 on-demand Linux prices. Every catalog type with a price
// is one product: Linux, shared tenancy, no pre-installed software, capacity status Used, in
// the world's region.
namespace nodewright::emulators::ec2 {

inline constexpr std::string_view kPricingTargetPrefix = "AWSPriceListService.";

struct PricingReply {
  int status = 200;
  std::string body;       // application/x-amz-json-1.1
  std::string errorCode;  // empty on success; for the admin stats
};

// `operation` is the part of X-Amz-Target after the prefix. Errors use the JSON protocol's
// shape {"__type": code, "Message": text} with HTTP 400.
PricingReply servePricing(std::string_view operation, std::string_view body, const Catalog& catalog,
                          const World& world);

// The whole exchange for the front end: the signer's verification result, injected faults
// ("pricing:<Operation>"), stats, and the reply.
http::Response servePricingRequest(const http::Request& request, const std::string& requestId,
                                   const aws::ApiResult<aws::sigv4::Identity>& identity,
                                   Engine& engine, const Catalog& catalog, const World& world);

}  // namespace nodewright::emulators::ec2
