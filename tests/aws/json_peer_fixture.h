#pragma once

#include <memory>
#include <string>

#include "aws/json_client.h"
#include "aws/transport.h"
#include "core/clock.h"

// A JsonClient for the tests' real peers (the EC2 emulator's SSM and Pricing, moto), signed as
// nodewright/nodewright, its waits advancing `clock` when that is a FakeClock.
namespace nodewright::aws::testing {

inline std::unique_ptr<JsonClient> jsonClientFor(const core::Clock& clock, Transport& transport,
                                                 const std::string& endpoint,
                                                 const std::string& service,
                                                 const std::string& targetPrefix,
                                                 core::FakeClock* fake = nullptr) {
  JsonClientOptions o;
  o.endpoint = endpoint;
  o.region = "us-east-1";
  o.service = service;
  o.targetPrefix = targetPrefix;
  o.credentials = [] {
    return ApiResult<sigv4::Credentials>(sigv4::Credentials{"nodewright", "nodewright", ""});
  };
  o.retry.seed = 9;
  if (fake != nullptr) {
    o.sleep = [fake](std::chrono::nanoseconds d) {
      fake->advance(std::chrono::duration_cast<std::chrono::microseconds>(d) +
                    std::chrono::microseconds(1));
    };
  }
  return std::make_unique<JsonClient>(clock, transport, std::move(o));
}

}  // namespace nodewright::aws::testing
