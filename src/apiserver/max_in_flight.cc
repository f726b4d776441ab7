#include "apiserver/max_in_flight.h"

#include <atomic>
#include <string>
#include <vector>

#include "apiserver/errors.h"
#include "apiserver/rest/handler.h"

namespace nodewright::apiserver {
namespace {

// metav1's boolean query parameters parse as Go's strconv.ParseBool.
bool queryTrue(const std::string& value) {
  return value == "1" || value == "t" || value == "T" || value == "true" || value == "TRUE" ||
         value == "True";
}

bool longRunningSubresource(const std::string& name) {
  return name == "attach" || name == "exec" || name == "log" || name == "portforward" ||
         name == "proxy";
}

// kube's read-only verbs are get, list and watch: what GET and HEAD map to.
bool mutatingMethod(const std::string& method) {
  return method != "GET" && method != "HEAD";
}

}  // namespace

struct MaxInFlight::Counters {
  std::atomic<size_t> mutating{0};
  std::atomic<size_t> readOnly{0};
};

bool isLongRunning(const http::Request& request) {
  // kube's RequestInfo: /api/VERSION/... or /apis/GROUP/VERSION/..., then an optional verb
  // prefix (watch, proxy), an optional namespaces/NAME, then resource, name, subresource.
  const std::vector<std::string> segments = rest::splitPath(request.path);
  size_t first = 0;
  if (segments.size() >= 2 && segments[0] == "api") {
    first = 2;
  } else if (segments.size() >= 3 && segments[0] == "apis") {
    first = 3;
  } else {
    return false;
  }
  std::vector<std::string> parts(segments.begin() + static_cast<long>(first), segments.end());
  if (parts.size() >= 2 && (parts[0] == "watch" || parts[0] == "proxy")) {
    return true;
  }
  if (parts.size() > 2 && parts[0] == "namespaces" && parts[2] != "status" &&
      parts[2] != "finalize") {
    parts.erase(parts.begin(), parts.begin() + 2);
  }
  if (parts.size() >= 3 && longRunningSubresource(parts[2])) {
    return true;
  }
  return parts.size() == 1 && request.method == "GET" && queryTrue(request.param("watch"));
}

MaxInFlight::MaxInFlight(InFlightLimits limits)
    : counters_(std::make_shared<Counters>()), limits_(limits) {}

http::Admission MaxInFlight::admit(const http::Request& head) {
  if (isLongRunning(head)) {
    return {};
  }
  const bool mutating = mutatingMethod(head.method);
  const size_t limit = mutating ? limits_.maxMutating : limits_.maxReadOnly;
  if (limit == 0) {
    return {};
  }
  std::atomic<size_t>& count = mutating ? counters_->mutating : counters_->readOnly;
  if (count.fetch_add(1) >= limit) {
    count.fetch_sub(1);
    return http::Admission{errors::tooManyRequestsInFlight().toResponse(), nullptr};
  }
  // The hold's deleter gives the slot back; `count` lives in `counters`, which it keeps alive.
  auto release = [counters = counters_](void* slot) {
    static_cast<std::atomic<size_t>*>(slot)->fetch_sub(1);
  };
  return http::Admission{std::nullopt, std::shared_ptr<void>(&count, std::move(release))};
}

size_t MaxInFlight::mutating() const {
  return counters_->mutating.load();
}

size_t MaxInFlight::readOnly() const {
  return counters_->readOnly.load();
}

}  // namespace nodewright::apiserver
