#include "http/curl_client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include <fmt/format.h>

namespace nodewright::http {
namespace {

// What libcurl's callbacks fill in. They run inside curl_easy_perform: nothing may throw
// through libcurl's C frames, so each catches everything and tells curl to stop instead.
struct Collected {
  CurlResponse response;
  size_t maxBodyBytes = 0;  // 0: no limit
  bool tooLarge = false;
  bool failed = false;  // a callback caught an exception (out of memory)
};

size_t collectBody(char* data, size_t size, size_t count, void* user) {
  auto* collected = static_cast<Collected*>(user);
  const size_t n = size * count;
  try {
    if (collected->maxBodyBytes != 0 &&
        collected->response.body.size() + n > collected->maxBodyBytes) {
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

void addHeaderLine(std::map<std::string, std::string>& headers, std::string_view line) {
  // Each response starts with a status line; an interim one (100 Continue) must not leave its
  // headers behind.
  if (line.starts_with("HTTP/")) {
    headers.clear();
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
  auto [it, inserted] = headers.try_emplace(std::move(name), value);
  if (!inserted) {
    it->second.append(", ").append(value);
  }
}

size_t collectHeader(char* data, size_t size, size_t count, void* user) {
  auto* collected = static_cast<Collected*>(user);
  const size_t n = size * count;
  try {
    addHeaderLine(collected->response.headers, std::string_view(data, n));
    return n;
  } catch (...) {
    collected->failed = true;
    return 0;  // curl fails the transfer with CURLE_WRITE_ERROR
  }
}

// Everything of `request` but the response callbacks. `headers` must outlive the transfer
// (the request itself too: curl reads the body from it).
void prepare(CURL* handle, const CurlRequest& request, CurlHeaders& headers) {
  curl_easy_setopt(handle, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  if (request.timeout.count() > 0) {
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  }
  if (request.connectTimeout.count() > 0) {
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(request.connectTimeout.count()));
  }
  if (!request.protocols.empty()) {
    // curl refuses any other scheme before connecting. Redirects are not followed (curl's
    // default), so none can downgrade.
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, request.protocols.c_str());
  }
  if (request.noProxy) {
    curl_easy_setopt(handle, CURLOPT_PROXY, "");
  }
  if (request.tcpNoDelay) {
    curl_easy_setopt(handle, CURLOPT_TCP_NODELAY, 1L);
  }
  if (request.insecureSkipTlsVerify) {
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 0L);
  } else {
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 2L);
  }
  // Blobs are copied: nothing of the request needs to outlive this call but its body.
  if (!request.caPem.empty()) {
    curl_blob ca{const_cast<char*>(request.caPem.data()), request.caPem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(handle, CURLOPT_CAINFO_BLOB, &ca);
  }
  if (!request.clientCertificatePem.empty()) {
    curl_blob cert{const_cast<char*>(request.clientCertificatePem.data()),
                   request.clientCertificatePem.size(), CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(request.clientKeyPem.data()), request.clientKeyPem.size(),
                  CURL_BLOB_COPY};
    curl_easy_setopt(handle, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(handle, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(handle, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(handle, CURLOPT_SSLKEYTYPE, "PEM");
  }
  for (const auto& [name, value] : request.headers) {
    headers.add(name + ": " + value);
  }
  // curl would otherwise wait for 100 Continue before sending a body over 1 KiB.
  headers.add("Expect:");
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.list);
  setMethodAndBody(handle, request.method, request.body);
}

CurlFailure failureOf(CURLcode code, const char* errorBuffer) {
  return CurlFailure{code == CURLE_OPERATION_TIMEDOUT, errorBuffer[0] != 0
                                                           ? std::string(errorBuffer)
                                                           : std::string(curl_easy_strerror(code))};
}

// A stream's socket, so another thread can cut the stream short.
struct StreamSocket {
  std::mutex mu;
  curl_socket_t fd = CURL_SOCKET_BAD;  // GUARDED_BY(mu)
};

int recordSocket(void* user, curl_socket_t fd, curlsocktype) {
  auto* s = static_cast<StreamSocket*>(user);
  std::lock_guard lock(s->mu);
  s->fd = fd;
  return CURL_SOCKOPT_OK;
}

int closeSocket(void* user, curl_socket_t fd) {
  auto* s = static_cast<StreamSocket*>(user);
  std::lock_guard lock(s->mu);
  if (s->fd == fd) {
    s->fd = CURL_SOCKET_BAD;
  }
  return ::close(fd);
}

struct StreamState {
  CURL* handle = nullptr;
  const std::function<bool(std::string_view)>* onLine = nullptr;
  std::stop_token stop;
  long status = 0;
  std::string pending;  // a line not yet complete
  Collected error;      // the headers, and the body of a non-200 answer
  bool consumerDone = false;
};

size_t streamBody(char* data, size_t size, size_t count, void* user) {
  auto* s = static_cast<StreamState*>(user);
  const size_t n = size * count;
  try {
    if (s->status == 0) {
      curl_easy_getinfo(s->handle, CURLINFO_RESPONSE_CODE, &s->status);
    }
    if (s->status != 200) {
      return collectBody(data, size, count, &s->error);
    }
    s->pending.append(data, n);
    size_t start = 0;
    for (size_t nl; (nl = s->pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(s->pending.data() + start, nl - start);
      if (line.empty()) {
        continue;
      }
      if (!(*s->onLine)(line)) {
        s->consumerDone = true;
        return CURL_WRITEFUNC_ERROR;  // ends the transfer
      }
    }
    s->pending.erase(0, start);
    return n;
  } catch (...) {
    s->error.failed = true;
    return CURL_WRITEFUNC_ERROR;
  }
}

int streamProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<StreamState*>(user)->stop.stop_requested() ? 1 : 0;
}

}  // namespace

CurlClient::CurlClient(CurlClientOptions options)
    : options_(options), handles_(options_.maxIdleHandles) {}

void CurlClient::countConnections(CURL* handle) {
  long opened = 0;
  curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &opened);
  connections_ += static_cast<uint64_t>(opened);
}

CurlResult<CurlResponse> CurlClient::perform(const CurlRequest& request) {
  CURL* handle = handles_.acquire();
  if (handle == nullptr) {
    return tl::unexpected(CurlFailure{false, "curl_easy_init failed"});
  }
  CurlHeaders headers;
  Collected collected;
  collected.maxBodyBytes = options_.maxResponseBytes;
  char errorBuffer[CURL_ERROR_SIZE] = {0};
  prepare(handle, request, headers);
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, errorBuffer);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collectBody);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &collected);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, collectHeader);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &collected);
  const CURLcode code = curl_easy_perform(handle);
  long status = 0;
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
  countConnections(handle);
  // The handle goes back to the pool: nothing may point into this frame any more.
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, nullptr);
  handles_.release(handle);
  if (collected.tooLarge) {
    return tl::unexpected(CurlFailure{
        false, fmt::format("the response body exceeds {} bytes", options_.maxResponseBytes)});
  }
  if (collected.failed) {
    return tl::unexpected(CurlFailure{false, "reading the response failed"});
  }
  if (code != CURLE_OK) {
    return tl::unexpected(failureOf(code, errorBuffer));
  }
  collected.response.status = static_cast<int>(status);
  return std::move(collected.response);
}

CurlResult<CurlStreamEnd> CurlClient::stream(
    const CurlRequest& request, const std::function<bool(std::string_view line)>& onLine,
    std::stop_token stop) {
  curlGlobalInit();
  CURL* handle = curl_easy_init();
  if (handle == nullptr) {
    return tl::unexpected(CurlFailure{false, "curl_easy_init failed"});
  }
  CurlHeaders headers;
  prepare(handle, request, headers);
  StreamSocket socket;
  StreamState state;
  state.handle = handle;
  state.onLine = &onLine;
  state.stop = stop;
  state.error.maxBodyBytes = options_.maxResponseBytes;
  char errorBuffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, errorBuffer);
  curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, recordSocket);
  curl_easy_setopt(handle, CURLOPT_SOCKOPTDATA, &socket);
  curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, closeSocket);
  curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, &socket);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, streamBody);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, collectHeader);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &state.error);
  curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, streamProgress);
  curl_easy_setopt(handle, CURLOPT_XFERINFODATA, &state);
  curl_easy_setopt(handle, CURLOPT_FORBID_REUSE, 1L);
  CURLcode code;
  {
    // Shutting the socket down wakes the blocked read at once; the progress callback covers
    // the moments before the socket exists.
    std::stop_callback cancel(stop, [&socket] {
      std::lock_guard lock(socket.mu);
      if (socket.fd != CURL_SOCKET_BAD) {
        ::shutdown(socket.fd, SHUT_RDWR);
      }
    });
    code = curl_easy_perform(handle);
  }
  if (state.status == 0) {
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &state.status);
  }
  countConnections(handle);
  curl_easy_cleanup(handle);
  if (state.consumerDone || stop.stop_requested()) {
    return CurlStreamEnd{true, static_cast<int>(state.status), {}, {}};
  }
  if (state.error.failed) {
    return tl::unexpected(CurlFailure{false, "reading the response failed"});
  }
  if (state.status != 0 && state.status != 200) {
    return CurlStreamEnd{false, static_cast<int>(state.status),
                         std::move(state.error.response.headers),
                         std::move(state.error.response.body)};
  }
  if (code != CURLE_OK) {
    return tl::unexpected(failureOf(code, errorBuffer));
  }
  return CurlStreamEnd{false, static_cast<int>(state.status), {}, {}};
}

}  // namespace nodewright::http
