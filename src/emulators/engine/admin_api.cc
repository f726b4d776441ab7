#include "emulators/engine/admin_api.h"

#include <string>
#include <string_view>

#include "api/reflect/json.h"
#include "emulators/engine/faults.h"
#include "emulators/engine/resource_store.h"
#include "emulators/engine/stats.h"

namespace nodewright::emulators {
namespace {

constexpr std::string_view kPrefix = "/admin";

http::Response json(int status, const api::Json& body) {
  http::Response r;
  r.status = status;
  r.body = api::dumpJson(body) + "\n";
  return r;
}

http::Response problem(int status, std::string_view message) {
  return json(status, {{"message", std::string(message)}});
}

http::Response methodNotAllowed(std::string allow) {
  http::Response r = problem(405, "method not allowed; use " + allow);
  r.headers.emplace_back("Allow", std::move(allow));
  return r;
}

}  // namespace

bool AdminApi::handles(std::string_view path) {
  return path == kPrefix || (path.starts_with(kPrefix) && path[kPrefix.size()] == '/');
}

AdminApi::AdminApi(Faults& faults, Stats& stats, ResourceStore& store)
    : faults_(faults), stats_(stats), store_(store) {}

bool AdminApi::handle(const http::Request& request, http::Exchange& exchange) {
  auto response = serve(request);
  if (!response) {
    return false;
  }
  exchange.respond(std::move(*response));
  return true;
}

std::optional<http::Response> AdminApi::serve(const http::Request& request) {
  if (!handles(request.path)) {
    return std::nullopt;
  }
  std::string_view path = request.path;
  if (path.ends_with('/')) {
    path.remove_suffix(1);
  }
  if (path == "/admin/stats") {
    if (request.method != "GET") {
      return methodNotAllowed("GET");
    }
    return json(200, stats_.toJson(store_));
  }
  if (path == "/admin/faults") {
    if (request.method == "GET") {
      return json(200, toJson(faults_.config()));
    }
    if (request.method == "PUT" || request.method == "POST") {
      return putFaults(request);
    }
    return methodNotAllowed("GET, PUT, POST");
  }
  return problem(
      404, "no admin endpoint " + request.path + "; there are /admin/stats and /admin/faults");
}

http::Response AdminApi::putFaults(const http::Request& request) {
  // Parsed whole before anything changes: a bad body leaves the running faults as they were.
  api::Json body = api::Json::parse(request.body, nullptr, false);
  if (body.is_discarded()) {
    return problem(400, "body: not valid JSON");
  }
  if (!body.is_object()) {
    return problem(400, "body: must be a JSON object");
  }
  auto config = parseFaultConfig(body);
  if (!config) {
    return problem(400, config.error().message());
  }
  faults_.replace(std::move(*config));
  return json(200, toJson(faults_.config()));
}

}  // namespace nodewright::emulators
