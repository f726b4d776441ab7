// SSM's GetParameter and GetParameters over the world's parameters, in the AWS JSON 1.1
// protocol as botocore reads it: a JSON body, errors as {"__type": code, "message": text} with
// HTTP 400, timestamps as epoch seconds.
#include "emulators/ec2/ssm.h"

#include <set>
#include <utility>

#include <fmt/format.h>

#include "api/reflect/json.h"

namespace nodewright::emulators::ec2 {
namespace {

using api::Json;

// The world's parameters do not change; they report the day the world's images were released.
// GUESS: any fixed date serves, clients only display it.
constexpr double kLastModified = 1731628800;  // 2024-11-15T00:00:00Z

SsmReply error(std::string code, std::string message) {
  Json body{{"__type", code}};
  // SSM sends ParameterNotFound without a message (awslabs/aws-simple-cicd#10 shows an empty
  // one), so an empty message is left out rather than sent as "".
  if (!message.empty()) {
    body["message"] = std::move(message);
  }
  return {400, api::dumpJson(body), std::move(code)};
}

SsmReply ok(const Json& body) {
  return {200, api::dumpJson(body), ""};
}

// Splits "name:selector" (a version or label) from a name; the selector is empty without one.
// Names are paths, so only a ':' after the last '/' starts a selector.
std::pair<std::string, std::string> splitSelector(std::string_view name) {
  size_t slash = name.rfind('/');
  size_t colon = name.find(':', slash == std::string_view::npos ? 0 : slash);
  if (colon == std::string_view::npos) {
    return {std::string(name), ""};
  }
  return {std::string(name.substr(0, colon)), std::string(name.substr(colon + 1))};
}

// The parameter as GetParameter's Parameter shape, or nullopt when the world has none by this
// name. Every parameter here is at version 1, so only the selectors ":1" match besides none.
std::optional<Json> lookup(std::string_view requested, const World& world) {
  auto [name, selector] = splitSelector(requested);
  auto it = world.ssmParameters.find(name);
  if (it == world.ssmParameters.end() || (!selector.empty() && selector != "1")) {
    return std::nullopt;
  }
  // Public parameters (/aws/service/...) have no account in their ARN.
  const bool isPublic = name.starts_with("/aws/");
  Json p{
      {"Name", name},
      {"Type", "String"},
      {"Value", it->second},
      {"Version", 1},
      {"LastModifiedDate", kLastModified},
      {"ARN", fmt::format("arn:aws:ssm:{}:{}:parameter{}{}", world.region,
                          isPublic ? "" : world.accountId, name.starts_with('/') ? "" : "/", name)},
      {"DataType", "text"}};
  if (!selector.empty()) {
    p["Selector"] = ":" + selector;
  }
  return p;
}

std::optional<Json> parseBody(std::string_view body) {
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return std::nullopt;
  }
  return json;
}

SsmReply getParameter(const Json& request, const World& world) {
  auto name = request.find("Name");
  if (name == request.end() || !name->is_string()) {
    return error("ValidationException",
                 "1 validation error detected: Value null at 'name' failed to satisfy "
                 "constraint: Member must not be null");
  }
  auto parameter = lookup(name->get<std::string>(), world);
  if (!parameter) {
    return error("ParameterNotFound", "");
  }
  return ok(Json{{"Parameter", std::move(*parameter)}});
}

SsmReply getParameters(const Json& request, const World& world) {
  auto names = request.find("Names");
  if (names == request.end() || !names->is_array()) {
    return error("ValidationException",
                 "1 validation error detected: Value null at 'names' failed to satisfy "
                 "constraint: Member must not be null");
  }
  if (names->empty() || names->size() > 10) {
    return error("ValidationException",
                 fmt::format("1 validation error detected: Value '{}' at 'names' failed to "
                             "satisfy constraint: Member must have length between 1 and 10",
                             names->dump()));
  }
  Json found = Json::array();
  Json invalid = Json::array();
  std::set<std::string> seen;
  for (const Json& entry : *names) {
    if (!entry.is_string()) {
      return error("SerializationException", "Names must be strings");
    }
    const std::string name = entry.get<std::string>();
    if (!seen.insert(name).second) {
      continue;
    }
    if (auto parameter = lookup(name, world)) {
      found.push_back(std::move(*parameter));
    } else {
      invalid.push_back(name);
    }
  }
  return ok(Json{{"Parameters", std::move(found)}, {"InvalidParameters", std::move(invalid)}});
}

}  // namespace

SsmReply serveSsm(std::string_view operation, std::string_view body, const World& world) {
  if (operation != "GetParameter" && operation != "GetParameters") {
    // GUESS: the code AWS JSON services use for a target they do not know.
    return error("UnknownOperationException",
                 fmt::format("The operation AmazonSSM.{} is not supported", operation));
  }
  auto request = parseBody(body);
  if (!request) {
    return error("SerializationException", "The request body is not a JSON object");
  }
  return operation == "GetParameter" ? getParameter(*request, world)
                                     : getParameters(*request, world);
}

}  // namespace nodewright::emulators::ec2
