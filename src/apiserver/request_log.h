#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "http/server.h"

// An audit-like record of the API requests the server answered: one JSON object per line, so
// tests and RBAC tooling can see which verbs each client uses on which resources. It records
// what a request asked for and how it was answered, never bodies, tokens or headers other than
// User-Agent.
namespace nodewright::apiserver {

// What one request asked for, read from its path as kube-apiserver's RequestInfoFactory does.
struct RequestRecord {
  // get, list, watch, create, update, patch, delete, deletecollection; for non-resource
  // requests the lower-case HTTP method.
  std::string verb;
  bool resourceRequest = false;
  std::string apiGroup;  // "" for the core group
  std::string apiVersion;
  std::string resource;  // plural
  std::string subresource;
  std::string ns;
  std::string name;
  std::string path;  // non-resource requests only (discovery, OpenAPI, /version, /healthz)
  std::string userAgent;
  bool dryRun = false;
  int code = 0;  // HTTP status
};

RequestRecord describeRequest(const http::Request& request);

// The log line (without the newline): {"time", "verb", "apiGroup", "apiVersion", "resource",
// "subresource", "namespace", "name", ["path",] "userAgent", "code", "dryRun"}, the time in
// RFC 3339 UTC with milliseconds.
std::string formatRecord(const RequestRecord& record, core::TimePoint time);

// Appends records to a file. Thread-safe: each line is written whole and flushed, so readers
// may follow the file while the server runs.
class RequestLog {
 public:
  // Opens `path` for appending (created if missing).
  static core::Result<std::unique_ptr<RequestLog>> open(const std::string& path,
                                                        const core::Clock& clock);
  ~RequestLog();
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  void append(const RequestRecord& record);

  // Runs `next` with an exchange that records the request as it is answered: the line is
  // written just before the response is sent, or before a stream (a watch) starts, so long
  // watches show up at once rather than when they end.
  void serve(const http::Request& request, http::Exchange& exchange, const http::Handler& next);

 private:
  RequestLog(std::FILE* file, const core::Clock& clock) : file_(file), clock_(clock) {}

  std::mutex mutex_;
  std::FILE* const file_;  // GUARDED_BY(mutex_) for writes
  const core::Clock& clock_;
};
using RequestLogPtr = std::unique_ptr<RequestLog>;

}  // namespace nodewright::apiserver
