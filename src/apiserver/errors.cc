#include "apiserver/errors.h"

namespace nodewright::apiserver {
namespace {

std::string causeReason(const std::string& message) {
  static const std::pair<const char*, const char*> reasons[] = {
      {"Required value", "FieldValueRequired"},
      {"Invalid value", "FieldValueInvalid"},
      {"Unsupported value", "FieldValueNotSupported"},
      {"Duplicate value", "FieldValueDuplicate"},
      {"Forbidden", "FieldValueForbidden"},
      {"Too many", "FieldValueTooMany"},
      {"Too long", "FieldValueTooLong"},
      {"Not found", "FieldValueNotFound"},
  };
  for (const auto& [prefix, reason] : reasons) {
    if (message.rfind(prefix, 0) == 0) {
      return reason;
    }
  }
  return "FieldValueInvalid";
}

ApiError make(int code, std::string reason, std::string message,
              api::Json details = api::Json::object()) {
  return ApiError{code, std::move(reason), std::move(message), std::move(details)};
}

api::Json objectDetails(const Resource& resource, std::string_view name, bool byKind) {
  api::Json details = {{"name", name},
                       {"group", resource.group},
                       {"kind", byKind ? resource.kind : resource.plural}};
  if (resource.group.empty()) {
    details.erase("group");
  }
  return details;
}

}  // namespace

api::Json ApiError::toStatus() const {
  api::Json status = {
      {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", api::Json::object()},
      {"status", "Failure"}, {"message", message}, {"reason", reason},
      {"code", code}};
  if (reason.empty()) {
    status.erase("reason");
  }
  if (details.is_object() && !details.empty()) {
    status["details"] = details;
  }
  return status;
}

http::Response ApiError::toResponse() const {
  http::Response response = jsonResponse(code, toStatus());
  if (details.is_object() && details.contains("retryAfterSeconds")) {
    response.headers.emplace_back("Retry-After",
                                  std::to_string(details["retryAfterSeconds"].get<int>()));
  }
  return response;
}

http::Response jsonResponse(int code, const api::Json& body) {
  return http::Response{code, "application/json", api::dumpJson(body), {}};
}

http::Response textJsonResponse(int code, std::string body) {
  return http::Response{code, "application/json", std::move(body), {}};
}

namespace errors {

ApiError badRequest(std::string message) {
  return make(400, "BadRequest", std::move(message));
}

ApiError unauthorized() {
  return make(401, "Unauthorized", "Unauthorized");
}

ApiError forbidden(std::string message) {
  return make(403, "Forbidden", std::move(message));
}

ApiError notFound(const Resource& resource, std::string_view name) {
  return make(404, "NotFound",
              resource.qualifiedPlural() + " \"" + std::string(name) + "\" not found",
              objectDetails(resource, name, false));
}

ApiError notFoundPath(std::string_view path) {
  return make(404, "NotFound", "the server could not find the requested resource",
              {{"causes",
                {{{"reason", "UnexpectedServerResponse"},
                  {"message", "404 page not found: " + std::string(path)}}}}});
}

ApiError methodNotAllowed(std::string_view method, std::string_view what) {
  return make(405, "MethodNotAllowed",
              "the server does not allow this method on the requested resource (" +
                  std::string(method) + " " + std::string(what) + ")");
}

ApiError alreadyExists(const Resource& resource, std::string_view name) {
  return make(409, "AlreadyExists",
              resource.qualifiedPlural() + " \"" + std::string(name) + "\" already exists",
              objectDetails(resource, name, false));
}

ApiError conflict(const Resource& resource, std::string_view name, std::string_view why) {
  return make(409, "Conflict",
              "Operation cannot be fulfilled on " + resource.qualifiedPlural() + " \"" +
                  std::string(name) + "\": " + std::string(why),
              objectDetails(resource, name, false));
}

ApiError staleObject(const Resource& resource, std::string_view name) {
  return conflict(resource, name,
                  "the object has been modified; please apply your changes to the latest "
                  "version and try again");
}

ApiError invalid(const Resource& resource, std::string_view name, const api::FieldErrors& causes) {
  std::string list;
  api::Json jsonCauses = api::Json::array();
  for (const auto& e : causes) {
    if (!list.empty()) {
      list += ", ";
    }
    list += e.toString();
    jsonCauses.push_back(
        {{"reason", causeReason(e.message)}, {"message", e.message}, {"field", e.path}});
  }
  if (causes.size() > 1) {
    list = "[" + list + "]";
  }
  api::Json details = objectDetails(resource, name, true);
  details["causes"] = std::move(jsonCauses);
  return make(422, "Invalid",
              resource.qualifiedKind() + " \"" + std::string(name) + "\" is invalid: " + list,
              std::move(details));
}

ApiError gone(std::string message) {
  return make(410, "Expired", std::move(message));
}

ApiError tooLarge(size_t limit) {
  return make(413, "RequestEntityTooLarge",
              "Request entity too large: limit is " + std::to_string(limit));
}

ApiError unsupportedMediaType(std::string_view contentType) {
  return make(415, "UnsupportedMediaType",
              "the body of the request was in an unknown format - accepted media types include: "
              "application/json-patch+json, application/merge-patch+json, "
              "application/apply-patch+yaml (got " +
                  std::string(contentType) + ")");
}

ApiError notAcceptable(std::string message) {
  return make(406, "NotAcceptable", std::move(message));
}

ApiError tooManyRequests(std::string message, api::Json causes) {
  api::Json details = {{"causes", std::move(causes)}, {"retryAfterSeconds", 10}};
  return make(429, "TooManyRequests", std::move(message), std::move(details));
}

ApiError tooManyRequestsInFlight() {
  return make(429, "TooManyRequests", "Too many requests, please try again later.",
              {{"retryAfterSeconds", 1}});
}

ApiError internal(std::string message) {
  return make(500, "InternalError", "Internal error occurred: " + message);
}

}  // namespace errors
}  // namespace nodewright::apiserver
