#pragma once

#include <optional>
#include <string>

#include "api/reflect/json.h"
#include "apiserver/errors.h"
#include "http/server.h"
#include "apiserver/rest/objects.h"
#include "apiserver/table/table.h"

// Reading what a request asks for: bodies, options and content negotiation.
namespace nodewright::apiserver::rest {

// The media type without parameters, lower-case ("application/merge-patch+json").
std::string mediaType(const std::string& contentType);

// A JSON or YAML body as one object.
ApiResult<api::Json> parseBody(const http::Request& request);

WriteOptions writeOptions(const http::Request& request, std::vector<std::string>* warnings);
ApiResult<DeleteOptions> deleteOptions(const http::Request& request);

// Accept asks for meta.k8s.io Table rendering.
bool wantsTable(const http::Request& request);
ApiResult<TableOptions> tableOptions(const http::Request& request);

// A 200/201 JSON response carrying the unknown-field warnings.
http::Response objectResponse(int code, const api::Json& object,
                              const std::vector<std::string>& warnings);

}  // namespace nodewright::apiserver::rest
