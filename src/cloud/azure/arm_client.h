#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cloud/azure/api_versions.h"
#include "cloud/azure/credentials.h"
#include "cloud/azure/transport.h"
#include "core/clock.h"
#include "lro/operation.h"

// Azure Resource Manager as lro::Operations: GET, PUT/PATCH/DELETE that start long-running
// operations, and polls of their serialized pollers (poller.h), over HTTPS with bearer tokens.
namespace nodewright::cloud::azure {

struct ArmClientOptions {
  // scheme://host[:port] of ARM: https://management.azure.com, or an emulator's url().
  std::string endpoint = "https://management.azure.com";
  std::string scope = kArmScope;  // of the bearer tokens
  ApiVersionOverrides apiVersions;
  // Attempts per request, the first included. Only 408, 429, 5xx and no response are retried,
  // each after the response's Retry-After (else baseDelay·2^(n-1), at most maxDelay), and only
  // when that wait ends minRequestTime before the call's timeout: a 429 whose Retry-After does
  // not fit is returned as Throttled at once, never resent early.
  int maxAttempts = 3;
  std::chrono::milliseconds baseDelay{800};
  std::chrono::milliseconds maxDelay{std::chrono::seconds(60)};
  // A request is not sent when less than this is left of the call's timeout once a token is
  // at hand: its answer would likely be lost, and with it a started operation's poller.
  std::chrono::milliseconds minRequestTime{250};
  std::string userAgent = "nodewright";
};

// Thread-safe. `transport`, `credential` and `clock` must outlive it. Every call, token
// acquisition and retries included, ends within its `timeout` on `clock`. Logs (debug) name
// methods, paths and statuses, never headers or bodies. An endpoint that is not https makes
// every call Invalid (InsecureEndpoint) without sending anything. No call throws.
//
// Wiring one against an endpoint with its own CA (the emulator):
//   auto transport = makeCurlTransport({.caPem = server->caPem()});
//   auto credential = cached(std::make_unique<ClientSecretCredential>(
//       EntraOptions{server->url(), tenant, clientId}, secret, *transport, clock), clock);
//   ArmClient arm(options /* endpoint = server->url() */, *transport, *credential, clock);
class ArmClient final : public lro::Operations {
 public:
  ArmClient(ArmClientOptions options, Transport& transport, TokenCredential& credential,
            const core::Clock& clock);

  // lro::Operations
  lro::CallResult<api::Json> get(const lro::ResourceRef& resource,
                                 std::chrono::milliseconds timeout) override;
  lro::CallResult<lro::OpState> begin(lro::Verb verb, const lro::ResourceRef& resource,
                                      const api::Json& parameters,
                                      std::chrono::milliseconds timeout) override;
  lro::CallResult<lro::OpState> poll(const std::string& resumeToken,
                                     std::chrono::milliseconds timeout) override;
  std::optional<std::string> operationInProgress(const api::Json& resource) const override;

  // GET of a collection ("…/virtualMachineScaleSets/NAME/virtualMachines"): every item of
  // ARM's paged list ({value, nextLink}), following nextLink on our endpoint only. The
  // api-version is that of the items' type. Not an lro::Operations call: the futures engine
  // reads single resources.
  lro::CallResult<std::vector<api::Json>> list(const std::string& collectionId,
                                               std::chrono::milliseconds timeout);

  const ArmClientOptions& options() const { return options_; }

 private:
  using Deadline = std::chrono::steady_clock::time_point;

  lro::CallResult<api::Json> getUnguarded(const lro::ResourceRef& resource,
                                          std::chrono::milliseconds timeout);
  lro::CallResult<std::vector<api::Json>> listUnguarded(const std::string& collectionId,
                                                        std::chrono::milliseconds timeout);
  lro::CallResult<lro::OpState> beginUnguarded(lro::Verb verb, const lro::ResourceRef& resource,
                                               const api::Json& parameters,
                                               std::chrono::milliseconds timeout);
  lro::CallResult<lro::OpState> pollUnguarded(const std::string& resumeToken,
                                              std::chrono::milliseconds timeout);

  struct Target {
    std::string url;  // endpoint + id + ?api-version
    std::string apiVersion;
  };
  // Invalid for an id that is not a resource id of a known type.
  lro::CallResult<Target> target(const std::string& id) const;
  std::string resourceUrl(const std::string& id, const std::string& apiVersion) const;
  // Sends with a bearer token and the retries the options allow; any status is a response.
  lro::CallResult<HttpResponse> send(const std::string& method, const std::string& url,
                                     const std::string* body, Deadline deadline);
  // Blocks until `until` on the clock.
  void sleepUntil(Deadline until);

  const ArmClientOptions options_;
  const std::string endpoint_;                       // without a trailing slash
  const std::optional<lro::CallError> configError_;  // set: every call fails with it
  Transport& transport_;
  TokenCredential& credential_;
  const core::Clock& clock_;
  std::mutex sleepMu_;
  std::condition_variable sleepCv_;  // never notified: waits end at their deadline
};

}  // namespace nodewright::cloud::azure
