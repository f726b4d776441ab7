// SSM's GetParameter, GetParameters and PutParameter over the world's parameters, in the AWS
// JSON 1.1 protocol as botocore reads it: a JSON body, errors as {"__type": code, "message": text}
// with HTTP 400, timestamps as epoch seconds.
#include "emulators/ec2/ssm.h"

#include <set>
#include <utility>

#include <fmt/format.h>

#include "api/reflect/json.h"

namespace nodewright::emulators::ec2 {
namespace {

using api::Json;

// Parameters report the day the world's images were released, also once PutParameter changed
// them. GUESS: any fixed date serves, clients only display it.
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

int64_t versionOf(const World& world, const std::string& name) {
  auto it = world.ssmVersions.find(name);
  return it == world.ssmVersions.end() ? 1 : it->second;
}

// The parameter as GetParameter's Parameter shape, or nullopt when the world has none by this
// name. Only the current value is kept, so a version selector matches the current version only.
std::optional<Json> lookup(std::string_view requested, const World& world) {
  auto [name, selector] = splitSelector(requested);
  auto it = world.ssmParameters.find(name);
  const int64_t version = it == world.ssmParameters.end() ? 0 : versionOf(world, name);
  if (it == world.ssmParameters.end() ||
      (!selector.empty() && selector != std::to_string(version))) {
    return std::nullopt;
  }
  // Public parameters (/aws/service/...) have no account in their ARN.
  const bool isPublic = name.starts_with("/aws/");
  Json p{
      {"Name", name},
      {"Type", "String"},
      {"Value", it->second},
      {"Version", version},
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

SsmReply putParameter(std::string_view body, World& world) {
  auto request = parseBody(body);
  if (!request) {
    return error("SerializationException", "The request body is not a JSON object");
  }
  for (const char* member : {"Name", "Value"}) {
    auto it = request->find(member);
    if (it == request->end() || !it->is_string()) {
      return error("ValidationException",
                   fmt::format("1 validation error detected: Value null at '{}' failed to "
                               "satisfy constraint: Member must not be null",
                               member == std::string_view("Name") ? "name" : "value"));
    }
  }
  const std::string name = (*request)["Name"].get<std::string>();
  const std::string value = (*request)["Value"].get<std::string>();
  auto type = request->find("Type");
  if (type != request->end() && *type != "String") {
    // GUESS: the code and message; the world keeps strings only.
    return error("ValidationException",
                 "The emulator keeps String parameters only (Type must be String)");
  }
  auto overwrite = request->find("Overwrite");
  const bool mayOverwrite =
      overwrite != request->end() && overwrite->is_boolean() && overwrite->get<bool>();
  auto existing = world.ssmParameters.find(name);
  int64_t version = 1;
  if (existing != world.ssmParameters.end()) {
    if (!mayOverwrite) {
      // CONFIRMED: SSM's words (the PutParameter reference, ParameterAlreadyExists).
      return error("ParameterAlreadyExists",
                   "The parameter already exists. To overwrite this value, set the overwrite "
                   "option in the request to true.");
    }
    version = versionOf(world, name) + 1;
    existing->second = value;
  } else {
    world.ssmParameters.emplace(name, value);
  }
  world.ssmVersions[name] = version;
  return ok(Json{{"Version", version}, {"Tier", "Standard"}});
}

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
