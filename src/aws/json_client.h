#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "aws/error.h"
#include "aws/rate_limiter.h"
#include "aws/retry.h"
#include "aws/signed_call.h"
#include "aws/transport.h"
#include "core/clock.h"

// A client of an AWS JSON protocol service (1.1: SSM, Pricing; 1.0: SQS): a JSON object POSTed
// to "/" with X-Amz-Target: <targetPrefix>.<Operation>, signed with SigV4; the answer is a JSON
// object. The two versions differ only in the Content-Type. Retries, rate limits, timeouts and
// credentials behave as QueryClient's (both run on SignedCaller).
namespace nodewright::aws {

struct JsonClientOptions {
  std::string endpoint;      // "https://ssm.us-east-1.amazonaws.com", "http://127.0.0.1:8080"
  std::string region;        // the signing region: us-east-1 for Pricing, wherever it is asked
  std::string service;       // the signing name: "ssm", "pricing"
  std::string targetPrefix;  // "AmazonSSM", "AWSPriceListService", "AmazonSQS"
  std::string jsonVersion = "1.1";  // "1.0" for SQS: application/x-amz-json-<version>
  CredentialsFn credentials;
  RetryOptions retry;
  // null: no client-side limit. Must outlive the client.
  RateLimiter* limiter = nullptr;
  std::chrono::milliseconds attemptTimeout{30000};
  std::chrono::milliseconds callTimeout{120000};
  SleepFn sleep;  // empty: clockSleep(clock)
};

// Thread-safe; `clock` and `transport` must outlive it.
class JsonClient {
 public:
  JsonClient(const core::Clock& clock, Transport& transport, JsonClientOptions options);

  // Sends `request` (a JSON object) to <targetPrefix>.<operation>; the response's JSON object
  // on 2xx ({} for an empty body, as an operation without output may send; MalformedResponse
  // when it is not one). Otherwise the service's error: its code from
  // the body's "__type" (or the x-amzn-ErrorType header) without any "namespace#" prefix or
  // ":suffix", its message from "message" or "Message", with the HTTP status; "UnknownError"
  // when the response names no code. Retries and other errors as SignedCaller::call.
  ApiResult<nlohmann::json> call(std::string_view operation, const nlohmann::json& request);

  RetryPolicy& retryPolicy() { return caller_.retryPolicy(); }
  const JsonClientOptions& options() const { return options_; }

 private:
  const JsonClientOptions options_;
  SignedCaller caller_;
};

// The error in a JSON 1.0 or 1.1 response outside 2xx, as JsonClient::call reads it.
ApiError parseJsonError(const HttpResponse& response, const std::string& requestId);

}  // namespace nodewright::aws
