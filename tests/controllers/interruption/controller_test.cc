// The interruption controller's guarantees that need a queue that misbehaves on purpose: a
// notice stays until it was acted on and removed, a notice delivered twice acts once, and a
// replica that does not lead acts on nothing.
#include "controllers/interruption/controller.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include "controllers/interruption/claims.h"
#include "support/apiserver/test_server.h"
#include "support/kube/rest_config.h"

namespace nodewright::controllers::interruption {
namespace {

using api::karpenter::NodeClaim;
using cloud::InterruptionKind;
using namespace std::chrono_literals;

// Delivers what a test put in, every receive, until it is removed (as SQS redelivers after the
// visibility timeout); removal fails while failRemoves > 0.
class FakeQueue final : public cloud::InterruptionQueue {
 public:
  std::string name() const override { return "fake"; }
  core::Result<std::vector<cloud::InterruptionNotice>> receive() override { return queued; }
  core::Status remove(const cloud::InterruptionNotice& notice) override {
    if (failRemoves > 0) {
      --failRemoves;
      return core::fail(core::Error::internal("injected"));
    }
    std::erase_if(queued, [&](const auto& n) { return n.receipt == notice.receipt; });
    return core::ok();
  }

  std::vector<cloud::InterruptionNotice> queued;
  int failRemoves = 0;
};

class RecordingAvailability final : public cloud::OfferingAvailability {
 public:
  void markUnavailable(std::string_view instanceType, std::string_view zone,
                       std::string_view capacityType, std::string_view reason) override {
    marked.push_back(std::string(instanceType) + "/" + std::string(zone) + "/" +
                     std::string(capacityType) + "/" + std::string(reason));
  }
  std::vector<std::string> marked;
};

class InterruptionControllerTest : public ::testing::Test {
 protected:
  void storeClaim(const std::string& name, const std::string& providerID) {
    testing::storeLaunchedClaim(claims_, name, providerID,
                                {{"karpenter.sh/capacity-type", "spot"},
                                 {"topology.kubernetes.io/zone", "us-east-1b"},
                                 {"node.kubernetes.io/instance-type", "m5.large"}});
  }

  void queue(InterruptionKind kind, const std::string& machineId, const std::string& receipt) {
    cloud::InterruptionNotice notice;
    notice.kind = kind;
    notice.machineIds = {machineId};
    notice.receipt = receipt;
    queue_.queued.push_back(notice);
  }

  core::Result<PollSummary> poll(bool leading = true) {
    runtime::Context context(clock_, clock_.steadyNow() + 1min, {}, spdlog::default_logger(),
                             InterruptionController::kName, [leading] { return leading; });
    return controller_.pollOnce(context);
  }

  bool deleting(const std::string& name) {
    auto claim = claims_.get("", name);
    return claim && claim->metadata.deletionTimestamp.has_value();
  }

  double disrupted() {
    return metrics_
        .counter("karpenter_nodeclaims_disrupted_total", "",
                 {"reason", "nodepool", "capacity_type"})
        .with({"spot_interrupted", "", "spot"})
        .value();
  }
  double deletedMessages() {
    return metrics_.counter("karpenter_interruption_deleted_messages_total", "").get().value();
  }

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  kube::Typed<NodeClaim> claims_{*client_};
  core::FakeClock clock_;
  runtime::Registry metrics_;
  FakeQueue queue_;
  RecordingAvailability offerings_;
  InterruptionController controller_{*client_, queue_, &offerings_, clock_, nullptr, metrics_};
};

TEST_F(InterruptionControllerTest, ANoticeThatCouldNotBeRemovedComesBackAndActsOnce) {
  storeClaim("spot", "aws:///us-east-1b/i-0aaa");
  queue(InterruptionKind::SpotInterrupted, "i-0aaa", "r1");
  queue_.failRemoves = 1;

  auto first = poll();
  ASSERT_FALSE(first) << "a failed removal is the poll's error, so the loop backs off";
  EXPECT_TRUE(deleting("spot"));
  EXPECT_EQ(queue_.queued.size(), 1u);
  EXPECT_EQ(deletedMessages(), 0);

  auto second = poll();  // redelivered
  ASSERT_TRUE(second) << second.error().message();
  EXPECT_EQ(second->removed, 1);
  EXPECT_TRUE(second->deletedNodeClaims.empty()) << "already deleting: not deleted again";
  EXPECT_TRUE(queue_.queued.empty());
  EXPECT_EQ(deletedMessages(), 1);
  EXPECT_EQ(disrupted(), 1) << "one disruption for two deliveries";
  EXPECT_EQ(offerings_.marked,
            (std::vector<std::string>{"m5.large/us-east-1b/spot/spot_interrupted",
                                      "m5.large/us-east-1b/spot/spot_interrupted"}));
}

TEST_F(InterruptionControllerTest, AReplicaThatDoesNotLeadActsOnNothingAndRemovesNothing) {
  storeClaim("spot", "aws:///us-east-1b/i-0bbb");
  queue(InterruptionKind::SpotInterrupted, "i-0bbb", "r1");
  auto summary = poll(false);
  ASSERT_TRUE(summary) << summary.error().message();
  EXPECT_EQ(summary->received, 1);
  EXPECT_EQ(summary->removed, 0);
  EXPECT_FALSE(deleting("spot"));
  EXPECT_EQ(queue_.queued.size(), 1u);
  EXPECT_TRUE(offerings_.marked.empty());
}

TEST_F(InterruptionControllerTest, OnlyTheNamedMachinesClaimIsTouched) {
  storeClaim("named", "aws:///us-east-1b/i-0ccc");
  storeClaim("prefix", "aws:///us-east-1b/i-0ccc1");
  storeClaim("unlaunched", "");
  queue(InterruptionKind::InstanceTerminated, "i-0ccc", "r1");
  auto summary = poll();
  ASSERT_TRUE(summary) << summary.error().message();
  EXPECT_EQ(summary->deletedNodeClaims, std::vector<std::string>{"named"});
  EXPECT_FALSE(deleting("prefix"));
  EXPECT_FALSE(deleting("unlaunched"));
  EXPECT_TRUE(offerings_.marked.empty()) << "only spot interruptions mark offerings";
}

TEST(MachineIdTest, IsTheLastSegmentOfTheProviderId) {
  EXPECT_EQ(machineIdOf("aws:///us-east-1a/i-0123456789abcdef0"), "i-0123456789abcdef0");
  EXPECT_EQ(machineIdOf("i-0123"), "i-0123");
  EXPECT_EQ(machineIdOf(""), "");
}

}  // namespace
}  // namespace nodewright::controllers::interruption
