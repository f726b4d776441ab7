#pragma once

#include <string>
#include <string_view>

#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"
#include "http/server.h"
#include "apiserver/resources.h"

// metav1.Status failures in kube-apiserver's words, so clients (kubectl, client-go,
// @kubernetes/client-node) classify them exactly as they would against a real cluster.
namespace nodewright::apiserver {

struct ApiError {
  int code = 500;
  std::string reason;  // StatusReason: NotFound, AlreadyExists, Conflict, Invalid, ...
  std::string message;
  api::Json details;  // {name, group, kind, causes, retryAfterSeconds} when known

  api::Json toStatus() const;
  http::Response toResponse() const;
};

namespace errors {
ApiError badRequest(std::string message);
ApiError unauthorized();
ApiError forbidden(std::string message);
ApiError notFound(const Resource& resource, std::string_view name);
ApiError notFoundPath(std::string_view path);
ApiError methodNotAllowed(std::string_view method, std::string_view what);
ApiError alreadyExists(const Resource& resource, std::string_view name);
ApiError conflict(const Resource& resource, std::string_view name, std::string_view why);
ApiError staleObject(const Resource& resource, std::string_view name);
ApiError invalid(const Resource& resource, std::string_view name, const api::FieldErrors& causes);
ApiError gone(std::string message);
ApiError tooLarge(size_t limit);
ApiError unsupportedMediaType(std::string_view contentType);
ApiError notAcceptable(std::string message);
ApiError tooManyRequests(std::string message, api::Json causes);
// The max-in-flight filter's answer beyond its limits (Retry-After: 1).
ApiError tooManyRequestsInFlight();
ApiError internal(std::string message);
}  // namespace errors

// A JSON response with the given status code.
http::Response jsonResponse(int code, const api::Json& body);
http::Response textJsonResponse(int code, std::string body);

}  // namespace nodewright::apiserver
