// QueryClient end to end against the EC2 emulator over loopback HTTP, on a fake clock that the
// client's waits (backoff, rate limits) advance.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <string>

#include <pugixml.hpp>

#include "aws/error_class.h"
#include "aws/query_client.h"
#include "aws/rate_limiter.h"
#include "aws/transport.h"
#include "emulators/ec2/emulator.h"
#include "support/emulators/ec2_fixture.h"

namespace nodewright::aws {
namespace {

using namespace std::chrono_literals;

// Counts what reaches the wire.
class CountingTransport final : public Transport {
 public:
  explicit CountingTransport(Transport& inner) : inner_(inner) {}
  ApiResult<HttpResponse> send(const HttpRequest& request,
                               std::chrono::milliseconds timeout) override {
    ++sent;
    return inner_.send(request, timeout);
  }
  std::atomic<int> sent{0};

 private:
  Transport& inner_;
};

std::vector<std::string> texts(const std::string& body, const char* xpath) {
  pugi::xml_document doc;
  std::vector<std::string> out;
  if (!doc.load_buffer(body.data(), body.size())) {
    return out;
  }
  for (const auto& node : doc.select_nodes(xpath)) {
    out.emplace_back(node.node().child_value());
  }
  return out;
}

class QueryClientEc2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = emulators::testing::startEc2(clock_, emulators::ec2::Ec2EmulatorOptions{});
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    admin_ = std::make_unique<emulators::testing::QueryClient>(server_->url(), clock_);
  }

  std::unique_ptr<QueryClient> client(RateLimiter* limiter, int maxAttempts = 3) {
    QueryClientOptions o;
    o.endpoint = server_->url();
    o.region = "us-east-1";
    o.credentials = [] {
      return ApiResult<sigv4::Credentials>(sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    o.retry.maxAttempts = maxAttempts;
    o.retry.seed = 3;
    o.limiter = limiter;
    o.sleep = [this](std::chrono::nanoseconds d) {
      sleeps_.push_back(d);
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(d) + 1us);
    };
    return std::make_unique<QueryClient>(clock_, counting_, std::move(o));
  }

  void putFaults(const std::string& json) {
    auto put = emulators::testing::putFaults(*admin_, json);
    ASSERT_TRUE(put) << put.error().message();
  }

  api::Json stats() {
    auto s = emulators::testing::adminStats(*admin_);
    EXPECT_TRUE(s) << s.error().message();
    return s ? *s : api::Json::object();
  }

  std::string first(QueryClient& c, std::string_view action, const ParamPairs& params,
                    const char* xpath) {
    auto body = c.call(action, params);
    EXPECT_TRUE(body) << action << ": " << body.error().code << " " << body.error().message;
    auto found = body ? texts(*body, xpath) : std::vector<std::string>{};
    return found.empty() ? "" : found.front();
  }

  core::FakeClock clock_;
  TransportPtr transport_ = makeCurlTransport();
  CountingTransport counting_{*transport_};
  std::unique_ptr<emulators::ec2::Ec2Server> server_;
  std::unique_ptr<emulators::testing::QueryClient> admin_;
  std::vector<std::chrono::nanoseconds> sleeps_;
};

TEST_F(QueryClientEc2Test, DescribesAvailabilityZones) {
  auto c = client(nullptr);
  auto body = c->call("DescribeAvailabilityZones", {});
  ASSERT_TRUE(body) << body.error().code << ": " << body.error().message;
  auto zones = texts(*body, "//availabilityZoneInfo/item/zoneName");
  EXPECT_NE(std::find(zones.begin(), zones.end(), "us-east-1a"), zones.end()) << *body;
}

TEST_F(QueryClientEc2Test, PaginatesEveryInstanceType) {
  auto c = client(nullptr);
  std::set<std::string> names;
  size_t items = 0;
  auto pages = c->paginate(
      "DescribeInstanceTypes", {{"MaxResults", "20"}}, [&](const pugi::xml_document& page) {
        for (const auto& n : page.select_nodes("//instanceTypeSet/item/instanceType")) {
          names.insert(n.node().child_value());
          ++items;
        }
        return true;
      });
  ASSERT_TRUE(pages) << pages.error().code << ": " << pages.error().message;
  const size_t total = server_->emulator().catalog().size();
  ASSERT_GT(total, 20u);
  EXPECT_EQ(items, total);
  EXPECT_EQ(names.size(), total);
  EXPECT_EQ(*pages, static_cast<int>((total + 19) / 20));
}

TEST_F(QueryClientEc2Test, RetriesAnInjectedServerErrorWithinBoundsThenRecovers) {
  auto c = client(nullptr, 3);
  putFaults(R"({"errors": {"DescribeAvailabilityZones": [{"code": "InternalError",
                                                           "probability": 1}]}})");
  auto failed = c->call("DescribeAvailabilityZones", {});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, "InternalError");
  EXPECT_EQ(failed.error().httpStatus, 500);
  EXPECT_EQ(classify(failed.error()), ErrorClass::Server);
  EXPECT_EQ(counting_.sent.load(), 3);  // maxAttempts, no more
  ASSERT_EQ(sleeps_.size(), 2u);
  EXPECT_LE(sleeps_[0], 100ms);
  EXPECT_LE(sleeps_[1], 200ms);
  EXPECT_EQ(stats()["requests"]["DescribeAvailabilityZones"]["errors"]["InternalError"], 3);

  putFaults(R"({"errors": {"DescribeAvailabilityZones": [{"code": "InternalError",
                                                           "probability": 0}]}})");
  counting_.sent = 0;
  auto recovered = c->call("DescribeAvailabilityZones", {});
  ASSERT_TRUE(recovered) << recovered.error().code;
  EXPECT_EQ(counting_.sent.load(), 1);
}

TEST_F(QueryClientEc2Test, InjectedThrottlesBackOffHarderAndAreClassified) {
  auto c = client(nullptr, 3);
  putFaults(R"({"errors": {"DescribeVpcs": [{"code": "RequestLimitExceeded",
                                              "probability": 1}]}})");
  auto failed = c->call("DescribeVpcs", {});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, "RequestLimitExceeded");
  EXPECT_EQ(classify(failed.error()), ErrorClass::Throttled);
  EXPECT_EQ(counting_.sent.load(), 3);
  ASSERT_EQ(sleeps_.size(), 2u);
  EXPECT_GE(sleeps_[0], 500ms);
  EXPECT_GE(sleeps_[1], 1s);
}

class QueryClientEc2BurstTest : public QueryClientEc2Test {
 protected:
  void SetUp() override {
    QueryClientEc2Test::SetUp();
    if (HasFatalFailure()) {
      return;
    }
    // Discovery goes through the describe bucket, which the burst does not touch.
    auto c = client(nullptr);
    const ParamPairs discovery{{"Filter.1.Name", "tag:karpenter.sh/discovery"},
                               {"Filter.1.Value.1", "nodewright"}};
    subnet_ = first(*c, "DescribeSubnets", discovery, "//subnetSet/item/subnetId");
    group_ = first(*c, "DescribeSecurityGroups", discovery, "//securityGroupInfo/item/groupId");
    image_ = first(
        *c, "DescribeImages",
        {{"Owner.1", "amazon"}, {"Filter.1.Name", "architecture"}, {"Filter.1.Value.1", "x86_64"}},
        "//imagesSet/item/imageId");
    ASSERT_FALSE(subnet_.empty() || group_.empty() || image_.empty());
  }

  // 20 RunInstances, each with its own ClientToken, one attempt each so that no retry can
  // hide a throttle. Returns the instance ids and the error codes.
  std::pair<std::vector<std::string>, std::vector<std::string>> burst(QueryClient& c) {
    std::vector<std::string> ids, errors;
    for (int i = 0; i < 20; ++i) {
      auto body = c.call("RunInstances", {{"ImageId", image_},
                                          {"InstanceType", "m5.large"},
                                          {"MinCount", "1"},
                                          {"MaxCount", "1"},
                                          {"SubnetId", subnet_},
                                          {"SecurityGroupId.1", group_},
                                          {"ClientToken", "burst-" + std::to_string(i)}});
      if (!body) {
        errors.push_back(body.error().code);
        continue;
      }
      for (auto& id : texts(*body, "//instancesSet/item/instanceId")) {
        ids.push_back(std::move(id));
      }
    }
    return {ids, errors};
  }

  std::string subnet_, group_, image_;
};

TEST_F(QueryClientEc2BurstTest, TheLimiterWaitsInsteadOfBeingThrottled) {
  auto limiter = RateLimiter::ec2(clock_);
  auto c = client(limiter.get(), 1);
  const auto start = clock_.steadyNow();
  auto [ids, errors] = burst(*c);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(ids.size(), 20u);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 20u);
  // 16 tokens past the client's burst of 4, at 1.8/s.
  EXPECT_GE(clock_.steadyNow() - start, 8s);
  api::Json s = stats();
  EXPECT_FALSE(s["requests"]["RunInstances"]["errors"].contains("RequestLimitExceeded"))
      << s.dump();
  EXPECT_TRUE(s["duplicateClientTokens"].empty()) << s.dump();
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(s["createsByClientToken"]["burst-" + std::to_string(i)], 1) << i;
  }
}

TEST_F(QueryClientEc2BurstTest, WithoutTheLimiterTheSameBurstIsThrottled) {
  auto c = client(nullptr, 1);
  auto [ids, errors] = burst(*c);
  // The emulator's bucket holds 5 and the clock does not move.
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_EQ(errors.size(), 15u);
  EXPECT_EQ(std::count(errors.begin(), errors.end(), "RequestLimitExceeded"), 15);
}

}  // namespace
}  // namespace nodewright::aws
