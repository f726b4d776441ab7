#pragma once

#include <string>
#include <string_view>

#include "http/server.h"

// Who may talk to the embedded API server: the holder of its one bearer token. The check needs
// only the request's headers, so the server makes it before it reads any of the body, as
// kube-apiserver's authentication filter runs before its handlers decode a body.
namespace nodewright::apiserver {

// /healthz, /livez and /readyz answer anyone: probes carry no token.
bool isHealthPath(std::string_view path);

// True when the request carries "Authorization: Bearer <token>"; compared in constant time.
bool authenticated(const http::Request& request, const std::string& token);

}  // namespace nodewright::apiserver
