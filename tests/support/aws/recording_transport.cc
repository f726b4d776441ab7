#include "support/aws/recording_transport.h"

#include <regex>

namespace nodewright::aws::testing {

ApiResult<HttpResponse> RecordingTransport::send(const HttpRequest& request,
                                                 std::chrono::milliseconds timeout) {
  if (auto form = parseForm(request.body)) {
    std::lock_guard lock(mu_);
    sent_.push_back(std::move(*form));
  }
  return next_.send(request, timeout);
}

std::vector<ParamPairs> RecordingTransport::requests(const std::string& action) const {
  std::lock_guard lock(mu_);
  std::vector<ParamPairs> out;
  for (const ParamPairs& pairs : sent_) {
    for (const auto& [name, value] : pairs) {
      if (name == "Action" && value == action) {
        out.push_back(pairs);
        break;
      }
    }
  }
  return out;
}

std::vector<std::string> RecordingTransport::values(const std::string& action,
                                                    const std::string& pattern) const {
  const std::regex re(pattern);
  std::vector<std::string> out;
  for (const ParamPairs& pairs : requests(action)) {
    for (const auto& [name, value] : pairs) {
      if (std::regex_match(name, re)) {
        out.push_back(value);
      }
    }
  }
  return out;
}

}  // namespace nodewright::aws::testing
