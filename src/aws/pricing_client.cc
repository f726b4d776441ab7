#include "aws/pricing_client.h"

#include <charconv>
#include <optional>

#include <fmt/format.h>

namespace nodewright::aws {
namespace {

// GUESS: GetProducts' largest page (its documented MaxResults limit is 100).
constexpr int kPageSize = 100;

nlohmann::json termMatch(const char* field, const std::string& value) {
  return {{"Type", "TERM_MATCH"}, {"Field", field}, {"Value", value}};
}

std::optional<double> parsePrice(const std::string& text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// The member at `path` of nested objects, or nullptr.
const nlohmann::json* at(const nlohmann::json& root, std::initializer_list<const char*> path) {
  const nlohmann::json* node = &root;
  for (const char* key : path) {
    if (!node->is_object()) {
      return nullptr;
    }
    auto it = node->find(key);
    if (it == node->end()) {
      return nullptr;
    }
    node = &*it;
  }
  return node;
}

std::string stringAt(const nlohmann::json& root, std::initializer_list<const char*> path) {
  const nlohmann::json* node = at(root, path);
  return node != nullptr && node->is_string() ? node->get<std::string>() : std::string();
}

// The first positive terms.OnDemand.*.priceDimensions.*.pricePerUnit.USD of a product.
std::optional<double> onDemandUsd(const nlohmann::json& product) {
  const nlohmann::json* onDemand = at(product, {"terms", "OnDemand"});
  if (onDemand == nullptr || !onDemand->is_object()) {
    return std::nullopt;
  }
  for (const auto& term : *onDemand) {
    const nlohmann::json* dimensions = at(term, {"priceDimensions"});
    if (dimensions == nullptr || !dimensions->is_object()) {
      continue;
    }
    for (const auto& dimension : *dimensions) {
      if (auto price = parsePrice(stringAt(dimension, {"pricePerUnit", "USD"}));
          price && *price > 0) {
        return price;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

ApiResult<std::map<std::string, double>> PricingClient::onDemandLinuxPrices(
    const std::string& regionCode) {
  nlohmann::json request{
      {"ServiceCode", "AmazonEC2"},
      {"FormatVersion", "aws_v1"},
      {"MaxResults", kPageSize},
      {"Filters",
       {termMatch("operatingSystem", "Linux"), termMatch("tenancy", "Shared"),
        termMatch("preInstalledSw", "NA"), termMatch("capacitystatus", "Used"),
        termMatch("marketoption", "OnDemand"), termMatch("regionCode", regionCode)}},
  };
  std::map<std::string, double> prices;
  std::string token;
  for (int page = 1;; ++page) {
    if (!token.empty()) {
      request["NextToken"] = token;
    }
    auto response = client_.call("GetProducts", request);
    if (!response) {
      return tl::unexpected(response.error());
    }
    auto list = response->find("PriceList");
    if (list != response->end() && !list->is_array()) {
      return apiFail("MalformedResponse",
                     fmt::format("GetProducts page {}: PriceList is not a list", page), 200);
    }
    for (size_t i = 0; list != response->end() && i < list->size(); ++i) {
      // Each entry is a product document serialized once more, as a string.
      const nlohmann::json& entry = (*list)[i];
      nlohmann::json product = entry.is_string()
                                   ? nlohmann::json::parse(entry.get<std::string>(), nullptr, false)
                                   : entry;
      if (!product.is_object()) {
        return apiFail(
            "MalformedResponse",
            fmt::format("GetProducts page {}: PriceList[{}] is not a product document", page, i),
            200);
      }
      const std::string type = stringAt(product, {"product", "attributes", "instanceType"});
      auto price = onDemandUsd(product);
      if (!type.empty() && price) {
        prices.emplace(type, *price);
      }
    }
    const std::string next = stringAt(*response, {"NextToken"});
    if (next.empty()) {
      return prices;
    }
    // A service that hands back the token it was given would keep us here forever.
    if (next == token) {
      return apiFail("PaginationLoop",
                     fmt::format("GetProducts: page {} returned the NextToken it was sent", page),
                     200);
    }
    token = next;
  }
}

}  // namespace nodewright::aws
