#include "aws/sqs_client.h"

#include <charconv>
#include <cstdint>

#include <fmt/format.h>

namespace nodewright::aws {
namespace {

// SentTimestamp is a decimal string of milliseconds since the epoch.
std::optional<core::TimePoint> sentTimestamp(const nlohmann::json& message) {
  auto attributes = message.find("Attributes");
  if (attributes == message.end() || !attributes->is_object()) {
    return std::nullopt;
  }
  auto sent = attributes->find("SentTimestamp");
  if (sent == attributes->end() || !sent->is_string()) {
    return std::nullopt;
  }
  const std::string& text = sent->get_ref<const std::string&>();
  int64_t ms = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return core::TimePoint(std::chrono::milliseconds(ms));
}

std::string stringOr(const nlohmann::json& object, const char* field) {
  auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

JsonClientOptions sqsJsonOptions(std::string endpoint, std::string region) {
  JsonClientOptions o;
  o.endpoint = std::move(endpoint);
  o.region = std::move(region);
  o.service = "sqs";
  o.targetPrefix = "AmazonSQS";
  o.jsonVersion = "1.0";
  return o;
}

ApiResult<std::string> SqsClient::stringField(std::string_view operation,
                                              const nlohmann::json& request, const char* field) {
  auto response = client_.call(operation, request);
  if (!response) {
    return tl::unexpected(response.error());
  }
  std::string value = stringOr(*response, field);
  if (value.empty()) {
    return apiFail("MalformedResponse", fmt::format("{}: the response has no {}", operation, field),
                   200);
  }
  return value;
}

ApiResult<std::string> SqsClient::getQueueUrl(const std::string& name) {
  return stringField("GetQueueUrl", {{"QueueName", name}}, "QueueUrl");
}

ApiResult<std::string> SqsClient::createQueue(const std::string& name) {
  return stringField("CreateQueue", {{"QueueName", name}}, "QueueUrl");
}

ApiResult<std::string> SqsClient::sendMessage(const std::string& queueUrl,
                                              const std::string& body) {
  return stringField("SendMessage", {{"QueueUrl", queueUrl}, {"MessageBody", body}}, "MessageId");
}

ApiResult<std::vector<SqsMessage>> SqsClient::receiveMessages(const std::string& queueUrl,
                                                              const ReceiveOptions& options) {
  // SentTimestamp is asked for under both names: AttributeNames is the one older servers know,
  // MessageSystemAttributeNames the one that replaced it.
  const nlohmann::json request = {
      {"QueueUrl", queueUrl},
      {"MaxNumberOfMessages", options.maxMessages},
      {"WaitTimeSeconds", options.waitSeconds},
      {"VisibilityTimeout", options.visibilityTimeoutSeconds},
      {"AttributeNames", nlohmann::json::array({"SentTimestamp"})},
      {"MessageSystemAttributeNames", nlohmann::json::array({"SentTimestamp"})},
      {"MessageAttributeNames", nlohmann::json::array({"All"})},
  };
  auto response = client_.call("ReceiveMessage", request);
  if (!response) {
    return tl::unexpected(response.error());
  }
  std::vector<SqsMessage> out;
  auto messages = response->find("Messages");
  if (messages == response->end() || messages->is_null()) {
    return out;  // nothing arrived within the wait
  }
  if (!messages->is_array()) {
    return apiFail("MalformedResponse", "ReceiveMessage: Messages is not a list", 200);
  }
  for (const nlohmann::json& m : *messages) {
    if (!m.is_object()) {
      return apiFail("MalformedResponse", "ReceiveMessage: a message is not an object", 200);
    }
    SqsMessage message{stringOr(m, "MessageId"), stringOr(m, "ReceiptHandle"), stringOr(m, "Body"),
                       sentTimestamp(m)};
    if (message.receiptHandle.empty()) {
      // Without a handle it could never be deleted; SQS always sends one.
      return apiFail("MalformedResponse", "ReceiveMessage: a message has no ReceiptHandle", 200);
    }
    out.push_back(std::move(message));
  }
  return out;
}

ApiResult<void> SqsClient::deleteMessage(const std::string& queueUrl,
                                         const std::string& receiptHandle) {
  auto response =
      client_.call("DeleteMessage", {{"QueueUrl", queueUrl}, {"ReceiptHandle", receiptHandle}});
  if (!response) {
    return tl::unexpected(response.error());
  }
  return {};
}

}  // namespace nodewright::aws
