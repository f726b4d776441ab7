#include "apiserver/request_log.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "api/reflect/json.h"
#include "apiserver/rest/handler.h"
#include "apiserver/rest/query.h"
#include "core/text.h"

namespace nodewright::apiserver {
namespace {

// The same reading as the handler's, so the log names the verb the request got.
bool watchParam(const http::Request& request) {
  return rest::boolParam(request, "watch").value_or(false);
}

std::string resourceVerb(const http::Request& request, bool collection, bool watch) {
  const std::string& method = request.method;
  if (method == "GET") {
    return watch ? "watch" : (collection ? "list" : "get");
  }
  if (method == "POST") {
    return "create";
  }
  if (method == "PUT") {
    return "update";
  }
  if (method == "PATCH") {
    return "patch";
  }
  if (method == "DELETE") {
    return collection ? "deletecollection" : "delete";
  }
  return core::lowerAscii(method);
}

std::string rfc3339Millis(core::TimePoint time) {
  using namespace std::chrono;
  const auto since = time.time_since_epoch();
  const auto secs = floor<seconds>(since);
  const auto millis = duration_cast<milliseconds>(since - secs).count();
  std::time_t t = static_cast<std::time_t>(secs.count());
  std::tm utc{};
  gmtime_r(&t, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                     utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
}

// Records the request as it is answered (with the status it is answered with), then forwards
// to the real exchange.
class RecordingExchange final : public http::Exchange {
 public:
  RecordingExchange(http::Exchange& inner, RequestLog& log, RequestRecord record)
      : inner_(inner), log_(log), record_(std::move(record)) {}

  // http::Exchange
  void respond(http::Response response) override {
    answered(response.status);
    inner_.respond(std::move(response));
  }
  http::Stream& startStream(int status, std::string contentType) override {
    answered(status);
    return inner_.startStream(status, std::move(contentType));
  }

 private:
  void answered(int code) {
    if (logged_) {
      return;
    }
    logged_ = true;
    record_.code = code;
    log_.append(record_);
  }

  http::Exchange& inner_;
  RequestLog& log_;
  RequestRecord record_;
  bool logged_ = false;
};

}  // namespace

RequestRecord describeRequest(const http::Request& request) {
  RequestRecord record;
  record.userAgent = request.header("user-agent");
  record.dryRun = !request.param("dryRun").empty();
  record.verb = core::lowerAscii(request.method);
  record.path = request.path;
  const auto segments = rest::splitPath(request.path);
  size_t rest = 0;
  if (segments.size() >= 2 && segments[0] == "api") {
    record.apiVersion = segments[1];
    rest = 2;
  } else if (segments.size() >= 3 && segments[0] == "apis") {
    record.apiGroup = segments[1];
    record.apiVersion = segments[2];
    rest = 3;
  }
  std::vector<std::string> parts(segments.begin() + static_cast<long>(rest), segments.end());
  if (rest == 0 || parts.empty()) {
    // Discovery, OpenAPI, /version and health checks.
    record.apiGroup.clear();
    record.apiVersion.clear();
    return record;
  }
  record.resourceRequest = true;
  record.path.clear();
  bool watch = watchParam(request);
  if (parts[0] == "watch") {
    watch = true;
    parts.erase(parts.begin());
  }
  if (parts.size() >= 2 && parts[0] == "namespaces") {
    record.ns = parts[1];
    // A namespace's own subresources stay on the namespaces resource.
    if (parts.size() > 2 && parts[2] != "status" && parts[2] != "finalize") {
      parts.erase(parts.begin(), parts.begin() + 2);
    }
  }
  if (!parts.empty()) {
    record.resource = parts[0];
  }
  if (parts.size() >= 2) {
    record.name = parts[1];
  }
  if (parts.size() >= 3) {
    record.subresource = parts[2];
  }
  record.verb = resourceVerb(request, record.name.empty(), watch);
  return record;
}

std::string formatRecord(const RequestRecord& record, core::TimePoint time) {
  api::Json line = {{"time", rfc3339Millis(time)}, {"verb", record.verb},
                    {"apiGroup", record.apiGroup}, {"apiVersion", record.apiVersion},
                    {"resource", record.resource}, {"subresource", record.subresource},
                    {"namespace", record.ns},      {"name", record.name}};
  if (!record.resourceRequest) {
    line["path"] = record.path;
  }
  line["userAgent"] = record.userAgent;
  line["code"] = record.code;
  line["dryRun"] = record.dryRun;
  // Paths and user agents come from clients: never fail on bytes that are not UTF-8.
  return line.dump(-1, ' ', false, api::Json::error_handler_t::replace);
}

core::Result<std::unique_ptr<RequestLog>> RequestLog::open(const std::string& path,
                                                           const core::Clock& clock) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return core::fail(core::Error::internal(
        fmt::format("opening request log {}: {}", path, std::strerror(errno))));
  }
  return std::unique_ptr<RequestLog>(new RequestLog(file, clock));
}

RequestLog::~RequestLog() {
  std::fclose(file_);
}

void RequestLog::append(const RequestRecord& record) {
  std::string line = formatRecord(record, clock_.now());
  line += '\n';
  std::lock_guard<std::mutex> lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

void RequestLog::serve(const http::Request& request, http::Exchange& exchange,
                       const http::Handler& next) {
  RecordingExchange recording(exchange, *this, describeRequest(request));
  next(request, recording);
}

}  // namespace nodewright::apiserver
