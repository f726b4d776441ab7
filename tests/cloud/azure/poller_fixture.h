#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>

#include "cloud/azure/poller.h"

// What the poller's unit tests share: an endpoint, a resource and its monitor URLs, and canned
// HTTP answers.
namespace nodewright::cloud::azure::pollertest {

inline const std::string kEndpoint = "https://127.0.0.1:8443";
inline const std::string kVnet =
    "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet";
inline const std::string kAsyncUrl =
    kEndpoint +
    "/subscriptions/s/providers/Microsoft.Network/locations/eastus/operations/op1"
    "?api-version=2023-04-01";
inline const std::string kLocationUrl =
    kEndpoint +
    "/subscriptions/s/providers/Microsoft.Network/locations/eastus/"
    "operationResults/op1?api-version=2023-04-01";
inline const core::TimePoint kNow{std::chrono::seconds(1700000000)};

inline HttpResponse response(int status, std::string body = "",
                             std::map<std::string, std::string> headers = {}) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  return r;
}

// The poller a state's resume token holds.
inline PollerState parsed(const lro::OpState& state) {
  auto poller = parsePoller(state.resumeToken);
  EXPECT_TRUE(poller.has_value()) << state.resumeToken;
  return poller.value_or(PollerState{});
}

}  // namespace nodewright::cloud::azure::pollertest
