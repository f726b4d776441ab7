#include "emulators/ec2/emulator.h"

#include <atomic>
#include <utility>

#include <fmt/format.h>

#include "aws/query.h"
#include "aws/sigv4.h"
#include "aws/xml.h"
#include "core/log.h"
#include "emulators/ec2/pricing.h"
#include "emulators/ec2/sqs.h"
#include "emulators/ec2/ssm.h"
#include "emulators/ec2/state.h"
#include "emulators/engine/state_file.h"

namespace nodewright::emulators::ec2 {
namespace {

constexpr std::string_view kApiVersion = "2016-11-15";
constexpr std::string_view kSsmTargetPrefix = "AmazonSSM.";

http::Response ec2Error(const aws::ApiError& error, std::string_view requestId) {
  http::Response r;
  r.status = error.httpStatus;
  r.contentType = "text/xml;charset=UTF-8";
  r.body = aws::xml::ec2ErrorDocument(error, requestId);
  r.headers.emplace_back("x-amzn-RequestId", std::string(requestId));
  return r;
}

http::Response ssmError(const aws::ApiError& error, std::string_view requestId) {
  http::Response r;
  r.status = error.httpStatus;
  r.contentType = "application/x-amz-json-1.1";
  r.body = api::dumpJson(api::Json{{"__type", error.code}, {"message", error.message}});
  r.headers.emplace_back("x-amzn-RequestId", std::string(requestId));
  return r;
}

// What SigV4 covers of the request: the wire form of path and query.
aws::sigv4::Request signedPart(const http::Request& request) {
  aws::sigv4::Request r;
  r.method = request.method;
  r.path = aws::uriEncode(request.path, /*keepSlash=*/true);
  r.query = request.rawQuery;
  for (const auto& [name, value] : request.headers) {
    r.headers.emplace(name, value);
  }
  r.body = request.body;
  return r;
}

// The usual status and message of an injected error's code, where the fault config gave none.
aws::ApiError injected(const InjectedError& fault) {
  aws::ApiError error{fault.code, fault.message, fault.status};
  if (error.httpStatus == 0) {
    error.httpStatus = (fault.code == "InternalError" || fault.code == "InternalFailure" ||
                        fault.code == "InsufficientInstanceCapacity")
                           ? 500
                       : (fault.code == "RequestLimitExceeded" || fault.code == "Unavailable" ||
                          fault.code == "ServiceUnavailable")
                           ? 503
                           : 400;
  }
  if (error.message.empty()) {
    error.message = fault.code == "RequestLimitExceeded" ? "Request limit exceeded."
                    : fault.code == "InternalError"      ? "An internal error has occurred."
                                                         : "The request failed: " + fault.code;
  }
  return error;
}

// The request's parameters: a form body (POST, what the SDKs send) or the query string (GET).
aws::ApiResult<aws::Params> requestParams(const http::Request& request) {
  if (request.method == "POST" && !request.body.empty()) {
    return aws::Params::parse(request.body);
  }
  return aws::Params::parse(request.rawQuery);
}

}  // namespace

std::map<std::string, Latency, std::less<>> defaultLatencies() {
  using std::chrono::seconds;
  return {
      {"ec2:RunInstances:pending->running", Latency::logNormal(seconds(10), seconds(40))},
      {"ec2:TerminateInstances:shutting-down->terminated",
       Latency::logNormal(seconds(30), seconds(90))},
  };
}

core::Result<std::unique_ptr<Ec2Emulator>> Ec2Emulator::create(const core::Clock& clock,
                                                               Ec2EmulatorOptions options) {
  if (!ScaledClock::validFactor(options.engine.timeScale)) {
    return core::fail(core::Error::invalid(
        fmt::format("time scale {} is out of range", options.engine.timeScale)));
  }
  std::unique_ptr<Ec2Emulator> emulator(new Ec2Emulator(clock, std::move(options)));
  auto world = seedWorld(emulator->engine_.store(), emulator->options_.world);
  if (!world) {
    return core::fail(world.error());
  }
  emulator->world_ = std::move(*world);
  if (const std::string& file = emulator->options_.stateFile; !file.empty()) {
    auto saved = readStateFile(file, kEc2StateFormat, kEc2StateVersion);
    if (!saved) {
      return core::fail(saved.error());
    }
    if (*saved) {
      if (auto restored = emulator->restoreState(**saved); !restored) {
        return core::fail(restored.error().wrap("state file " + file));
      }
      core::logInfo("ec2: restored state", {{"file", file}});
    }
  }
  return emulator;
}

Ec2Emulator::Ec2Emulator(const core::Clock& clock, Ec2EmulatorOptions options)
    : clock_(clock),
      options_(std::move(options)),
      engine_(clock, options_.engine),
      catalog_(std::move(options_.catalog)),
      sqs_(engine_.time()) {
  // AWS's published buckets (EC2 API request throttling), per caller.
  for (const auto& [bucketClass, limits] : aws::ec2BucketLimits()) {
    engine_.throttle().define(bucketClass, {limits.size, limits.refillPerSecond});
  }
  for (const auto& [op, latency] : options_.latencies) {
    engine_.latency().set(op, latency);
  }
  addDescribeActions(actions_);
  addLaunchTemplateActions(actions_);
  addInstanceActions(actions_);
  addInterfaceActions(actions_);
  addCapacityReservationActions(actions_);
  addPlacementGroupActions(actions_);
  if (options_.interruptions) {
    interrupter_.setFault(options_.interruptions);
  }
}

std::string Ec2Emulator::nextRequestId() {
  static std::atomic<uint64_t> counter{0};
  const uint64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  // The shape of AWS request ids (a UUID), unique per process.
  return fmt::format("{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}", static_cast<uint32_t>(n >> 32),
                     static_cast<uint32_t>((n >> 16) & 0xffff), static_cast<uint32_t>(n & 0xfff),
                     static_cast<uint32_t>((n >> 12) & 0xfff), n);
}

http::Response Ec2Emulator::serve(const http::Request& request) {
  const std::string requestId = nextRequestId();
  if (AdminApi::handles(request.path)) {
    // The admin API changes what EC2 answers (faults, capacity) and shows every caller's
    // requests: it takes the same SigV4 signature as the EC2 API, checked before anything runs.
    if (auto identity = authenticate(request, "ec2"); !identity) {
      engine_.stats().recordRequest("admin", identity.error().code);
      return ec2Error(identity.error(), requestId);
    }
    std::string_view path = request.path;
    if (path.ends_with('/')) {
      path.remove_suffix(1);
    }
    if (path == "/admin/faults") {
      return serveAdminFaults(request);
    }
    return std::move(*engine_.admin().serve(request));
  }
  if (request.header("x-amz-target").starts_with(kSsmTargetPrefix)) {
    return serveSsmRequest(request, requestId);
  }
  if (request.header("x-amz-target").starts_with(kSqsTargetPrefix)) {
    return serveSqsRequest(request, requestId, /*json=*/true);
  }
  if (isSqsQueryRequest(request)) {
    return serveSqsRequest(request, requestId, /*json=*/false);
  }
  if (request.header("x-amz-target").starts_with(kPricingTargetPrefix)) {
    return servePricingRequest(request, requestId, authenticate(request, "pricing"), engine_,
                               catalog_, world_);
  }
  return serveEc2(request, requestId);
}

aws::ApiResult<aws::sigv4::Identity> Ec2Emulator::authenticate(const http::Request& request,
                                                               std::string_view service) const {
  auto secret = [this](std::string_view key) -> std::optional<std::string> {
    auto it = options_.credentials.find(key);
    return it == options_.credentials.end() ? std::nullopt : std::optional(it->second);
  };
  return aws::sigv4::verify(signedPart(request), secret, clock_.now(),
                            {world_.region, std::string(service), std::chrono::minutes(15)});
}

http::Response Ec2Emulator::serveEc2(const http::Request& request, const std::string& requestId) {
  auto params = requestParams(request);
  const std::string action = params ? params->strOr("Action", "") : std::string();
  const std::string statsAction = action.empty() ? "(none)" : action;
  auto fail = [&](const aws::ApiError& error) {
    engine_.stats().recordRequest(statsAction, error.code);
    core::logDebug("ec2: request failed",
                   {{"action", statsAction}, {"code", error.code}, {"request-id", requestId}});
    return ec2Error(error, requestId);
  };

  if (request.method != "POST" && request.method != "GET") {
    return fail({"UnsupportedProtocol", "Use POST or GET.", 400});  // GUESS: code
  }
  auto identity = authenticate(request, "ec2");
  if (!identity) {
    return fail(identity.error());
  }
  if (!params) {
    return fail(params.error());
  }
  if (action.empty()) {
    return fail({"MissingAction", "The request must contain the parameter Action.", 400});
  }
  auto entry = actions_.find(action);
  if (entry == actions_.end()) {
    return fail({"InvalidAction",
                 fmt::format("The action {} is not valid for this web service.", action), 400});
  }
  auto version = params->find("Version");
  if (!version) {
    return fail({"MissingParameter", "The request must contain the parameter Version.", 400});
  }
  if (*version != kApiVersion) {
    return fail(
        {"NoSuchVersion",
         fmt::format("The requested version ({}) of service AmazonEC2 does not exist.", *version),
         400});
  }
  if (!engine_.admit(entry->second.bucketClass, identity->accessKeyId)) {
    return fail({"RequestLimitExceeded", "Request limit exceeded.", 503});
  }
  if (auto fault = engine_.faults().roll(action)) {
    return fail(injected(*fault));
  }
  ActionContext context{
      engine_, catalog_, world_, *params, action, requestId, identity->accessKeyId};
  auto body = entry->second.handler(context);
  if (!body) {
    return fail(body.error());
  }
  engine_.stats().recordRequest(action);
  http::Response r;
  r.contentType = "text/xml;charset=UTF-8";
  r.body = std::move(*body);
  r.headers.emplace_back("x-amzn-RequestId", requestId);
  return r;
}

http::Response Ec2Emulator::serveSsmRequest(const http::Request& request,
                                            const std::string& requestId) {
  const std::string operation = request.header("x-amz-target").substr(kSsmTargetPrefix.size());
  auto fail = [&](const aws::ApiError& error) {
    engine_.stats().recordRequest("ssm:" + operation, error.code);
    return ssmError(error, requestId);
  };
  auto identity = authenticate(request, "ssm");
  if (!identity) {
    return fail(identity.error());
  }
  if (auto fault = engine_.faults().roll("ssm:" + operation)) {
    return fail(injected(*fault));
  }
  SsmReply reply;
  {
    std::lock_guard lock(ssmMu_);
    reply = operation == "PutParameter" ? putParameter(request.body, world_)
                                        : serveSsm(operation, request.body, world_);
  }
  if (operation == "PutParameter") {
    ssmChanges_.fetch_add(1, std::memory_order_relaxed);
  }
  engine_.stats().recordRequest("ssm:" + operation, reply.errorCode);
  http::Response r;
  r.status = reply.status;
  r.contentType = "application/x-amz-json-1.1";
  r.body = std::move(reply.body);
  r.headers.emplace_back("x-amzn-RequestId", requestId);
  return r;
}

http::Response Ec2Emulator::serveAdminFaults(const http::Request& request) {
  auto problem = [](std::string message) {
    http::Response r;
    r.status = 400;
    r.body = api::dumpJson(api::Json{{"message", std::move(message)}});
    return r;
  };
  const bool put = request.method == "PUT" || request.method == "POST";
  std::optional<InterruptionFault> interruptions;
  http::Request forwarded = request;
  if (put) {
    api::Json body = api::Json::parse(request.body, nullptr, false);
    if (body.is_object() && body.contains("interruptions")) {
      // Checked before the engine's part changes anything, so a bad body changes nothing.
      auto parsed = parseInterruptionFault(body["interruptions"]);
      if (!parsed) {
        return problem(parsed.error().message());
      }
      interruptions = std::move(*parsed);
      body.erase("interruptions");
      forwarded.body = api::dumpJson(body);
    }
  }
  http::Response response = std::move(*engine_.admin().serve(forwarded));
  if (response.status != 200) {
    return response;
  }
  if (put) {
    interrupter_.setFault(interruptions);  // a PUT replaces the whole configuration
  }
  if (auto current = interrupter_.fault()) {
    api::Json body = api::Json::parse(response.body, nullptr, false);
    if (body.is_object()) {
      body["interruptions"] = toJson(*current);
      response.body = api::dumpJson(body);
    }
  }
  return response;
}

http::Response Ec2Emulator::serveSqsRequest(const http::Request& request,
                                            const std::string& requestId, bool json) {
  auto fail = [&](const aws::ApiError& error) {
    engine_.stats().recordRequest("sqs:(unauthenticated)", error.code);
    return json ? sqsJsonError(error, requestId) : sqsQueryError(error, requestId);
  };
  if (request.method != "POST" && (json || request.method != "GET")) {
    return fail({"UnsupportedProtocol", "Use POST.", 400});  // GUESS: code
  }
  auto identity = authenticate(request, "sqs");
  if (!identity) {
    return fail(identity.error());
  }
  SqsReply reply = json ? serveSqsJson(sqs_, request, world_.accountId, requestId)
                        : serveSqsQuery(sqs_, request, world_.accountId, requestId);
  engine_.stats().recordRequest("sqs:" + reply.operation, reply.errorCode);
  return std::move(reply.response);
}

http::Response Ec2Emulator::tooLarge(size_t limit) const {
  // GUESS: the code; EC2 documents no limit for Query request bodies.
  return ec2Error({"RequestEntityTooLarge",
                   fmt::format("The request body exceeds the limit of {} bytes.", limit), 413},
                  "00000000-0000-4000-8000-000000000000");
}

core::Result<std::unique_ptr<Ec2Server>> Ec2Server::start(const core::Clock& clock,
                                                          Ec2EmulatorOptions options,
                                                          std::string host, uint16_t port) {
  const size_t maxBody = options.maxBodyBytes;
  auto emulator = Ec2Emulator::create(clock, std::move(options));
  if (!emulator) {
    return core::fail(emulator.error());
  }
  std::unique_ptr<Ec2Server> server(new Ec2Server(std::move(*emulator), host));
  Ec2Emulator* emu = server->emulator_.get();
  http::ServerOptions serverOptions;
  serverOptions.host = std::move(host);
  serverOptions.port = port;
  serverOptions.maxBodyBytes = maxBody;
  serverOptions.tooLarge = [emu](size_t limit) { return emu->tooLarge(limit); };
  auto http = http::startServer(std::move(serverOptions),
                                [emu](const http::Request& request, http::Exchange& exchange) {
                                  exchange.respond(emu->serve(request));
                                });
  if (!http) {
    return core::fail(http.error());
  }
  server->server_ = std::move(*http);
  emu->interrupter().start();
  if (const std::string& file = emu->options().stateFile; !file.empty()) {
    server->saver_ =
        std::make_unique<StateSaver>(emu->engine().clock(), file,
                                     StateSaver::Source{[emu] { return emu->stateGeneration(); },
                                                        [emu] { return emu->saveState(); }});
    server->saver_->start();
  }
  return server;
}

Ec2Server::Ec2Server(std::unique_ptr<Ec2Emulator> emulator, std::string host)
    : emulator_(std::move(emulator)), host_(std::move(host)) {}

Ec2Server::~Ec2Server() {
  stop();
}

std::string Ec2Server::url() const {
  return fmt::format("http://{}:{}",
                     host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_,
                     server_->port());
}

void Ec2Server::stop() {
  emulator_->interrupter().stop();
  // Long polls return at once, so the server's connection threads can finish.
  emulator_->sqs().shutdown();
  if (server_) {
    server_->stop();
  }
  // After the server: no request is half done, so the last save is consistent.
  if (saver_) {
    if (auto saved = saver_->stop(); !saved) {
      core::logError("ec2: saving the state file failed", {{"error", saved.error()}});
    }
  }
}

}  // namespace nodewright::emulators::ec2
