#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "aws/sqs_client.h"
#include "cloud/aws/cache/unavailable_offerings.h"
#include "cloud/aws/sdk.h"
#include "cloud/interruption.h"

// The AWS interruption queue: an SQS queue that EventBridge rules fill with EC2 and AWS Health
// events (Karpenter's --interruption-queue), read with long polling and parsed by
// parseInterruptionEvent.
namespace nodewright::cloud::aws {

// Thread-safe. `sqs` must outlive it. The queue's URL is looked up on first use and kept, so a
// queue created after start is found then, and a missing one is an error of each receive.
class SqsInterruptionQueue final : public cloud::InterruptionQueue {
 public:
  SqsInterruptionQueue(sdk::SqsClient& sqs, std::string queueName,
                       sdk::ReceiveOptions options = {});

  // cloud::InterruptionQueue
  std::string name() const override { return queueName_; }
  // SQS's errors as core errors (QueueDoesNotExist is NotFound); a message body that is no
  // event we know is a notice (NoOp, `malformed` set when unreadable), never an error.
  core::Result<std::vector<cloud::InterruptionNotice>> receive() override;
  core::Status remove(const cloud::InterruptionNotice& notice) override;

 private:
  core::Result<std::string> queueUrl();

  sdk::SqsClient& sqs_;
  const std::string queueName_;
  const sdk::ReceiveOptions options_;
  std::mutex mu_;
  std::optional<std::string> url_;  // GUARDED_BY(mu_)
};

// The unavailable-offerings (ICE) cache as the interruption controller marks it.
class IceCacheAvailability final : public cloud::OfferingAvailability {
 public:
  // `cache` must outlive it.
  explicit IceCacheAvailability(UnavailableOfferings& cache) : cache_(cache) {}

  // cloud::OfferingAvailability
  void markUnavailable(std::string_view instanceType, std::string_view zone,
                       std::string_view capacityType, std::string_view reason) override {
    cache_.markUnavailable(instanceType, zone, capacityType, reason);
  }

 private:
  UnavailableOfferings& cache_;
};

}  // namespace nodewright::cloud::aws
