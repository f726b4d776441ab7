#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aws/ec2_client.h"
#include "aws/query_client.h"
#include "aws/transport.h"
#include "emulators/ec2/emulator.h"
#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"

// Ec2Client against the EC2 emulator over loopback HTTP, on a fake clock the client's waits
// advance. Shared by the ec2_client*_test.cc files.
namespace nodewright::aws::testing {

// Counts the requests of each action that reach the wire.
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

class Ec2ClientTest : public ::testing::Test {
 protected:
  // Options of the emulator; the default is the built-in catalog and default world.
  virtual emulators::ec2::Ec2EmulatorOptions emulatorOptions() { return {}; }

  void SetUp() override {
    auto server = emulators::testing::startEc2(clock_, emulatorOptions());
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    QueryClientOptions o;
    o.endpoint = server_->url();
    o.region = "us-east-1";
    o.credentials = [] {
      return ApiResult<sigv4::Credentials>(sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    o.retry.seed = 5;
    o.sleep = [this](std::chrono::nanoseconds d) {
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(d) +
                     std::chrono::microseconds(1));
    };
    query_ = std::make_unique<QueryClient>(clock_, counting_, std::move(o));
    ec2_ = std::make_unique<Ec2Client>(*query_);
    wire_ = std::make_unique<emulators::testing::QueryClient>(server_->url(), clock_);
  }

  // PUT /admin/faults, signed.
  void putFaults(const std::string& json) {
    auto put = emulators::testing::putFaults(*wire_, json);
    ASSERT_TRUE(put) << put.error().message();
  }

  // The world's AL2023 x86_64 EKS image.
  std::string image() const {
    const auto& params = server_->emulator().world().ssmParameters;
    auto it = params.find(
        "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/"
        "image_id");
    return it == params.end() ? "" : it->second;
  }

  core::FakeClock clock_;
  TransportPtr transport_ = makeCurlTransport();
  CountingTransport counting_{*transport_};
  std::unique_ptr<emulators::ec2::Ec2Server> server_;
  std::unique_ptr<QueryClient> query_;
  std::unique_ptr<Ec2Client> ec2_;
  std::unique_ptr<emulators::testing::QueryClient> wire_;
};

inline constexpr const char* kSubnetA = "subnet-0e2c4a6f8b1d3000a";
inline constexpr const char* kSubnetB = "subnet-0e2c4a6f8b1d3000b";
inline constexpr const char* kNodeGroup = "sg-0e2c4a6f8b1d30001";

}  // namespace nodewright::aws::testing
