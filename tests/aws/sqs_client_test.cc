// SqsClient against moto's SQS over the JSON 1.0 protocol: a queue filled with SendMessage is
// read back with ReceiveMessage and emptied with DeleteMessage.
#include "aws/sqs_client.h"

#include <gtest/gtest.h>

#include <set>

#include "aws/error_class.h"
#include "aws/json_peer_fixture.h"
#include "support/aws/moto_server.h"
#include "support/emulators/ec2_fixture.h"

namespace nodewright::aws {
namespace {

class SqsClientMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto missing = emulators::testing::missingPythonClients(true, false)) {
      FAIL() << *missing;
    }
    ASSERT_EQ(moto_.error(), "");
    JsonClientOptions o = sqsJsonOptions(moto_.url(), "us-east-1");
    o.credentials = [] {
      return ApiResult<sigv4::Credentials>(sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    o.retry.seed = 9;
    json_ = std::make_unique<JsonClient>(core::systemClock(), *transport_, std::move(o));
    sqs_ = std::make_unique<SqsClient>(*json_);
  }

  testing::MotoServer moto_;
  TransportPtr transport_ = makeCurlTransport();
  std::unique_ptr<JsonClient> json_;
  std::unique_ptr<SqsClient> sqs_;
};

TEST_F(SqsClientMotoTest, SentMessagesAreReceivedWithTheirSentTimeAndGoneOnceDeleted) {
  auto created = sqs_->createQueue("interruptions");
  ASSERT_TRUE(created) << created.error().code << ": " << created.error().message;
  auto url = sqs_->getQueueUrl("interruptions");
  ASSERT_TRUE(url) << url.error().code << ": " << url.error().message;
  EXPECT_EQ(*url, *created);

  const auto before = core::systemClock().now();
  for (const char* body : {R"({"n": 1})", R"({"n": 2})", R"({"n": 3})"}) {
    auto id = sqs_->sendMessage(*url, body);
    ASSERT_TRUE(id) << id.error().code << ": " << id.error().message;
  }
  std::set<std::string> bodies;
  std::vector<SqsMessage> received;
  // One receive may return fewer than are queued (SQS samples its servers); a few cover it.
  for (int i = 0; i < 5 && received.size() < 3; ++i) {
    auto got = sqs_->receiveMessages(*url, ReceiveOptions{10, 1, 30});
    ASSERT_TRUE(got) << got.error().code << ": " << got.error().message;
    received.insert(received.end(), got->begin(), got->end());
  }
  ASSERT_EQ(received.size(), 3u);
  for (const SqsMessage& m : received) {
    bodies.insert(m.body);
    EXPECT_FALSE(m.messageId.empty());
    EXPECT_FALSE(m.receiptHandle.empty());
    ASSERT_TRUE(m.sent.has_value()) << "SentTimestamp was asked for";
    EXPECT_GE(*m.sent, before - std::chrono::seconds(5));
    EXPECT_LE(*m.sent, core::systemClock().now() + std::chrono::seconds(5));
    auto deleted = sqs_->deleteMessage(*url, m.receiptHandle);
    ASSERT_TRUE(deleted) << deleted.error().code << ": " << deleted.error().message;
  }
  EXPECT_EQ(bodies, (std::set<std::string>{R"({"n": 1})", R"({"n": 2})", R"({"n": 3})"}));

  // Deleted, not merely hidden: a receive that waits out nothing finds the queue empty even
  // with no visibility timeout.
  auto after = sqs_->receiveMessages(*url, ReceiveOptions{10, 0, 0});
  ASSERT_TRUE(after) << after.error().code << ": " << after.error().message;
  EXPECT_TRUE(after->empty());
}

TEST_F(SqsClientMotoTest, AMissingQueueIsNotFound) {
  auto url = sqs_->getQueueUrl("no-such-queue");
  ASSERT_FALSE(url);
  EXPECT_EQ(url.error().code, "QueueDoesNotExist");  // the JSON protocol's shape name
  EXPECT_EQ(classify(url.error()), ErrorClass::NotFound);
}

}  // namespace
}  // namespace nodewright::aws
