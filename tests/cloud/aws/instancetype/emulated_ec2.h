#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "aws/ec2_client.h"
#include "aws/query_client.h"
#include "aws/transport.h"
#include "cloud/aws/sdk.h"
#include "core/clock.h"
#include "emulators/ec2/catalog.h"
#include "emulators/ec2/emulator.h"
#include "support/emulators/ec2_fixture.h"

// The EC2 emulator with the full shared catalog (1,434 types) on a FakeClock, and an
// Ec2Client talking to it over loopback HTTP: what the instance type and pricing tests run
// against. Owns everything; one per test.
namespace nodewright::cloud::aws::testing {

class EmulatedEc2 {
 public:
  // Fails the current test (ASSERT-style: check ok() after) when the catalog or the server
  // cannot be set up.
  explicit EmulatedEc2(core::FakeClock& clock) : clock_(clock) {
    auto catalog = emulators::ec2::loadCatalog(NW_SHARED_DIR "/data/aws-instance-types.json");
    if (!catalog) {
      ADD_FAILURE() << catalog.error().message();
      return;
    }
    emulators::ec2::Ec2EmulatorOptions options;
    options.catalog = std::move(*catalog);
    auto server = emulators::testing::startEc2(clock_, std::move(options));
    if (!server) {
      ADD_FAILURE() << server.error().message();
      return;
    }
    server_ = std::move(*server);
    sdk::QueryClientOptions o;
    o.endpoint = server_->url();
    o.region = "us-east-1";
    o.credentials = [] {
      return sdk::ApiResult<sdk::sigv4::Credentials>(
          sdk::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    o.retry.maxAttempts = 1;  // a fault must show, not be retried away
    o.sleep = [this](std::chrono::nanoseconds d) {
      clock_.advance(std::chrono::duration_cast<std::chrono::microseconds>(d));
    };
    query_ = std::make_unique<sdk::QueryClient>(clock_, *transport_, std::move(o));
    ec2_ = std::make_unique<sdk::Ec2Client>(*query_);
    admin_ = std::make_unique<emulators::testing::QueryClient>(server_->url(), clock_);
  }

  bool ok() const { return ec2_ != nullptr; }
  sdk::Ec2Client& ec2() { return *ec2_; }
  const emulators::ec2::Catalog& catalog() { return server_->emulator().catalog(); }

  // Requests of `action` the emulator answered (errors included).
  int64_t requests(const std::string& action) {
    auto stats = emulators::testing::adminStats(*admin_);
    EXPECT_TRUE(stats) << stats.error().message();
    if (!stats || !(*stats)["requests"].contains(action)) {
      return 0;
    }
    return (*stats)["requests"][action]["count"].get<int64_t>();
  }

  // Every request of `action` fails with `code` (probability 1), or none does (0).
  void failAll(const std::string& action, const std::string& code, double probability = 1) {
    auto put = emulators::testing::putFaults(
        *admin_,
        nlohmann::json{{"errors", {{action, {{{"code", code}, {"probability", probability}}}}}}}
            .dump());
    ASSERT_TRUE(put) << put.error().message();
  }

 private:
  core::FakeClock& clock_;
  sdk::TransportPtr transport_ = sdk::makeCurlTransport();
  std::unique_ptr<emulators::ec2::Ec2Server> server_;
  std::unique_ptr<sdk::QueryClient> query_;
  std::unique_ptr<sdk::Ec2Client> ec2_;
  std::unique_ptr<emulators::testing::QueryClient> admin_;
};

}  // namespace nodewright::cloud::aws::testing
