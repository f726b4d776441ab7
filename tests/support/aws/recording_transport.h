#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "aws/query.h"
#include "aws/transport.h"

// A Transport that passes every request on to a real one and keeps what was sent, so a test
// can assert what the provider asked of EC2 (which instance types reached CreateFleet), not
// only what came back.
namespace nodewright::aws::testing {

class RecordingTransport final : public Transport {
 public:
  explicit RecordingTransport(Transport& next) : next_(next) {}

  ApiResult<HttpResponse> send(const HttpRequest& request,
                               std::chrono::milliseconds timeout) override;

  // The decoded form parameters of every Query-protocol request with Action=`action`, in the
  // order they were sent.
  std::vector<ParamPairs> requests(const std::string& action) const;
  // Values of the parameters whose names match `pattern` (std::regex, whole name), of every
  // `action` request, in order.
  std::vector<std::string> values(const std::string& action, const std::string& pattern) const;

 private:
  Transport& next_;
  mutable std::mutex mu_;
  std::vector<ParamPairs> sent_;
};

}  // namespace nodewright::aws::testing
