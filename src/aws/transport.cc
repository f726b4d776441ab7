#include "aws/transport.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <vector>

#include <curl/curl.h>
#include <fmt/format.h>

#include "http/curl_pool.h"

namespace nodewright::aws {
namespace {

size_t collectBody(char* data, size_t size, size_t count, void* user) {
  static_cast<HttpResponse*>(user)->body.append(data, size * count);
  return size * count;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == '\r' || s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

size_t collectHeader(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  const std::string_view line(data, size * count);
  // A status line starts each response; an interim one (100 Continue) must not leave its
  // headers behind.
  if (line.starts_with("HTTP/")) {
    response->headers.clear();
    return line.size();
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    return line.size();
  }
  std::string name(trim(line.substr(0, colon)));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string_view value = trim(line.substr(colon + 1));
  auto [it, inserted] = response->headers.try_emplace(std::move(name), value);
  if (!inserted) {
    it->second.append(", ").append(value);
  }
  return line.size();
}

class CurlTransport final : public Transport {
 public:
  CurlTransport() = default;
  // aws::Transport
  ApiResult<HttpResponse> send(const HttpRequest& request,
                               std::chrono::milliseconds timeout) override {
    CURL* handle = handles_.acquire();
    if (handle == nullptr) {
      return apiFail(kTransportError, "curl_easy_init failed", 0);
    }
    http::CurlHeaders headers;
    for (const auto& [name, value] : request.headers) {
      headers.add(name + ": " + value);
    }
    // curl would otherwise wait for 100 Continue before sending a body over 1 KiB.
    headers.add("Expect:");
    HttpResponse response;
    char errorBuffer[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(std::max<int64_t>(1, timeout.count())));
    http::setMethodAndBody(handle, request.method, request.body);
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.list);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collectBody);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &response);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, collectHeader);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, &response);
    const CURLcode code = curl_easy_perform(handle);
    long status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, nullptr);
    handles_.release(handle);
    if (code != CURLE_OK) {
      const std::string detail = errorBuffer[0] != 0 ? errorBuffer : curl_easy_strerror(code);
      if (code == CURLE_OPERATION_TIMEDOUT) {
        return apiFail(kRequestTimeout,
                       fmt::format("no response within {} ms: {}", timeout.count(), detail), 0);
      }
      return apiFail(kTransportError, detail, 0);
    }
    response.status = static_cast<int>(status);
    return response;
  }

 private:
  http::CurlHandlePool handles_{32};
};

}  // namespace

TransportPtr makeCurlTransport() {
  return std::make_unique<CurlTransport>();
}

}  // namespace nodewright::aws
