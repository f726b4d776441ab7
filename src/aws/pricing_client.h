#pragma once

#include <map>
#include <string>

#include "aws/error.h"
#include "aws/json_client.h"

// The AWS Price List Query API (GetProducts), for on-demand prices fresher than the built-in
// table. Its endpoint lives in a few regions only (us-east-1 among them); the prices it gives
// are for any region.
namespace nodewright::aws {

// Thread-safe when the JsonClient is. The client must target "AWSPriceListService" (service
// "pricing", signing region us-east-1).
class PricingClient {
 public:
  explicit PricingClient(JsonClient& client) : client_(client) {}

  // USD per hour by instance type for EC2 on-demand Linux, shared tenancy, no pre-installed
  // software, in `regionCode` ("us-east-1"), every page. A product without a positive USD
  // price is left out; a PriceList entry that is not a product document is MalformedResponse.
  ApiResult<std::map<std::string, double>> onDemandLinuxPrices(const std::string& regionCode);

 private:
  JsonClient& client_;
};

}  // namespace nodewright::aws
