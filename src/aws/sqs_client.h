#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aws/error.h"
#include "aws/json_client.h"
#include "core/time.h"

// SQS over the AWS JSON 1.0 protocol (X-Amz-Target: AmazonSQS.<Operation>), as current SDKs
// speak it: the calls the interruption queue makes (GetQueueUrl, ReceiveMessage, DeleteMessage)
// and the two tests and emulated faults need to fill a queue (CreateQueue, SendMessage).
namespace nodewright::aws {

// One received message. The receipt handle, not the message id, is what deletes it.
struct SqsMessage {
  std::string messageId;
  std::string receiptHandle;
  std::string body;
  // The SentTimestamp attribute (milliseconds since the epoch), when the queue reported it.
  std::optional<core::TimePoint> sent;
};

struct ReceiveOptions {
  int maxMessages = 10;  // 1..10
  // Long polling: the call returns as soon as a message arrives, after this many seconds
  // otherwise (0..20). 20 is SQS's maximum and Karpenter's choice.
  int waitSeconds = 20;
  // How long a received message stays hidden from other receivers; one not deleted within it
  // comes back, so a crash between receiving and handling loses nothing.
  int visibilityTimeoutSeconds = 20;
};

// Thread-safe when the JsonClient is. The client must target "AmazonSQS" (service "sqs", JSON
// version "1.0") with an attempt timeout above ReceiveOptions::waitSeconds.
class SqsClient {
 public:
  explicit SqsClient(JsonClient& client) : client_(client) {}

  // The queue's URL. QueueDoesNotExist (a NotFound class error) when there is none by that name.
  ApiResult<std::string> getQueueUrl(const std::string& name);
  // Up to options.maxMessages messages; empty when none arrived within options.waitSeconds.
  ApiResult<std::vector<SqsMessage>> receiveMessages(const std::string& queueUrl,
                                                     const ReceiveOptions& options = {});
  // Deleting a message already deleted succeeds (SQS accepts a stale receipt handle until it
  // expires); an expired or malformed handle is ReceiptHandleIsInvalid.
  ApiResult<void> deleteMessage(const std::string& queueUrl, const std::string& receiptHandle);

  // The new (or existing, same attributes) queue's URL.
  ApiResult<std::string> createQueue(const std::string& name);
  // The message id.
  ApiResult<std::string> sendMessage(const std::string& queueUrl, const std::string& body);

 private:
  ApiResult<std::string> stringField(std::string_view operation, const nlohmann::json& request,
                                     const char* field);

  JsonClient& client_;
};

// JsonClientOptions for SQS at `endpoint` in `region`: signing name "sqs", target "AmazonSQS",
// JSON 1.0; credentials, retries and timeouts are the caller's to fill in.
JsonClientOptions sqsJsonOptions(std::string endpoint, std::string region);

}  // namespace nodewright::aws
