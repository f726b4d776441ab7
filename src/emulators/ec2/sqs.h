#pragma once

#include <string>
#include <string_view>

#include "emulators/ec2/sqs_queues.h"
#include "http/server.h"

// SQS's wire protocols over the emulator's queues: AWS JSON 1.0 (X-Amz-Target
// AmazonSQS.<Operation>, what current SDKs send) and the older Query protocol
// (Action=<Operation>&Version=2012-11-05, XML answers). CreateQueue, GetQueueUrl, SendMessage,
// ReceiveMessage and DeleteMessage. The caller has checked the SigV4 signature.
namespace nodewright::emulators::ec2 {

inline constexpr std::string_view kSqsTargetPrefix = "AmazonSQS.";

struct SqsReply {
  http::Response response;
  std::string operation;  // for the stats; "(none)" when the request named none
  std::string errorCode;  // empty on success
};

// `account` goes into queue URLs: http://<Host header>/<account>/<name>, as SQS's
// (and moto's) URLs put it.
SqsReply serveSqsJson(SqsQueues& queues, const http::Request& request, std::string_view account,
                      std::string_view requestId);
SqsReply serveSqsQuery(SqsQueues& queues, const http::Request& request, std::string_view account,
                       std::string_view requestId);

// Whether a Query request is SQS's: signed for the "sqs" service (its credential scope).
bool isSqsQueryRequest(const http::Request& request);

// An SQS error in the JSON protocol's shape (for errors found before the operation runs,
// such as a bad signature).
http::Response sqsJsonError(const aws::ApiError& error, std::string_view requestId);
http::Response sqsQueryError(const aws::ApiError& error, std::string_view requestId);

}  // namespace nodewright::emulators::ec2
