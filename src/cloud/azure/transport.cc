#include "cloud/azure/transport.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <curl/curl.h>
#include <fmt/format.h>

#include "http/curl_pool.h"

namespace nodewright::cloud::azure {
namespace {

// What libcurl's callbacks fill in. They run inside curl_easy_perform: nothing may throw
// through libcurl's C frames, so each catches everything and tells curl to stop instead.
struct Collected {
  HttpResponse response;
  size_t maxBodyBytes = 0;
  bool tooLarge = false;
  bool failed = false;  // a callback caught an exception (out of memory)
};

size_t collectBody(char* data, size_t size, size_t count, void* user) {
  auto* collected = static_cast<Collected*>(user);
  const size_t n = size * count;
  try {
    if (collected->response.body.size() + n > collected->maxBodyBytes) {
      collected->tooLarge = true;
      return CURL_WRITEFUNC_ERROR;
    }
    collected->response.body.append(data, n);
    return n;
  } catch (...) {
    collected->failed = true;
    return CURL_WRITEFUNC_ERROR;
  }
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

void addHeaderLine(HttpResponse& response, std::string_view line) {
  // Each response starts with a status line; an interim one (100 Continue) must not leave its
  // headers behind.
  if (line.starts_with("HTTP/")) {
    response.headers.clear();
    return;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    return;
  }
  std::string name(trim(line.substr(0, colon)));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string_view value = trim(line.substr(colon + 1));
  auto [it, inserted] = response.headers.try_emplace(std::move(name), value);
  if (!inserted) {
    it->second.append(", ").append(value);
  }
}

size_t collectHeader(char* data, size_t size, size_t count, void* user) {
  auto* collected = static_cast<Collected*>(user);
  const size_t n = size * count;
  try {
    addHeaderLine(collected->response, std::string_view(data, n));
    return n;
  } catch (...) {
    collected->failed = true;
    return 0;  // curl fails the transfer with CURLE_WRITE_ERROR
  }
}

class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(CurlTransportOptions options)
      : options_(std::move(options)), handles_(options_.maxIdleHandles) {}

  // azure::Transport
  TransportResult<HttpResponse> send(const HttpRequest& request,
                                     std::chrono::milliseconds timeout) override {
    CURL* handle = handles_.acquire();
    if (handle == nullptr) {
      return tl::unexpected(TransportError{false, "curl_easy_init failed"});
    }
    http::CurlHeaders headers;
    for (const auto& [name, value] : request.headers) {
      headers.add(name + ": " + value);
    }
    // curl would otherwise wait for 100 Continue before sending a body over 1 KiB.
    headers.add("Expect:");
    Collected collected;
    collected.maxBodyBytes = options_.maxResponseBytes;
    char errorBuffer[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(std::max<int64_t>(1, timeout.count())));
    // Bearer tokens and client secrets travel over TLS only; curl refuses anything else before
    // connecting. Redirects are not followed (curl's default), so none can downgrade.
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR,
                     request.allowPlainHttp ? "https,http" : "https");
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_blob ca;
    if (!options_.caPem.empty()) {
      ca.data = const_cast<char*>(options_.caPem.data());
      ca.len = options_.caPem.size();
      ca.flags = CURL_BLOB_NOCOPY;
      curl_easy_setopt(handle, CURLOPT_CAINFO_BLOB, &ca);
    }
    http::setMethodAndBody(handle, request.method, request.body);
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.list);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collectBody);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &collected);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, collectHeader);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, &collected);
    const CURLcode code = curl_easy_perform(handle);
    long status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    // The handle goes back to the pool: nothing may point into this frame any more.
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, nullptr);
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, nullptr);
    handles_.release(handle);
    if (collected.tooLarge) {
      return tl::unexpected(TransportError{
          false, fmt::format("the response body exceeds {} bytes", options_.maxResponseBytes)});
    }
    if (collected.failed) {
      return tl::unexpected(TransportError{false, "reading the response failed"});
    }
    if (code != CURLE_OK) {
      const std::string detail = errorBuffer[0] != 0 ? errorBuffer : curl_easy_strerror(code);
      if (code == CURLE_OPERATION_TIMEDOUT) {
        return tl::unexpected(TransportError{
            true, fmt::format("no response within {} ms: {}", timeout.count(), detail)});
      }
      return tl::unexpected(TransportError{false, detail});
    }
    collected.response.status = static_cast<int>(status);
    return std::move(collected.response);
  }

 private:
  const CurlTransportOptions options_;
  http::CurlHandlePool handles_;
};

}  // namespace

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

TransportPtr makeCurlTransport(CurlTransportOptions options) {
  return std::make_unique<CurlTransport>(std::move(options));
}

}  // namespace nodewright::cloud::azure
