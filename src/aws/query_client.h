#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include <pugixml.hpp>

#include "aws/error.h"
#include "aws/query.h"
#include "aws/rate_limiter.h"
#include "aws/retry.h"
#include "aws/signed_call.h"
#include "aws/sigv4.h"
#include "aws/transport.h"
#include "core/clock.h"

// A client of an AWS Query-protocol service (EC2, Version 2016-11-15): form-encoded POSTs
// signed with SigV4, XML answers, retries and client-side rate limits.
namespace nodewright::aws {

struct QueryClientOptions {
  std::string endpoint;  // "https://ec2.us-east-1.amazonaws.com", "http://127.0.0.1:8080"
  std::string region;
  std::string service = "ec2";
  std::string version = "2016-11-15";
  CredentialsFn credentials;
  RetryOptions retry;
  // Shared with the other clients of the same account and region; null: no client-side limit.
  // Must outlive the client.
  RateLimiter* limiter = nullptr;
  // One HTTP exchange, and the whole call: rate-limit waits, attempts and backoffs.
  std::chrono::milliseconds attemptTimeout{30000};
  std::chrono::milliseconds callTimeout{120000};
  // How the client waits (backoff, rate limits); empty: clockSleep(clock).
  SleepFn sleep;
};

// Thread-safe; `clock` and `transport` must outlive it.
class QueryClient {
 public:
  QueryClient(const core::Clock& clock, Transport& transport, QueryClientOptions options);

  // Sends Action=<action>&Version=<version>&<params>; the response body (XML) on 2xx. Otherwise
  // the service's error (parsed from its error document, with the HTTP status; "UnknownError"
  // when the body has no such document), or a transport error (httpStatus 0), after the
  // retries the error allows (see error_class.h and retry.h); the credentials source's error
  // as it is, unretried; ClientRateLimited when the limiter's token would come too late.
  ApiResult<std::string> call(std::string_view action, const ParamPairs& params);

  // Calls `action` page after page, passing NextToken from each response's nextToken, until a
  // page has none or `onPage` returns false. Returns the number of pages read. An error stops
  // the walk; pages already passed stay passed.
  ApiResult<int> paginate(std::string_view action, const ParamPairs& params,
                          const std::function<bool(const pugi::xml_document& page)>& onPage);

  RetryPolicy& retryPolicy() { return caller_.retryPolicy(); }
  const QueryClientOptions& options() const { return options_; }

 private:
  const QueryClientOptions options_;
  SignedCaller caller_;
};

}  // namespace nodewright::aws
