#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "aws/transport.h"
#include "cloud/aws/stack.h"
#include "core/clock.h"
#include "emulators/ec2/emulator.h"
#include "kube/client.h"
#include "runtime/reconciler.h"
#include "support/apiserver/test_server.h"
#include "support/emulators/ec2_fixture.h"
#include "support/emulators/query_client.h"
#include "support/kube/rest_config.h"

// What the EC2NodeClass controller runs against in its tests: the embedded API server, the EC2
// emulator and an AwsStack wired to it, all on one FakeClock (so the resolver's TTL passes only
// when a test advances it). One per test.
namespace nodewright::cloud::aws::testing {

// Counts the PUTs (updates and status updates) a client sent: the API server gives an
// identical write no new resourceVersion, so only the client can tell it was made.
class WriteCounter final : public kube::RequestObserver {
 public:
  void observe(const std::string&, const std::string& method, int, double) override {
    if (method == "PUT") {
      ++puts_;
    }
  }
  int puts() const { return puts_.load(); }

 private:
  std::atomic<int> puts_{0};
};

class NodeClassEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = emulators::testing::startEc2(clock_, emulators::testing::fastOptions());
    ASSERT_TRUE(server) << server.error().message();
    ec2Server_ = std::move(*server);
    // No token bucket may empty on a frozen clock.
    putFaults(R"({"throttling": false})");

    AwsStackOptions options;
    options.ec2Endpoint = ec2Server_->url();
    options.ssmEndpoint = ec2Server_->url();
    options.credentials = [] {
      return sdk::ApiResult<sdk::sigv4::Credentials>(
          sdk::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    options.retry.maxAttempts = 1;  // a fault must show, not be retried (or slept) away
    options.clientRateLimit = false;
    options.cluster = {"nodewright", "https://127.0.0.1:6443", "Y2E=", "10.100.0.0/16"};
    options.nodeClasses = [this](const std::string& name) -> core::Result<EC2NodeClass> {
      auto got = nodeClasses_.get("", name);
      if (!got) {
        return core::fail(got.error().toError());
      }
      return *got;
    };
    auto stack = AwsStack::create(clock_, *transport_, std::move(options));
    ASSERT_TRUE(stack) << stack.error().message();
    stack_ = std::move(*stack);
  }

  using EC2NodeClass = api::karpenter::EC2NodeClass;

  // One reconcile of `name`, as a worker would run it.
  runtime::Outcome reconcileOnce(runtime::Reconciler& reconciler, const std::string& name) {
    runtime::Context context(clock_, clock_.steadyNow() + std::chrono::minutes(3), {},
                             spdlog::default_logger(), name);
    return reconciler.reconcile({"", name}, context);
  }

  EC2NodeClass stored(const std::string& name) {
    auto got = nodeClasses_.get("", name);
    EXPECT_TRUE(got) << got.error().describe();
    return got ? *got : EC2NodeClass{};
  }

  // The template a launch of `name` (as stored now) would use, created when missing.
  std::string ensureTemplate(const std::string& name) {
    const EC2NodeClass nodeClass = stored(name);
    auto resolved = stack_->resolver().resolve(nodeClass);
    EXPECT_TRUE(resolved) << resolved.error().message();
    if (!resolved || resolved->images.empty()) {
      ADD_FAILURE() << "no image resolved for " << name;
      return "";
    }
    LaunchSettings settings;
    settings.imageId = resolved->images.front().id;
    auto ensured = stack_->launchTemplates().ensure(nodeClass, *resolved, settings);
    EXPECT_TRUE(ensured) << ensured.error().message();
    return ensured.value_or("");
  }

  // Every launch template EC2 holds, by name, sorted.
  std::vector<std::string> templateNames() {
    auto all = stack_->ec2().describeLaunchTemplates({});
    EXPECT_TRUE(all) << all.error().message;
    std::vector<std::string> names;
    for (const auto& t : all.value_or(std::vector<sdk::LaunchTemplate>{})) {
      names.push_back(t.launchTemplateName);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  // Requests of `action` the emulator answered.
  int64_t requests(const std::string& action) {
    emulators::testing::QueryClient admin(ec2Server_->url(), clock_);
    auto stats = emulators::testing::adminStats(admin);
    EXPECT_TRUE(stats) << stats.error().message();
    if (!stats || !(*stats)["requests"].contains(action)) {
      return 0;
    }
    return (*stats)["requests"][action]["count"].get<int64_t>();
  }

  void putFaults(const std::string& json) {
    emulators::testing::QueryClient admin(ec2Server_->url(), clock_);
    auto put = emulators::testing::putFaults(admin, json);
    ASSERT_TRUE(put) << put.error().message();
  }

  core::FakeClock clock_;
  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  kube::Typed<EC2NodeClass> nodeClasses_{*client_};
  // The controller's own client, whose writes are counted.
  WriteCounter writes_;
  std::unique_ptr<kube::Client> controllerClient_ = [this] {
    kube::ClientOptions options;
    options.observer = &writes_;
    auto client = kube::Client::create(kube::testing::restConfigFor(apiServer_), options);
    EXPECT_TRUE(client) << client.error().message();
    return client ? std::move(*client) : nullptr;
  }();
  kube::Typed<api::karpenter::NodeClaim> nodeClaims_{*client_};
  sdk::TransportPtr transport_ = sdk::makeCurlTransport();
  std::unique_ptr<emulators::ec2::Ec2Server> ec2Server_;
  std::unique_ptr<AwsStack> stack_;
};

// The condition of `type` in `nodeClass`'s status; a default one (empty status) when absent.
inline api::Condition conditionOf(const api::karpenter::EC2NodeClass& nodeClass,
                                  const std::string& type) {
  for (const api::Condition& c : nodeClass.status.conditions) {
    if (c.type == type) {
      return c;
    }
  }
  return {};
}

}  // namespace nodewright::cloud::aws::testing
