// The interruption controller end to end against moto's SQS, an independent peer: one
// EventBridge event of each kind (and an unknown and a malformed one) goes into a moto queue,
// the controller reads them through the AWS queue (SQS JSON 1.0, the event parser), and each
// has its effect on the NodeClaims in the embedded API server.
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <map>
#include <set>

#include "api/core/event.h"
#include "aws/sqs_client.h"
#include "cloud/aws/cache/unavailable_offerings.h"
#include "cloud/aws/interruption/sqs_queue.h"
#include "controllers/interruption/claims.h"
#include "controllers/interruption/controller.h"
#include "support/apiserver/test_server.h"
#include "support/aws/moto_server.h"
#include "support/cloud/aws/interruption_events.h"
#include "support/emulators/ec2_fixture.h"
#include "support/kube/rest_config.h"

namespace nodewright::controllers::interruption {
namespace {

using api::karpenter::NodeClaim;
using namespace std::chrono_literals;
namespace events = cloud::aws::testing;

constexpr const char* kQueue = "nodewright-interruptions";
constexpr const char* kRaised = "2026-11-29T15:00:00Z";

core::TimePoint raised() {
  return core::Time::parse(kRaised).value().point();
}

class InterruptionMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto missing = emulators::testing::missingPythonClients(true, false)) {
      FAIL() << *missing;
    }
    ASSERT_EQ(moto_.error(), "");
    nodewright::aws::JsonClientOptions o =
        nodewright::aws::sqsJsonOptions(moto_.url(), "us-east-1");
    o.credentials = [] {
      return nodewright::aws::ApiResult<nodewright::aws::sigv4::Credentials>(
          nodewright::aws::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    json_ = std::make_unique<nodewright::aws::JsonClient>(core::systemClock(), *transport_,
                                                          std::move(o));
    sqs_ = std::make_unique<nodewright::aws::SqsClient>(*json_);
    auto url = sqs_->createQueue(kQueue);
    ASSERT_TRUE(url) << url.error().code << ": " << url.error().message;
    url_ = *url;
  }

  // A launched spot NodeClaim of NodePool "default" on machine `instanceId`.
  void storeClaim(const std::string& name, const std::string& instanceId,
                  const std::string& type = "m5.large") {
    testing::storeLaunchedClaim(claims_, name, "aws:///us-east-1a/" + instanceId,
                                {{"karpenter.sh/nodepool", "default"},
                                 {"karpenter.sh/capacity-type", "spot"},
                                 {"topology.kubernetes.io/zone", "us-east-1a"},
                                 {"node.kubernetes.io/instance-type", type}});
  }

  void send(const std::string& body) {
    auto id = sqs_->sendMessage(url_, body);
    ASSERT_TRUE(id) << id.error().code << ": " << id.error().message;
  }

  bool deleting(const std::string& name) {
    auto claim = claims_.get("", name);
    EXPECT_TRUE(claim) << name;
    return claim && claim->metadata.deletionTimestamp.has_value();
  }

  std::set<std::string> eventReasons(const std::string& name) {
    recorder_.flush();
    std::set<std::string> reasons;
    auto listed = kube::Typed<api::corev1::Event>(*client_).list("");
    EXPECT_TRUE(listed) << listed.error().describe();
    for (const auto& e : listed.value_or(std::vector<api::corev1::Event>{})) {
      if (e.involvedObject.kind == "NodeClaim" && e.involvedObject.name == name) {
        reasons.insert(e.reason);
      }
    }
    return reasons;
  }

  double counter(const std::string& name, const runtime::Labels& labels, runtime::Labels names) {
    return metrics_.counter(name, "", std::move(names)).with(labels).value();
  }

  nodewright::aws::testing::MotoServer moto_;
  nodewright::aws::TransportPtr transport_ = nodewright::aws::makeCurlTransport();
  std::unique_ptr<nodewright::aws::JsonClient> json_;
  std::unique_ptr<nodewright::aws::SqsClient> sqs_;
  std::string url_;

  apiserver::testing::TestApiServer apiServer_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(apiServer_));
  kube::Typed<NodeClaim> claims_{*client_};
  // Three seconds after the events were raised.
  core::FakeClock clock_{raised() + 3s};
  runtime::Registry metrics_;
  runtime::EventRecorder recorder_{*client_, clock_, {"interruption", "test"}};
  cloud::aws::UnavailableOfferings ice_{clock_};
  cloud::aws::IceCacheAvailability offerings_{ice_};
};

TEST_F(InterruptionMotoTest, EachKindHasItsEffectAndEveryMessageIsDeleted) {
  storeClaim("spot", "i-00000000000000001", "c5.xlarge");
  storeClaim("rebalanced", "i-00000000000000002");
  storeClaim("stopping", "i-00000000000000003");
  storeClaim("stopped", "i-00000000000000004");
  storeClaim("shutting-down", "i-00000000000000005");
  storeClaim("terminated", "i-00000000000000006");
  storeClaim("retiring-a", "i-00000000000000007");
  storeClaim("retiring-b", "i-00000000000000008");
  storeClaim("reserved", "i-00000000000000009");
  storeClaim("running", "i-0000000000000000a");
  storeClaim("bystander", "i-0000000000000000b");

  send(events::spotInterruptionWarning("i-00000000000000001", kRaised));
  send(events::rebalanceRecommendation("i-00000000000000002", kRaised));
  send(events::stateChange("i-00000000000000003", "stopping", kRaised));
  send(events::stateChange("i-00000000000000004", "stopped", kRaised));
  send(events::stateChange("i-00000000000000005", "shutting-down", kRaised));
  send(events::stateChange("i-00000000000000006", "terminated", kRaised));
  send(events::healthEvent({"i-00000000000000007", "i-00000000000000008"}, "EC2", "scheduledChange",
                           kRaised));
  send(events::capacityReservationInterruption("i-00000000000000009", kRaised));
  send(events::stateChange("i-0000000000000000a", "running", kRaised));  // ignored state
  // A spot warning for a machine this cluster does not run.
  send(events::spotInterruptionWarning("i-0ffffffffffffffff", kRaised));
  send(R"({"version":"0","source":"aws.ec2","detail-type":"EC2 AMI State Change",)"
       R"("time":"2026-11-29T15:00:00Z","detail":{"ImageId":"ami-1"}})");
  send("this is not an event");
  constexpr int kSent = 12;

  cloud::aws::SqsInterruptionQueue queue(*sqs_, kQueue, {10, 1, 30});
  InterruptionController controller(*client_, queue, &offerings_, clock_, &recorder_, metrics_);
  runtime::Context context(clock_, clock_.steadyNow() + 10min, {}, spdlog::default_logger(),
                           InterruptionController::kName);
  int removed = 0;
  int malformed = 0;
  std::set<std::string> deleted;
  // SQS hands out up to 10 per receive, and fewer when it likes; each poll waits at most 1 s.
  for (int poll = 0; poll < 20 && removed < kSent; ++poll) {
    auto summary = controller.pollOnce(context);
    ASSERT_TRUE(summary) << summary.error().message();
    EXPECT_EQ(summary->removed, summary->received) << "every message handled is deleted";
    removed += summary->removed;
    malformed += summary->malformed;
    deleted.insert(summary->deletedNodeClaims.begin(), summary->deletedNodeClaims.end());
  }
  EXPECT_EQ(removed, kSent);
  EXPECT_EQ(malformed, 1);

  // The queue is empty, not merely hidden: no visibility timeout hides what is left.
  auto left = sqs_->receiveMessages(url_, {10, 0, 0});
  ASSERT_TRUE(left) << left.error().code;
  EXPECT_TRUE(left->empty()) << left->size() << " messages left";

  // Deleted through the termination path: the finalizer holds each with a deletion timestamp.
  const std::set<std::string> kDeleted = {"spot",       "stopping",   "stopped",    "shutting-down",
                                          "terminated", "retiring-a", "retiring-b", "reserved"};
  EXPECT_EQ(deleted, kDeleted);
  for (const auto& name : kDeleted) {
    EXPECT_TRUE(deleting(name)) << name;
  }
  for (const char* name : {"rebalanced", "running", "bystander"}) {
    EXPECT_FALSE(deleting(name)) << name;
  }

  // The spot offering is out of the next launches; others are not.
  EXPECT_TRUE(ice_.isUnavailable("c5.xlarge", "us-east-1a", "spot"));
  EXPECT_FALSE(ice_.isUnavailable("m5.large", "us-east-1a", "spot"));
  EXPECT_FALSE(ice_.isUnavailable("c5.xlarge", "us-east-1a", "on-demand"));

  // Events as upstream names them; the rebalance recommendation is only an event.
  EXPECT_EQ(eventReasons("spot"),
            (std::set<std::string>{"SpotInterrupted", "TerminatingOnInterruption"}));
  EXPECT_EQ(eventReasons("rebalanced"), (std::set<std::string>{"SpotRebalanceRecommendation"}));
  EXPECT_EQ(eventReasons("stopped"),
            (std::set<std::string>{"InstanceStopping", "TerminatingOnInterruption"}));
  EXPECT_EQ(eventReasons("terminated"),
            (std::set<std::string>{"InstanceTerminating", "TerminatingOnInterruption"}));
  EXPECT_EQ(eventReasons("retiring-a"),
            (std::set<std::string>{"InstanceUnhealthy", "TerminatingOnInterruption"}));
  EXPECT_EQ(eventReasons("reserved"),
            (std::set<std::string>{"CapacityReservationInstanceInterrupted",
                                   "TerminatingOnInterruption"}));
  EXPECT_TRUE(eventReasons("bystander").empty());

  // Metrics, by upstream's names and labels.
  const runtime::Labels type = {"message_type"};
  const std::string received = "karpenter_interruption_received_messages_total";
  EXPECT_EQ(counter(received, {"spot_interrupted"}, type), 2);
  EXPECT_EQ(counter(received, {"rebalance_recommendation"}, type), 1);
  EXPECT_EQ(counter(received, {"instance_stopped"}, type), 2);
  EXPECT_EQ(counter(received, {"instance_terminated"}, type), 2);
  EXPECT_EQ(counter(received, {"scheduled_change"}, type), 1);
  EXPECT_EQ(counter(received, {"capacity_reservation_interrupted"}, type), 1);
  // The running state change, the unknown event and the malformed body.
  EXPECT_EQ(counter(received, {"no_op"}, type), 3);
  EXPECT_EQ(counter("karpenter_interruption_deleted_messages_total", {}, {}), kSent);
  EXPECT_EQ(counter("karpenter_nodeclaims_disrupted_total", {"spot_interrupted", "default", "spot"},
                    {"reason", "nodepool", "capacity_type"}),
            1);
  auto& latency =
      metrics_.histogram("karpenter_interruption_message_queue_duration_seconds", "").get();
  EXPECT_EQ(latency.count(), static_cast<uint64_t>(kSent - 1));  // all but the malformed one
  EXPECT_DOUBLE_EQ(latency.sum(), 3.0 * (kSent - 1));
}

}  // namespace
}  // namespace nodewright::controllers::interruption
