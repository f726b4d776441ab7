#include "cloud/aws/interruption/sqs_queue.h"

#include "aws/error_class.h"
#include "cloud/aws/interruption/event_parser.h"

namespace nodewright::cloud::aws {

SqsInterruptionQueue::SqsInterruptionQueue(sdk::SqsClient& sqs, std::string queueName,
                                           sdk::ReceiveOptions options)
    : sqs_(sqs), queueName_(std::move(queueName)), options_(options) {}

core::Result<std::string> SqsInterruptionQueue::queueUrl() {
  {
    std::lock_guard lock(mu_);
    if (url_) {
      return *url_;
    }
  }
  auto url = sqs_.getQueueUrl(queueName_);
  if (!url) {
    return core::fail(sdk::toCoreError(url.error()).wrap("looking up queue " + queueName_));
  }
  std::lock_guard lock(mu_);
  url_ = *url;
  return *url;
}

core::Result<std::vector<cloud::InterruptionNotice>> SqsInterruptionQueue::receive() {
  auto url = queueUrl();
  if (!url) {
    return core::fail(url.error());
  }
  auto messages = sqs_.receiveMessages(*url, options_);
  if (!messages) {
    return core::fail(sdk::toCoreError(messages.error()).wrap("receiving from " + queueName_));
  }
  std::vector<cloud::InterruptionNotice> notices;
  notices.reserve(messages->size());
  for (sdk::SqsMessage& message : *messages) {
    cloud::InterruptionNotice notice = parseInterruptionEvent(message.body);
    if (!notice.raisedAt) {
      // No event time: the queue's own is the next best start of the wait.
      notice.raisedAt = message.sent;
    }
    notice.receipt = std::move(message.receiptHandle);
    notices.push_back(std::move(notice));
  }
  return notices;
}

core::Status SqsInterruptionQueue::remove(const cloud::InterruptionNotice& notice) {
  auto url = queueUrl();
  if (!url) {
    return core::fail(url.error());
  }
  if (auto deleted = sqs_.deleteMessage(*url, notice.receipt); !deleted) {
    return core::fail(
        sdk::toCoreError(deleted.error()).wrap("deleting a message from " + queueName_));
  }
  return core::ok();
}

}  // namespace nodewright::cloud::aws
