#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "aws/error.h"
#include "aws/rate_limiter.h"
#include "aws/retry.h"
#include "aws/sigv4.h"
#include "aws/transport.h"
#include "core/clock.h"

// What every AWS protocol client (Query, JSON 1.1) does around one serialized request: sign it
// with SigV4, wait for the rate limiter, send it, and retry what the error allows within the
// retry budget and the call's deadline. The protocols differ only in the body they build and
// in how they read an error out of a response.
namespace nodewright::aws {

// The credentials to sign the next request with. Called once per attempt, so a source that
// refreshes (web identity, IMDS) hands out fresh ones. Must be thread-safe.
using CredentialsFn = std::function<ApiResult<sigv4::Credentials>()>;

struct SignedCallOptions {
  std::string endpoint;  // "https://ec2.us-east-1.amazonaws.com", "http://127.0.0.1:8080"
  std::string region;
  std::string service;   // the SigV4 signing name: "ec2", "ssm", "pricing"
  std::string protocol;  // "query", "json": only for the log
  CredentialsFn credentials;
  RetryOptions retry;
  // null: no client-side limit. Must outlive the caller.
  RateLimiter* limiter = nullptr;
  // One HTTP exchange, and the whole call: rate-limit waits, attempts and backoffs.
  std::chrono::milliseconds attemptTimeout{30000};
  std::chrono::milliseconds callTimeout{120000};
  SleepFn sleep;  // empty: clockSleep(clock)
};

// The shared fields of a protocol client's options (QueryClientOptions, JsonClientOptions).
template <class ClientOptions>
SignedCallOptions signedCallOptions(const ClientOptions& o, std::string protocol) {
  SignedCallOptions out;
  out.endpoint = o.endpoint;
  out.region = o.region;
  out.service = o.service;
  out.protocol = std::move(protocol);
  out.credentials = o.credentials;
  out.retry = o.retry;
  out.limiter = o.limiter;
  out.attemptTimeout = o.attemptTimeout;
  out.callTimeout = o.callTimeout;
  out.sleep = o.sleep;
  return out;
}

// One request as its protocol serialized it.
struct SignedRequest {
  std::string_view operation;  // the action or operation: rate-limit class and log
  std::string contentType;
  sigv4::Headers headers;  // signed and sent besides Host and Content-Type (X-Amz-Target)
  std::string body;
};

// The service's error in a response outside 2xx, as the protocol reads it. `requestId` is for
// messages about bodies that hold no error document.
using ErrorReader =
    std::function<ApiError(const HttpResponse& response, const std::string& requestId)>;

// Thread-safe; `clock` and `transport` must outlive it. Logs the operation, status, attempt,
// duration and request id of each exchange at debug level: never headers or bodies, which
// carry credentials and user data.
class SignedCaller {
 public:
  SignedCaller(const core::Clock& clock, Transport& transport, SignedCallOptions options);

  // The response body on 2xx. Otherwise readError's error, or a transport error (httpStatus
  // 0), after the retries the error allows (see error_class.h and retry.h); the credentials
  // source's error as it is, unretried; ClientRateLimited when the limiter's token would come
  // too late.
  ApiResult<std::string> call(const SignedRequest& request, const ErrorReader& readError);

  RetryPolicy& retryPolicy() { return retry_; }
  const SignedCallOptions& options() const { return options_; }

 private:
  ApiResult<std::string> attemptOnce(const SignedRequest& request, const ErrorReader& readError,
                                     const sigv4::Credentials& credentials, int attempt,
                                     std::chrono::steady_clock::time_point deadline);

  const core::Clock& clock_;
  Transport& transport_;
  const SignedCallOptions options_;
  const SleepFn sleep_;
  std::string host_;  // the Host header: host[:port], the port only when not the scheme's
  std::string path_;  // of the endpoint, "/" when it has none
  RetryPolicy retry_;
};

}  // namespace nodewright::aws
