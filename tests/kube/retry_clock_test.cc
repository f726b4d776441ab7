// The retry helpers back off on the client's injected clock, never on the real one: with a
// FakeClock the retry after a Conflict waits until the test advances time.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>
#include <vector>

#include "api/core/secret.h"
#include "core/clock.h"
#include "kube/client.h"
#include "kube/transport.h"

namespace nodewright::kube {
namespace {

using namespace std::chrono_literals;

// An API server of one ConfigMap whose first status write conflicts. Records each request
// with the fake clock's time when it arrived.
class ConflictOnceTransport final : public Transport {
 public:
  explicit ConflictOnceTransport(const core::FakeClock& clock) : clock_(clock) {}

  ApiResult<HttpResponse> send(const HttpRequest& request) override {
    std::lock_guard lock(mu_);
    seen_.push_back({request.method, clock_.steadyNow()});
    if (request.method == "GET") {
      return HttpResponse{200, kConfigMap, ""};
    }
    if (++writes_ == 1) {
      return HttpResponse{
          409, R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict"})", ""};
    }
    return HttpResponse{200, request.body, ""};
  }

  ApiStatus stream(const HttpRequest&, const std::function<bool(std::string_view)>&,
                   std::stop_token) override {
    return {};
  }

  uint64_t connectionsOpened() const override { return 0; }

  struct Seen {
    std::string method;
    std::chrono::steady_clock::time_point at;
  };
  std::vector<Seen> seen() const {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  static constexpr const char* kConfigMap =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default",)"
      R"("resourceVersion":"1"},"data":{"k":"v"}})";
  const core::FakeClock& clock_;
  mutable std::mutex mu_;
  std::vector<Seen> seen_;  // GUARDED_BY(mu_)
  int writes_ = 0;          // GUARDED_BY(mu_)
};

TEST(RetryClockTest, ConflictBackoffWaitsOnTheInjectedClock) {
  core::FakeClock clock;
  auto owned = std::make_unique<ConflictOnceTransport>(clock);
  ConflictOnceTransport& transport = *owned;
  RestConfig config;
  config.server = "https://127.0.0.1:1";
  config.qps = 0;  // no rate limiter: only the backoff waits
  Client client(config, std::move(owned), ClientOptions{.clock = &clock});
  const api::KindInfo& kind = kindOf<api::corev1::ConfigMap>(client.registry());

  auto retried = std::async(std::launch::async, [&] {
    return updateStatusWithRetry(client, kind, "default", "a", [](api::Object&) { return true; });
  });
  // Time does not move, so the retry must not happen: with the real clock it would have
  // followed within 11 ms.
  EXPECT_EQ(retried.wait_for(300ms), std::future_status::timeout)
      << "the retry did not wait for the injected clock";
  EXPECT_EQ(transport.seen().size(), 2u);  // GET, the conflicting PUT

  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (retried.wait_for(1ms) != std::future_status::ready &&
         std::chrono::steady_clock::now() < deadline) {
    clock.advance(1ms);
  }
  ASSERT_EQ(retried.wait_for(0ms), std::future_status::ready);
  auto result = retried.get();
  ASSERT_TRUE(result) << result.error().describe();

  const auto seen = transport.seen();
  ASSERT_EQ(seen.size(), 4u);  // GET, PUT (409), GET, PUT
  EXPECT_EQ(seen[2].method, "GET");
  // client-go's DefaultRetry: 10 ms (jitter 0.1) between attempts, on the injected clock.
  EXPECT_GE(seen[2].at - seen[1].at, 10ms);
}

}  // namespace
}  // namespace nodewright::kube
