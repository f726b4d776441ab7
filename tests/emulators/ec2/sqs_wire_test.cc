// SQS on the EC2 emulator: boto3, the aws command and Query-protocol posts signed by botocore
// (scripts/sqs_clients.py), and our own SqsClient (JSON 1.0 over the signed-call loop), over
// HTTP with real SigV4. Long polls wake on a send and otherwise last their wait; received
// messages hide for the visibility timeout and come back undeleted.
//
// The emulator runs on the system clock (the clients sign with their own) at time scale 10:
// WaitTimeSeconds 20 is 2 s of real time.
#include <gtest/gtest.h>

#include <future>
#include <string>

#include "aws/sqs_client.h"
#include "aws/transport.h"
#include "support/emulators/ec2_fixture.h"

namespace nodewright::emulators::testing {
namespace {

using namespace std::chrono_literals;

constexpr double kTimeScale = 10;

class Ec2SqsWireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ec2::Ec2EmulatorOptions options;
    options.engine.timeScale = kTimeScale;
    auto server = startEc2(core::systemClock(), std::move(options));
    ASSERT_TRUE(server) << server.error().message();
    server_ = std::move(*server);
    aws::JsonClientOptions o = aws::sqsJsonOptions(server_->url(), "us-east-1");
    o.credentials = [] {
      return aws::ApiResult<aws::sigv4::Credentials>(
          aws::sigv4::Credentials{"nodewright", "nodewright", ""});
    };
    o.attemptTimeout = 30s;
    json_ = std::make_unique<aws::JsonClient>(core::systemClock(), *transport_, std::move(o));
    sqs_ = std::make_unique<aws::SqsClient>(*json_);
  }

  void TearDown() override {
    if (server_) {
      server_->stop();
    }
  }

  aws::TransportPtr transport_ = aws::makeCurlTransport();
  std::unique_ptr<ec2::Ec2Server> server_;
  std::unique_ptr<aws::JsonClient> json_;
  std::unique_ptr<aws::SqsClient> sqs_;
};

TEST_F(Ec2SqsWireTest, RealClientsSpeakBothProtocols) {
  if (auto missing = missingPythonClients(/*needMoto=*/false, /*needAwsCli=*/true)) {
    FAIL() << *missing;
  }
  auto run = runScript("sqs_clients.py", {server_->url()});
  ASSERT_TRUE(run.ok()) << run.describe();
  auto out = parseScriptOutput(run);
  ASSERT_TRUE(out) << out.error().message();
  EXPECT_EQ((*out)["calls"], api::Json::array({"boto3", "awscli", "query"})) << out->dump();
  std::cout << "figures: long poll woken after " << (*out)["wakeSeconds"]
            << " s real (send at 0.3 s), empty 1 s poll took " << (*out)["emptyPollSeconds"]
            << " s real\n";
}

TEST_F(Ec2SqsWireTest, SqsClientReceivesSendsAndDeletes) {
  auto url = sqs_->createQueue("nodewright-interruptions");
  ASSERT_TRUE(url) << url.error().code << ": " << url.error().message;
  auto same = sqs_->getQueueUrl("nodewright-interruptions");
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_EQ(*same, *url);
  auto missing = sqs_->getQueueUrl("nothing-here");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "QueueDoesNotExist");

  // A long poll started first gets the message sent while it waits, well before its 2 s.
  const auto start = std::chrono::steady_clock::now();
  auto waiting = std::async(std::launch::async, [&] {
    return sqs_->receiveMessages(
        *url, {.maxMessages = 10, .waitSeconds = 20, .visibilityTimeoutSeconds = 3});
  });
  ASSERT_EQ(waiting.wait_for(200ms), std::future_status::timeout) << "returned without a message";
  ASSERT_TRUE(
      sqs_->sendMessage(*url, R"({"detail-type":"EC2 Spot Instance Interruption Warning"})"));
  auto got = waiting.get();
  const auto woke = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_EQ(got->size(), 1U);
  EXPECT_LT(woke, 1500ms);
  ASSERT_TRUE(got->front().sent.has_value());

  // Undeleted, it comes back after the visibility timeout (3 s emulated, 0.3 s real).
  auto hidden = sqs_->receiveMessages(*url, {.maxMessages = 10, .waitSeconds = 0});
  ASSERT_TRUE(hidden);
  EXPECT_TRUE(hidden->empty());
  auto back = sqs_->receiveMessages(*url, {.maxMessages = 10, .waitSeconds = 20});
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 1U);
  EXPECT_EQ(back->front().messageId, got->front().messageId);

  ASSERT_TRUE(sqs_->deleteMessage(*url, back->front().receiptHandle));
  EXPECT_EQ(server_->emulator().sqs().depth("nodewright-interruptions"), 0U);
  auto stale = sqs_->deleteMessage(*url, got->front().receiptHandle);
  EXPECT_TRUE(stale) << "a handle of a deleted message deletes nothing, without error";
  auto invalid = sqs_->deleteMessage(*url, "not-a-handle");
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().code, "ReceiptHandleIsInvalid");
}

TEST_F(Ec2SqsWireTest, StoppingTheServerEndsALongPoll) {
  auto url = sqs_->createQueue("q");
  ASSERT_TRUE(url);
  auto waiting = std::async(std::launch::async, [&] {
    return sqs_->receiveMessages(*url, {.maxMessages = 1, .waitSeconds = 20});
  });
  ASSERT_EQ(waiting.wait_for(100ms), std::future_status::timeout);
  const auto start = std::chrono::steady_clock::now();
  server_->emulator().sqs().shutdown();
  auto got = waiting.get();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_TRUE(got->empty());
}

TEST_F(Ec2SqsWireTest, UnsignedRequestsAreRefused) {
  // The SigV4 check comes first, for SQS as for EC2: another key's signature is refused.
  aws::JsonClientOptions o = aws::sqsJsonOptions(server_->url(), "us-east-1");
  o.credentials = [] {
    return aws::ApiResult<aws::sigv4::Credentials>(aws::sigv4::Credentials{"someone", "else", ""});
  };
  o.retry.maxAttempts = 1;
  aws::JsonClient other(core::systemClock(), *transport_, std::move(o));
  aws::SqsClient sqs(other);
  auto url = sqs.createQueue("q");
  ASSERT_FALSE(url);
  EXPECT_TRUE(url.error().httpStatus == 401 || url.error().httpStatus == 403)
      << url.error().httpStatus << " " << url.error().code;
  EXPECT_FALSE(server_->emulator().sqs().exists("q"));
}

}  // namespace
}  // namespace nodewright::emulators::testing
