#include "emulators/ec2/sqs.h"

#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "api/reflect/json.h"
#include "aws/query.h"
#include "aws/xml.h"

namespace nodewright::emulators::ec2 {
namespace {

using api::Json;

constexpr std::string_view kQueryVersion = "2012-11-05";
constexpr const char* kQueryNamespace = "http://queue.amazonaws.com/doc/2012-11-05/";

// One operation's input, whichever protocol carried it.
struct SqsCall {
  std::string operation;
  std::string queueName;  // from QueueName, or the last segment of QueueUrl
  std::string messageBody;
  std::string receiptHandle;
  SqsReceive receive;
  bool wantsAttributes = false;  // AttributeNames / MessageSystemAttributeNames asked for any
  std::map<std::string, std::string, std::less<>> attributes;
};

struct SqsOutcome {
  std::string queueUrl;
  std::string messageId;
  std::string md5OfBody;
  std::vector<SqsReceived> messages;
};

aws::ApiError invalidValue(std::string message) {
  return {"InvalidParameterValue", std::move(message), 400};
}

aws::ApiError missing(std::string_view name) {
  return {"MissingParameter", fmt::format("The request must contain the parameter {}.", name), 400};
}

// The queue a URL names: its last path segment (SQS's URLs end /<account>/<name>).
std::string queueFromUrl(std::string_view url) {
  while (url.ends_with('/')) {
    url.remove_suffix(1);
  }
  const size_t slash = url.rfind('/');
  return std::string(slash == std::string_view::npos ? url : url.substr(slash + 1));
}

std::string queueUrl(const http::Request& request, std::string_view account,
                     std::string_view name) {
  std::string host = request.header("host");
  if (host.empty()) {
    host = "localhost";
  }
  return fmt::format("http://{}/{}/{}", host, account, name);
}

// The code the Query protocol (and JSON's x-amzn-query-error header) gives an error.
std::string queryCode(std::string_view code) {
  if (code == "QueueDoesNotExist") {
    return "AWS.SimpleQueueService.NonExistentQueue";
  }
  return std::string(code);
}

bool senderFault(const aws::ApiError& error) {
  return error.httpStatus < 500;
}

aws::ApiResult<SqsOutcome> run(SqsQueues& queues, const SqsCall& call, const http::Request& request,
                               std::string_view account) {
  SqsOutcome out;
  const std::string& op = call.operation;
  if (call.queueName.empty()) {
    return tl::unexpected(
        missing(op == "CreateQueue" || op == "GetQueueUrl" ? "QueueName" : "QueueUrl"));
  }
  if (op == "CreateQueue") {
    if (auto created = queues.create(call.queueName, call.attributes); !created) {
      return tl::unexpected(created.error());
    }
    out.queueUrl = queueUrl(request, account, call.queueName);
  } else if (op == "GetQueueUrl") {
    if (!queues.exists(call.queueName)) {
      return tl::unexpected(
          aws::ApiError{"QueueDoesNotExist", "The specified queue does not exist.", 400});
    }
    out.queueUrl = queueUrl(request, account, call.queueName);
  } else if (op == "SendMessage") {
    if (call.messageBody.empty()) {
      return tl::unexpected(missing("MessageBody"));
    }
    auto id = queues.send(call.queueName, call.messageBody);
    if (!id) {
      return tl::unexpected(id.error());
    }
    out.messageId = std::move(*id);
    out.md5OfBody = sqsMd5Hex(call.messageBody);
  } else if (op == "ReceiveMessage") {
    auto received = queues.receive(call.queueName, call.receive);
    if (!received) {
      return tl::unexpected(received.error());
    }
    out.messages = std::move(*received);
  } else if (op == "DeleteMessage") {
    if (call.receiptHandle.empty()) {
      return tl::unexpected(missing("ReceiptHandle"));
    }
    if (auto removed = queues.remove(call.queueName, call.receiptHandle); !removed) {
      return tl::unexpected(removed.error());
    }
  } else {
    return tl::unexpected(aws::ApiError{
        "InvalidAction", fmt::format("The action {} is not valid for this endpoint.", op), 400});
  }
  return out;
}

// The system attributes of a received message, by SQS's names.
std::vector<std::pair<std::string, std::string>> messageAttributes(const SqsReceived& m) {
  auto ms = [](core::TimePoint t) {
    return std::to_string(
        std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count());
  };
  return {{"SenderId", "AIDAEMULATEDSENDER"},
          {"ApproximateFirstReceiveTimestamp", ms(m.firstReceived)},
          {"ApproximateReceiveCount", std::to_string(m.receiveCount)},
          {"SentTimestamp", ms(m.sent)}};
}

// ---- JSON 1.0 ----

aws::ApiResult<SqsCall> parseJsonCall(std::string operation, std::string_view body) {
  SqsCall call;
  call.operation = std::move(operation);
  Json in = Json::parse(body.empty() ? std::string_view("{}") : body, nullptr, false);
  if (in.is_discarded() || !in.is_object()) {
    return tl::unexpected(
        aws::ApiError{"SerializationException", "The request body is not a JSON object.", 400});
  }
  auto str = [&](const char* key) -> aws::ApiResult<std::string> {
    auto it = in.find(key);
    if (it == in.end() || it->is_null()) {
      return std::string();
    }
    if (!it->is_string()) {
      return tl::unexpected(invalidValue(fmt::format("{} must be a string.", key)));
    }
    return it->get<std::string>();
  };
  auto integer = [&](const char* key, int fallback) -> aws::ApiResult<int> {
    auto it = in.find(key);
    if (it == in.end() || it->is_null()) {
      return fallback;
    }
    if (!it->is_number_integer()) {
      return tl::unexpected(invalidValue(fmt::format("{} must be an integer.", key)));
    }
    const int64_t v = it->get<int64_t>();
    if (v < 0 || v > 1'000'000) {
      return tl::unexpected(
          invalidValue(fmt::format("Value {} for parameter {} is invalid.", v, key)));
    }
    return static_cast<int>(v);
  };
  auto name = str("QueueName");
  auto url = str("QueueUrl");
  auto body_ = str("MessageBody");
  auto handle = str("ReceiptHandle");
  auto max = integer("MaxNumberOfMessages", 1);
  auto wait = integer("WaitTimeSeconds", -1);
  auto visibility = integer("VisibilityTimeout", -1);
  for (const auto* r : {&name, &url, &body_, &handle}) {
    if (!*r) {
      return tl::unexpected(r->error());
    }
  }
  for (const auto* r : {&max, &wait, &visibility}) {
    if (!*r) {
      return tl::unexpected(r->error());
    }
  }
  call.queueName = !name->empty() ? *name : queueFromUrl(*url);
  call.messageBody = std::move(*body_);
  call.receiptHandle = std::move(*handle);
  call.receive = {*max, *wait, *visibility};
  for (const char* key : {"AttributeNames", "MessageSystemAttributeNames"}) {
    auto it = in.find(key);
    if (it != in.end() && it->is_array() && !it->empty()) {
      call.wantsAttributes = true;
    }
  }
  if (auto it = in.find("Attributes"); it != in.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) {
        return tl::unexpected(invalidValue(fmt::format("Attribute {} must be a string.", key)));
      }
      call.attributes.emplace(key, value.get<std::string>());
    }
  }
  return call;
}

std::string jsonBody(const SqsCall& call, const SqsOutcome& out) {
  Json body = Json::object();
  if (call.operation == "CreateQueue" || call.operation == "GetQueueUrl") {
    body["QueueUrl"] = out.queueUrl;
  } else if (call.operation == "SendMessage") {
    body["MessageId"] = out.messageId;
    body["MD5OfMessageBody"] = out.md5OfBody;
  } else if (call.operation == "ReceiveMessage" && !out.messages.empty()) {
    Json list = Json::array();
    for (const SqsReceived& m : out.messages) {
      Json message = {{"MessageId", m.messageId},
                      {"ReceiptHandle", m.receiptHandle},
                      {"MD5OfBody", m.md5OfBody},
                      {"Body", m.body}};
      if (call.wantsAttributes) {
        Json attributes = Json::object();
        for (const auto& [name, value] : messageAttributes(m)) {
          attributes[name] = value;
        }
        message["Attributes"] = std::move(attributes);
      }
      list.push_back(std::move(message));
    }
    body["Messages"] = std::move(list);
  }
  return api::dumpJson(body);
}

// ---- Query ----

aws::ApiResult<SqsCall> parseQueryCall(const aws::Params& params, const http::Request& request) {
  SqsCall call;
  call.operation = params.strOr("Action", "");
  if (auto version = params.find("Version"); version && *version != kQueryVersion) {
    return tl::unexpected(aws::ApiError{
        "NoSuchVersion",
        fmt::format("The requested version ({}) of service AmazonSQS does not exist.", *version),
        400});
  }
  auto integer = [&](const char* key, int fallback) -> aws::ApiResult<int> {
    auto v = params.optInteger(key);
    if (!v) {
      return tl::unexpected(v.error());
    }
    if (!*v) {
      return fallback;
    }
    if (**v < 0 || **v > 1'000'000) {
      return tl::unexpected(
          invalidValue(fmt::format("Value {} for parameter {} is invalid.", **v, key)));
    }
    return static_cast<int>(**v);
  };
  auto max = integer("MaxNumberOfMessages", 1);
  auto wait = integer("WaitTimeSeconds", -1);
  auto visibility = integer("VisibilityTimeout", -1);
  for (const auto* r : {&max, &wait, &visibility}) {
    if (!*r) {
      return tl::unexpected(r->error());
    }
  }
  call.receive = {*max, *wait, *visibility};
  std::string name = params.strOr("QueueName", "");
  if (name.empty()) {
    std::string url = params.strOr("QueueUrl", "");
    // The Query protocol may also name the queue by the request's path (/<account>/<name>).
    name = queueFromUrl(url.empty() && request.path != "/" ? request.path : url);
  }
  call.queueName = std::move(name);
  call.messageBody = params.strOr("MessageBody", "");
  call.receiptHandle = params.strOr("ReceiptHandle", "");
  call.wantsAttributes = params.has("AttributeName") || params.has("MessageSystemAttributeName");
  auto attributes = params.list("Attribute");
  if (!attributes) {
    return tl::unexpected(attributes.error());
  }
  for (const aws::Params& a : *attributes) {
    call.attributes.emplace(a.strOr("Name", ""), a.strOr("Value", ""));
  }
  return call;
}

std::string save(const pugi::xml_document& doc) {
  std::ostringstream out;
  doc.save(out, "", pugi::format_raw, pugi::encoding_utf8);
  return out.str();
}

std::string queryBody(const SqsCall& call, const SqsOutcome& out, std::string_view requestId) {
  pugi::xml_document doc;
  auto declaration = doc.append_child(pugi::node_declaration);
  declaration.append_attribute("version") = "1.0";
  const std::string rootName = call.operation + "Response";
  pugi::xml_node root = doc.append_child(rootName.c_str());
  root.append_attribute("xmlns") = kQueryNamespace;
  if (call.operation != "DeleteMessage") {
    const std::string resultName = call.operation + "Result";
    pugi::xml_node result = root.append_child(resultName.c_str());
    if (call.operation == "CreateQueue" || call.operation == "GetQueueUrl") {
      aws::xml::addText(result, "QueueUrl", out.queueUrl);
    } else if (call.operation == "SendMessage") {
      aws::xml::addText(result, "MD5OfMessageBody", out.md5OfBody);
      aws::xml::addText(result, "MessageId", out.messageId);
    } else {
      for (const SqsReceived& m : out.messages) {
        pugi::xml_node message = result.append_child("Message");
        aws::xml::addText(message, "MessageId", m.messageId);
        aws::xml::addText(message, "ReceiptHandle", m.receiptHandle);
        aws::xml::addText(message, "MD5OfBody", m.md5OfBody);
        aws::xml::addText(message, "Body", m.body);
        if (call.wantsAttributes) {
          for (const auto& [name, value] : messageAttributes(m)) {
            pugi::xml_node attribute = message.append_child("Attribute");
            aws::xml::addText(attribute, "Name", name);
            aws::xml::addText(attribute, "Value", value);
          }
        }
      }
    }
  }
  aws::xml::addText(root.append_child("ResponseMetadata"), "RequestId", requestId);
  return save(doc);
}

SqsReply failure(std::string operation, const aws::ApiError& error, http::Response response) {
  return {std::move(response), std::move(operation), error.code};
}

}  // namespace

bool isSqsQueryRequest(const http::Request& request) {
  return request.header("authorization").find("/sqs/aws4_request") != std::string::npos;
}

http::Response sqsJsonError(const aws::ApiError& error, std::string_view requestId) {
  http::Response r;
  r.status = error.httpStatus;
  r.contentType = "application/x-amz-json-1.0";
  r.body = api::dumpJson(
      Json{{"__type", "com.amazonaws.sqs#" + error.code}, {"message", error.message}});
  r.headers.emplace_back("x-amzn-RequestId", std::string(requestId));
  // SQS's JSON answers keep the Query protocol's code for clients that migrated from it.
  r.headers.emplace_back("x-amzn-query-error",
                         queryCode(error.code) + (senderFault(error) ? ";Sender" : ";Receiver"));
  return r;
}

http::Response sqsQueryError(const aws::ApiError& error, std::string_view requestId) {
  pugi::xml_document doc;
  auto declaration = doc.append_child(pugi::node_declaration);
  declaration.append_attribute("version") = "1.0";
  pugi::xml_node root = doc.append_child("ErrorResponse");
  root.append_attribute("xmlns") = kQueryNamespace;
  pugi::xml_node e = root.append_child("Error");
  aws::xml::addText(e, "Type", senderFault(error) ? "Sender" : "Receiver");
  aws::xml::addText(e, "Code", queryCode(error.code));
  aws::xml::addText(e, "Message", error.message);
  e.append_child("Detail");
  aws::xml::addText(root, "RequestId", requestId);
  http::Response r;
  r.status = error.httpStatus;
  r.contentType = "text/xml";
  r.body = save(doc);
  r.headers.emplace_back("x-amzn-RequestId", std::string(requestId));
  return r;
}

SqsReply serveSqsJson(SqsQueues& queues, const http::Request& request, std::string_view account,
                      std::string_view requestId) {
  std::string operation = request.header("x-amz-target").substr(kSqsTargetPrefix.size());
  if (operation.empty()) {
    operation = "(none)";
  }
  auto call = parseJsonCall(operation, request.body);
  if (!call) {
    return failure(operation, call.error(), sqsJsonError(call.error(), requestId));
  }
  auto out = run(queues, *call, request, account);
  if (!out) {
    return failure(operation, out.error(), sqsJsonError(out.error(), requestId));
  }
  http::Response r;
  r.contentType = "application/x-amz-json-1.0";
  r.body = jsonBody(*call, *out);
  r.headers.emplace_back("x-amzn-RequestId", std::string(requestId));
  return {std::move(r), operation, ""};
}

SqsReply serveSqsQuery(SqsQueues& queues, const http::Request& request, std::string_view account,
                       std::string_view requestId) {
  auto params = aws::Params::parse(request.method == "POST" && !request.body.empty()
                                       ? std::string_view(request.body)
                                       : std::string_view(request.rawQuery));
  if (!params) {
    return failure("(none)", params.error(), sqsQueryError(params.error(), requestId));
  }
  auto call = parseQueryCall(*params, request);
  const std::string operation =
      call && !call->operation.empty() ? call->operation : std::string("(none)");
  if (!call) {
    return failure(operation, call.error(), sqsQueryError(call.error(), requestId));
  }
  if (call->operation.empty()) {
    aws::ApiError error = missing("Action");
    return failure(operation, error, sqsQueryError(error, requestId));
  }
  auto out = run(queues, *call, request, account);
  if (!out) {
    return failure(operation, out.error(), sqsQueryError(out.error(), requestId));
  }
  http::Response r;
  r.contentType = "text/xml";
  r.body = queryBody(*call, *out, requestId);
  r.headers.emplace_back("x-amzn-RequestId", std::string(requestId));
  return {std::move(r), operation, ""};
}

}  // namespace nodewright::emulators::ec2
