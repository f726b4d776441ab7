#include "emulators/ec2/sqs_queues.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

#include <fmt/format.h>

namespace nodewright::emulators::ec2 {
namespace {

using std::chrono::seconds;

constexpr std::string_view kReceiptPrefix = "AQEB";
constexpr size_t kMessageIdLength = 36;

aws::ApiError noQueue() {
  return {"QueueDoesNotExist", "The specified queue does not exist.", 400};
}

aws::ApiError invalidValue(std::string message) {
  return {"InvalidParameterValue", std::move(message), 400};
}

// SQS: 1 to 80 alphanumeric characters, hyphens and underscores (".fifo" queues are not
// emulated, and their names have a dot).
bool validQueueName(std::string_view name) {
  return !name.empty() && name.size() <= 80 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

std::optional<int> secondsAttribute(const std::map<std::string, std::string, std::less<>>& attrs,
                                    std::string_view name, int fallback, int max) {
  auto it = attrs.find(name);
  if (it == attrs.end()) {
    return fallback;
  }
  int value = 0;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value > max) {
    return std::nullopt;
  }
  return value;
}

// The message id a receipt handle names, or empty when it is not one of ours.
std::string_view receiptMessageId(std::string_view handle) {
  if (!handle.starts_with(kReceiptPrefix) ||
      handle.size() < kReceiptPrefix.size() + kMessageIdLength + 2 ||
      handle[kReceiptPrefix.size() + kMessageIdLength] != ':') {
    return {};
  }
  return handle.substr(kReceiptPrefix.size(), kMessageIdLength);
}

}  // namespace

std::string sqsMd5Hex(std::string_view text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_md5(), nullptr);
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex += fmt::format("{:02x}", digest[i]);
  }
  return hex;
}

SqsQueues::SqsQueues(const ScaledClock& time) : time_(time) {}

aws::ApiResult<void> SqsQueues::create(
    std::string_view name, const std::map<std::string, std::string, std::less<>>& attributes) {
  if (!validQueueName(name)) {
    return tl::unexpected(invalidValue(
        "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"));
  }
  Queue queue;
  for (const auto& attribute : attributes) {
    const std::string& key = attribute.first;
    if (key != "VisibilityTimeout" && key != "ReceiveMessageWaitTimeSeconds" &&
        key != "MessageRetentionPeriod" && key != "DelaySeconds") {
      return tl::unexpected(
          aws::ApiError{"InvalidAttributeName", "Unknown Attribute " + key + ".", 400});
    }
  }
  auto visibility = secondsAttribute(attributes, "VisibilityTimeout", kSqsDefaultVisibilitySeconds,
                                     kSqsMaxVisibilitySeconds);
  auto wait = secondsAttribute(attributes, "ReceiveMessageWaitTimeSeconds", 0, kSqsMaxWaitSeconds);
  if (!visibility || !wait) {
    return tl::unexpected(aws::ApiError{"InvalidAttributeValue",
                                        "Invalid value for the parameter VisibilityTimeout or "
                                        "ReceiveMessageWaitTimeSeconds.",
                                        400});
  }
  queue.attributes = attributes;
  queue.visibilitySeconds = *visibility;
  queue.waitSeconds = *wait;
  std::lock_guard lock(mu_);
  auto it = queues_.find(name);
  if (it != queues_.end()) {
    if (it->second.attributes != attributes) {
      return tl::unexpected(aws::ApiError{
          "QueueAlreadyExists",
          "A queue already exists with the same name and a different value for attribute(s)", 400});
    }
    return {};
  }
  queues_.emplace(std::string(name), std::move(queue));
  return {};
}

bool SqsQueues::exists(std::string_view name) const {
  std::lock_guard lock(mu_);
  return queues_.contains(name);
}

aws::ApiResult<std::string> SqsQueues::send(std::string_view name, std::string body) {
  if (body.empty() || body.size() > kSqsMaxBodyBytes) {
    return tl::unexpected(
        invalidValue("One or more parameters are invalid. Reason: Message must be shorter than "
                     "262144 bytes and must not be empty."));
  }
  std::string md5 = sqsMd5Hex(body);
  std::lock_guard lock(mu_);
  auto it = queues_.find(name);
  if (it == queues_.end()) {
    return tl::unexpected(noQueue());
  }
  const uint64_t n = nextId_++;
  Message message;
  message.id = fmt::format("5e0f3c2a-7b1d-4e6f-8a9b-{:012x}", n);
  message.body = std::move(body);
  message.md5 = std::move(md5);
  message.sent = time_.now();
  message.visibleAt = message.sent;
  it->second.messages.push_back(std::move(message));
  sent_.notify_all();
  return it->second.messages.back().id;
}

std::vector<SqsReceived> SqsQueues::takeLocked(Queue& queue, int max, int visibilitySeconds,
                                               core::TimePoint& nextVisible) {
  std::vector<SqsReceived> out;
  const core::TimePoint now = time_.now();
  for (Message& m : queue.messages) {
    if (m.visibleAt > now) {
      nextVisible = std::min(nextVisible, m.visibleAt);
      continue;
    }
    if (static_cast<int>(out.size()) >= max) {
      break;
    }
    m.visibleAt = time_.after(seconds(visibilitySeconds));
    if (m.receiveCount++ == 0) {
      m.firstReceived = now;
    }
    m.lastReceipt = nextId_++;
    out.push_back({m.id, fmt::format("{}{}:{:x}", kReceiptPrefix, m.id, m.lastReceipt), m.body,
                   m.md5, m.sent, m.receiveCount, m.firstReceived});
  }
  return out;
}

aws::ApiResult<std::vector<SqsReceived>> SqsQueues::receive(std::string_view name,
                                                            SqsReceive options) {
  if (options.maxMessages < 1 || options.maxMessages > kSqsMaxReceive) {
    return tl::unexpected(invalidValue(fmt::format(
        "Value {} for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and "
        "10, if provided.",
        options.maxMessages)));
  }
  if (options.waitSeconds > kSqsMaxWaitSeconds) {
    return tl::unexpected(invalidValue(fmt::format(
        "Value {} for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if "
        "provided.",
        options.waitSeconds)));
  }
  if (options.visibilitySeconds > kSqsMaxVisibilitySeconds) {
    return tl::unexpected(invalidValue(fmt::format(
        "Value {} for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= "
        "43200, if provided.",
        options.visibilitySeconds)));
  }
  const core::Clock& clock = time_.base();
  std::unique_lock lock(mu_);
  auto it = queues_.find(name);
  if (it == queues_.end()) {
    return tl::unexpected(noQueue());
  }
  const int wait = options.waitSeconds >= 0 ? options.waitSeconds : it->second.waitSeconds;
  const int visibility =
      options.visibilitySeconds >= 0 ? options.visibilitySeconds : it->second.visibilitySeconds;
  const auto deadline = clock.steadyNow() + time_.toReal(seconds(wait));
  while (true) {
    // The queue may be gone after a wait (not now: queues are never deleted), so look again.
    it = queues_.find(name);
    if (it == queues_.end()) {
      return tl::unexpected(noQueue());
    }
    core::TimePoint nextVisible = core::TimePoint::max();
    auto taken = takeLocked(it->second, options.maxMessages, visibility, nextVisible);
    const auto steadyNow = clock.steadyNow();
    if (!taken.empty() || stopping_ || steadyNow >= deadline) {
      return taken;
    }
    // Wake for a send (notified), the deadline, or a hidden message coming back.
    auto wakeAt = deadline;
    if (nextVisible != core::TimePoint::max()) {
      const auto untilVisible =
          std::chrono::duration_cast<std::chrono::microseconds>(nextVisible - clock.now());
      wakeAt = std::min(wakeAt, steadyNow + std::max(untilVisible, std::chrono::microseconds(0)));
    }
    clock.waitUntil(lock, sent_, wakeAt);
  }
}

aws::ApiResult<void> SqsQueues::remove(std::string_view name, std::string_view receiptHandle) {
  const std::string_view id = receiptMessageId(receiptHandle);
  std::lock_guard lock(mu_);
  auto it = queues_.find(name);
  if (it == queues_.end()) {
    return tl::unexpected(noQueue());
  }
  if (id.empty()) {
    return tl::unexpected(
        aws::ApiError{"ReceiptHandleIsInvalid",
                      fmt::format("The input receipt handle \"{}\" is not a valid receipt handle.",
                                  receiptHandle),
                      400});
  }
  auto& messages = it->second.messages;
  std::erase_if(messages, [id](const Message& m) { return m.id == id && m.receiveCount > 0; });
  return {};
}

size_t SqsQueues::depth(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = queues_.find(name);
  return it == queues_.end() ? 0 : it->second.messages.size();
}

void SqsQueues::shutdown() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  sent_.notify_all();
}

}  // namespace nodewright::emulators::ec2
