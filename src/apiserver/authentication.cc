#include "apiserver/authentication.h"

#include "apiserver/pki/credentials.h"

namespace nodewright::apiserver {

bool isHealthPath(std::string_view path) {
  return path == "/healthz" || path == "/livez" || path == "/readyz";
}

bool authenticated(const http::Request& request, const std::string& token) {
  std::string header = request.header("authorization");
  const std::string prefix = "Bearer ";
  if (header.size() <= prefix.size() || header.compare(0, prefix.size(), prefix) != 0) {
    return false;
  }
  return pki::sameSecret(header.substr(prefix.size()), token);
}

}  // namespace nodewright::apiserver
