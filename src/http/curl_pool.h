#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <curl/curl.h>

// libcurl pieces under http::CurlClient (curl_client.h), the process's one request loop, and
// under tests that speak raw HTTP to the emulators.
namespace nodewright::http {

// curl_global_init exactly once per process, before the first handle.
inline void curlGlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// A request's header list, freed with the request.
struct CurlHeaders {
  curl_slist* list = nullptr;
  CurlHeaders() = default;
  CurlHeaders(const CurlHeaders&) = delete;
  CurlHeaders& operator=(const CurlHeaders&) = delete;
  ~CurlHeaders() { curl_slist_free_all(list); }
  void add(const std::string& line) { list = curl_slist_append(list, line.c_str()); }
};

// Sets a request's method and body on `handle`: GET and HEAD carry none; DELETE without a body
// sends none; any other method sends `body` (which must outlive the transfer) as it is.
inline void setMethodAndBody(CURL* handle, const std::string& method, std::string_view body) {
  if (method == "GET") {
    curl_easy_setopt(handle, CURLOPT_HTTPGET, 1L);
    return;
  }
  if (method == "HEAD") {
    curl_easy_setopt(handle, CURLOPT_NOBODY, 1L);
    return;
  }
  if (method == "DELETE" && body.empty()) {
    curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, "DELETE");
    return;
  }
  if (method != "POST") {
    curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  curl_easy_setopt(handle, CURLOPT_POST, 1L);
  curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  // Never a null pointer (an empty string_view's may be): curl would read the body from stdin.
  curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body.empty() ? "" : body.data());
}

// Easy handles kept between requests so their connections are reused (keep-alive); reset()
// clears a handle's options, not its connections. Thread-safe.
class CurlHandlePool {
 public:
  explicit CurlHandlePool(size_t maxIdle) : maxIdle_(maxIdle) { curlGlobalInit(); }
  CurlHandlePool(const CurlHandlePool&) = delete;
  CurlHandlePool& operator=(const CurlHandlePool&) = delete;
  ~CurlHandlePool() {
    for (CURL* h : idle_) {
      curl_easy_cleanup(h);
    }
  }

  // An idle handle with its options reset, or a new one (nullptr only when libcurl is out of
  // memory).
  CURL* acquire() {
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        CURL* h = idle_.back();
        idle_.pop_back();
        curl_easy_reset(h);
        return h;
      }
    }
    return curl_easy_init();
  }

  // Keeps the handle for the next request, or closes it when enough are idle.
  void release(CURL* handle) {
    {
      std::lock_guard lock(mu_);
      if (idle_.size() < maxIdle_) {
        idle_.push_back(handle);
        return;
      }
    }
    curl_easy_cleanup(handle);
  }

 private:
  const size_t maxIdle_;
  std::mutex mu_;
  std::vector<CURL*> idle_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::http
