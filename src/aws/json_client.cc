#include "aws/json_client.h"

#include <fmt/format.h>

namespace nodewright::aws {
namespace {

// "com.amazonaws.ssm#ParameterNotFound" and "ParameterNotFound:http://internal.amazon.com/..."
// both mean ParameterNotFound, as the AWS SDKs read them.
std::string bareCode(std::string_view code) {
  if (size_t hash = code.rfind('#'); hash != std::string_view::npos) {
    code.remove_prefix(hash + 1);
  }
  if (size_t colon = code.find(':'); colon != std::string_view::npos) {
    code = code.substr(0, colon);
  }
  return std::string(code);
}

std::string stringField(const nlohmann::json& body, std::initializer_list<const char*> names) {
  if (!body.is_object()) {
    return "";
  }
  for (const char* name : names) {
    if (auto it = body.find(name); it != body.end() && it->is_string()) {
      return it->get<std::string>();
    }
  }
  return "";
}

}  // namespace

ApiError parseJsonError(const HttpResponse& response, const std::string& requestId) {
  const nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
  std::string code = bareCode(stringField(body, {"__type", "code"}));
  if (code.empty()) {
    if (auto it = response.headers.find("x-amzn-errortype"); it != response.headers.end()) {
      code = bareCode(it->second);
    }
  }
  std::string message = stringField(body, {"message", "Message", "errorMessage"});
  if (code.empty()) {
    return ApiError{"UnknownError",
                    fmt::format("HTTP {} without an error code (request id {})", response.status,
                                requestId.empty() ? "none" : requestId),
                    response.status};
  }
  return ApiError{std::move(code), std::move(message), response.status};
}

JsonClient::JsonClient(const core::Clock& clock, Transport& transport, JsonClientOptions options)
    : options_(std::move(options)),
      caller_(clock, transport, signedCallOptions(options_, "json")) {}

ApiResult<nlohmann::json> JsonClient::call(std::string_view operation,
                                           const nlohmann::json& request) {
  SignedRequest signedRequest{
      .operation = operation,
      .contentType = "application/x-amz-json-" + options_.jsonVersion,
      .headers = {{"X-Amz-Target", fmt::format("{}.{}", options_.targetPrefix, operation)}},
      .body = request.is_null()
                  ? std::string("{}")
                  : request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
  };
  auto body = caller_.call(signedRequest, parseJsonError);
  if (!body) {
    return tl::unexpected(body.error());
  }
  if (body->empty()) {
    return nlohmann::json::object();
  }
  nlohmann::json parsed = nlohmann::json::parse(*body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return apiFail(
        "MalformedResponse",
        fmt::format("{}.{}: the response is not a JSON object", options_.targetPrefix, operation),
        200);
  }
  return parsed;
}

}  // namespace nodewright::aws
