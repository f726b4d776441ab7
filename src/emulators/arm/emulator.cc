#include "emulators/arm/emulator.h"
#include "core/text.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "core/log.h"
#include "emulators/arm/path.h"
#include "emulators/arm/state.h"
#include "emulators/engine/state_file.h"

namespace nodewright::emulators::arm {
namespace {

using api::Json;

int defaultStatus(const std::string& code) {
  if (code.find("Internal") != std::string::npos) {
    return 500;
  }
  if (code == "TooManyRequests" || code == "SubscriptionRequestsThrottled") {
    return 429;
  }
  if (code == "ServiceUnavailable") {
    return 503;
  }
  if (code == "GatewayTimeout") {
    return 504;
  }
  if (code == "Conflict" || code == "AnotherOperationInProgress") {
    return 409;
  }
  return 400;
}

std::string defaultMessage(const std::string& code) {
  if (code == "AllocationFailed" || code == "ZonalAllocationFailed") {
    return "Allocation failed. We do not have sufficient capacity for the requested VM size in "
           "this region. Read more about improving likelihood of allocation success at "
           "http://aka.ms/allocation-guidance";
  }
  if (code == "QuotaExceeded" || code == "OperationNotAllowed") {
    return "Operation could not be completed as it results in exceeding approved quota.";
  }
  if (code.find("Internal") != std::string::npos) {
    return "An internal error occurred in the resource provider. Please retry.";
  }
  return fmt::format("The operation failed ({}).", code);
}

http::Response toHttp(const Reply& reply) {
  http::Response r;
  r.status = reply.status;
  r.contentType = "application/json; charset=utf-8";
  if (!reply.body.is_null()) {
    r.body = api::dumpJson(reply.body);
  }
  r.headers = reply.headers;
  return r;
}

std::string verbOf(const std::string& method, bool collection) {
  if (method == "GET") {
    return collection ? "List" : "Get";
  }
  if (method == "HEAD") {
    return "CheckExistence";
  }
  if (method == "PUT") {
    return "CreateOrUpdate";
  }
  if (method == "PATCH") {
    return "Update";
  }
  if (method == "DELETE") {
    return "Delete";
  }
  return method;
}

// The count of PUT counters at which they are first pruned; then twice what a prune leaves.
constexpr size_t kPrunePutsAt = 4096;

// "location eq 'eastus'" from a SKU list's $filter.
std::string filteredLocation(const std::string& filter) {
  static const std::regex location(R"(location\s+eq\s+'([^']*)')", std::regex::icase);
  std::smatch m;
  return std::regex_search(filter, m, location) ? m[1].str() : std::string();
}

}  // namespace

core::Result<std::unique_ptr<ArmEmulator>> ArmEmulator::create(const core::Clock& clock,
                                                               ArmEmulatorOptions options) {
  if (!ScaledClock::validFactor(options.engine.timeScale)) {
    return core::fail(core::Error::invalid(
        fmt::format("time scale {} is out of range", options.engine.timeScale)));
  }
  auto skus = options.vmSizesFile.empty()
                  ? SkuCatalog::builtin(options.skuLocations)
                  : SkuCatalog::load(options.vmSizesFile, options.skuLocations);
  if (!skus) {
    return core::fail(skus.error());
  }
  std::unique_ptr<ArmEmulator> emulator(
      new ArmEmulator(clock, std::move(options), std::move(*skus)));
  if (const std::string& file = emulator->options_.stateFile; !file.empty()) {
    auto saved = readStateFile(file, kArmStateFormat, kArmStateVersion);
    if (!saved) {
      return core::fail(saved.error());
    }
    if (*saved) {
      if (auto restored = emulator->restoreState(**saved); !restored) {
        return core::fail(restored.error().wrap("state file " + file));
      }
      core::logInfo("arm: restored state", {{"file", file}});
    }
  }
  return emulator;
}

ArmEmulator::ArmEmulator(const core::Clock& clock, ArmEmulatorOptions options, SkuCatalog skus)
    : options_(std::move(options)),
      engine_(clock, options_.engine),
      skus_(std::move(skus)),
      identity_(clock,
                [&] {
                  IdentityOptions o;
                  o.tenantId = options_.tenantId;
                  o.clientSecrets = options_.clientSecrets;
                  o.federatedCredentials = options_.federatedCredentials;
                  o.clientCertificates = options_.clientCertificates;
                  o.managedIdentityClientId = options_.managedIdentityClientId;
                  return o;
                }()),
      rateLimits_(clock, options_.engine.timeScale),
      model_(engine_, skus_, options_.maxRetainedOperations),
      prunePutsAt_(kPrunePutsAt) {
  for (const auto& [op, latency] : options_.latencies) {
    engine_.latency().set(op, latency);
  }
}

http::Response ArmEmulator::serve(const http::Request& request) {
  // Nothing may escape to the server's connection thread.
  try {
    const std::vector<std::string> segs = splitPath(request.path);
    if (request.path == "/admin/stats" && request.method == "GET") {
      return toHttp(jsonReply(200, stats()));
    }
    if (auto admin = engine_.admin().serve(request)) {
      return std::move(*admin);
    }
    if (segs.size() == 4 && segs[1] == "oauth2" && segs[2] == "v2.0" && segs[3] == "token" &&
        request.method == "POST") {
      return identity_.token(request, segs[0]);
    }
    if (segs == std::vector<std::string>{"metadata", "identity", "oauth2", "token"}) {
      return identity_.managedIdentityToken(request);
    }
    if (segs.size() == 4 && segs[1] == "v2.0" && segs[2] == ".well-known" &&
        segs[3] == "openid-configuration") {
      return identity_.openidConfiguration(segs[0], originOf(request));
    }
    std::string action = "(none)";
    Reply reply = serveArm(request, action);
    engine_.stats().recordRequest(action, reply.errorCode);
    if (!reply.errorCode.empty()) {
      core::logDebug("arm: request failed",
                     {{"action", action}, {"code", reply.errorCode}, {"status", reply.status}});
    }
    return toHttp(reply);
  } catch (const std::exception& e) {
    core::logError("arm: request threw", {{"error", e.what()}});
    return toHttp(errorReply(
        armError(500, "InternalServerError", "The server encountered an internal error.")));
  }
}

Reply ArmEmulator::serveArm(const http::Request& request, std::string& action) {
  const std::string requestId = newUuid();
  const std::string correlation = request.header("x-ms-correlation-request-id");
  auto finish = [&](Reply reply) {
    reply.headers.emplace_back("x-ms-request-id", requestId);
    reply.headers.emplace_back("x-ms-correlation-request-id",
                               correlation.empty() ? requestId : correlation);
    if (const std::string client = request.header("x-ms-client-request-id"); !client.empty()) {
      reply.headers.emplace_back("x-ms-client-request-id", client);
    }
    return reply;
  };
  const std::vector<std::string> segs = splitPath(request.path);
  if (segs.size() < 2 || !core::equalsIgnoreCase(segs[0], "subscriptions")) {
    return finish(errorReply(
        armError(404, "NotFound",
                 fmt::format("No HTTP resource was found that matches the request URI '{}'.",
                             request.path))));
  }
  RequestContext ctx;
  ctx.apiVersion = request.param("api-version");
  if (ctx.apiVersion.empty()) {
    return finish(errorReply(armError(400, "MissingApiVersionParameter",
                                      "The api-version query parameter (?api-version=) is "
                                      "required for all requests.")));
  }
  static const std::regex versionShape(R"(^\d{4}-\d{2}-\d{2}(-[A-Za-z0-9.]+)?$)");
  if (!std::regex_match(ctx.apiVersion, versionShape)) {
    return finish(errorReply(armError(400, "InvalidApiVersionParameter",
                                      fmt::format("The api-version '{}' is invalid. The supported "
                                                  "versions are dates such as '2024-03-01'.",
                                                  ctx.apiVersion))));
  }
  auto principal = identity_.verify(request);
  if (!principal) {
    return finish(errorReply(principal.error()));
  }
  ctx.baseUrl = originOf(request);
  if (request.method == "PUT") {
    if (auto path = parseResourcePath(request.path); path && !path->collection) {
      std::lock_guard lock(putsMu_);
      ++puts_[path->key()].n;
      if (puts_.size() >= prunePutsAt_) {
        prunePutsLocked();
        prunePutsAt_ = std::max(kPrunePutsAt, 2 * puts_.size());
      }
    }
  }
  const RequestClass requestClass = request.method == "GET" || request.method == "HEAD"
                                        ? RequestClass::Reads
                                    : request.method == "DELETE" ? RequestClass::Deletes
                                                                 : RequestClass::Writes;
  const Admission admitted =
      rateLimits_.take(requestClass, segs[1], principal->objectId, engine_.faults().throttling());
  if (!admitted.allowed) {
    action = "(throttled)";
    const std::string wait = retryAfterSeconds(admitted.retryAfter);
    ArmError e = armError(429, "SubscriptionRequestsThrottled",
                          fmt::format("Number of '{}' requests for subscription '{}' actor '{}' "
                                      "exceeded. Please try again after '{}' seconds after "
                                      "additional tokens are available. Refer to "
                                      "https://aka.ms/arm-throttling",
                                      className(requestClass), segs[1], principal->objectId, wait));
    e.headers.emplace_back("Retry-After", wait);
    e.headers.emplace_back(remainingHeader(requestClass), "0");
    return finish(errorReply(e));
  }
  Reply reply = route(request, segs, ctx, action);
  reply.headers.emplace_back(remainingHeader(requestClass), std::to_string(admitted.remaining));
  return finish(std::move(reply));
}

Reply ArmEmulator::route(const http::Request& request, const std::vector<std::string>& segs,
                         RequestContext& ctx, std::string& action) {
  const std::string& method = request.method;
  const std::string& subscription = segs[1];
  if (segs.size() == 2 && method == "GET") {
    action = "Subscriptions_Get";
    return jsonReply(200, {{"id", "/subscriptions/" + subscription},
                           {"subscriptionId", subscription},
                           {"tenantId", options_.tenantId},
                           {"displayName", "nodewright emulated subscription"},
                           {"state", "Enabled"}});
  }
  if (segs.size() >= 4 && core::equalsIgnoreCase(segs[2], "providers")) {
    if (segs.size() == 5 && core::equalsIgnoreCase(segs[3], "Microsoft.Compute") &&
        core::equalsIgnoreCase(segs[4], "skus") && method == "GET") {
      action = "ResourceSkus_List";
      return jsonReply(200, skus_.list(filteredLocation(request.param("$filter"))));
    }
    if (segs.size() == 8 && core::equalsIgnoreCase(segs[4], "locations") && method == "GET") {
      if (core::equalsIgnoreCase(segs[6], "operations")) {
        action = "AsyncOperations_Get";
        return model_.operationStatus(subscription, segs[7]);
      }
      if (core::equalsIgnoreCase(segs[6], "operationResults")) {
        action = "OperationResults_Get";
        return model_.operationResult(subscription, segs[7], ctx);
      }
    }
  }
  auto path = parseResourcePath(request.path);
  if (!path) {
    return errorReply(path.error());
  }
  action = path->type->group + "_" + verbOf(method, path->collection);
  const bool read = method == "GET" || method == "HEAD";
  const bool allowed =
      read || (!path->collection && (method == "PUT" || method == "PATCH" || method == "DELETE"));
  if (!allowed) {
    return errorReply(armError(
        405, "MethodNotAllowed",
        fmt::format("The requested method {} is not allowed for {}.", method, request.path)));
  }
  if (auto fault = engine_.faults().roll(action)) {
    if (fault->message.empty()) {
      fault->message = defaultMessage(fault->code);
    }
    if (read || fault->status != 0) {
      return errorReply(armError(fault->status != 0 ? fault->status : defaultStatus(fault->code),
                                 fault->code, fault->message));
    }
    ctx.failure = std::move(*fault);
  }
  if (method == "GET") {
    return path->collection ? model_.list(*path) : model_.get(*path);
  }
  if (method == "HEAD") {
    return model_.head(*path);
  }
  if (method == "DELETE") {
    return model_.remove(*path, ctx);
  }
  Json body = Json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return errorReply(armError(400, "InvalidRequestContent",
                               "The request content was invalid and could not be deserialized: "
                               "the body must be a JSON object."));
  }
  return method == "PUT" ? model_.put(*path, body, ctx) : model_.patch(*path, body, ctx);
}

http::Response ArmEmulator::tooLarge(size_t limit) const {
  return toHttp(errorReply(armError(413, "RequestEntityTooLarge",
                                    fmt::format("The request content exceeds the limit of {} "
                                                "bytes.",
                                                limit))));
}

std::string ArmEmulator::originOf(const http::Request& request) const {
  // The address the client used, so operation URLs work however it reached the emulator; a
  // Host without a port (some clients omit it) would lose the port, so the server's own URL.
  const std::string host = request.header("host");
  const size_t bracket = host.rfind(']');
  const size_t colon = host.rfind(':');
  const bool hasPort =
      colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
  return hasPort ? "https://" + host : baseUrl();
}

void ArmEmulator::setBaseUrl(std::string url) {
  std::lock_guard lock(baseUrlMu_);
  baseUrl_ = std::move(url);
}

std::string ArmEmulator::baseUrl() const {
  std::lock_guard lock(baseUrlMu_);
  return baseUrl_;
}

uint64_t ArmEmulator::puts(std::string_view resourceId) const {
  std::lock_guard lock(putsMu_);
  auto it = puts_.find(core::lowerAscii(resourceId));
  return it == puts_.end() ? 0 : it->second.n;
}

void ArmEmulator::prunePutsLocked() {
  const core::TimePoint now = engine_.time().now();
  const auto retention = model_.operationRetention();
  for (auto it = puts_.begin(); it != puts_.end();) {
    bool exists = false;
    if (auto path = parseResourcePath(it->first); path && !path->collection) {
      auto stored = engine_.store().get(path->type->key(), it->first);
      exists = stored && stored->live();
    }
    PutCount& count = it->second;
    if (exists) {
      count.goneSince.reset();
    } else if (!count.goneSince) {
      count.goneSince = now;
    } else if (now - *count.goneSince >= retention) {
      it = puts_.erase(it);
      continue;
    }
    ++it;
  }
}

Json ArmEmulator::stats() {
  Json out = engine_.stats().toJson(engine_.store());
  Json puts = Json::object();
  {
    std::lock_guard lock(putsMu_);
    prunePutsLocked();
    for (const auto& [id, count] : puts_) {
      puts[id] = count.n;
    }
  }
  out["puts"] = std::move(puts);
  out["operationsInFlight"] = model_.operationsInFlight();
  return out;
}

}  // namespace nodewright::emulators::arm
