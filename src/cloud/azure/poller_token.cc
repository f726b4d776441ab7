#include "cloud/azure/poller.h"

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "api/reflect/json.h"
#include "cloud/azure/api_versions.h"
#include "cloud/azure/http_util.h"

// The resume token's wire form. Its fields change only with kPollerVersion: tokens outlive the
// process that wrote them (they sit in objects' status), and an old one must fail cleanly.
namespace nodewright::cloud::azure {
namespace {

lro::CallError invalidToken(std::string why) {
  lro::CallError error;
  error.kind = lro::CallError::Kind::BadToken;
  error.code = "InvalidResumeToken";
  error.message = "unreadable ARM resume token: " + std::move(why);
  return error;
}

std::optional<lro::Verb> verbFrom(std::string_view text) {
  if (text == "PUT") {
    return lro::Verb::Put;
  }
  if (text == "PATCH") {
    return lro::Verb::Patch;
  }
  if (text == "DELETE") {
    return lro::Verb::Delete;
  }
  return std::nullopt;
}

const char* viaText(PollVia via) {
  switch (via) {
    case PollVia::AsyncOperation:
      return "async";
    case PollVia::Location:
      return "location";
    case PollVia::Body:
      return "body";
  }
  return "body";
}

std::optional<PollVia> viaFrom(std::string_view text) {
  if (text == "async") {
    return PollVia::AsyncOperation;
  }
  if (text == "location") {
    return PollVia::Location;
  }
  if (text == "body") {
    return PollVia::Body;
  }
  return std::nullopt;
}
}  // namespace

const char* methodName(lro::Verb verb) {
  switch (verb) {
    case lro::Verb::Put:
      return "PUT";
    case lro::Verb::Patch:
      return "PATCH";
    case lro::Verb::Delete:
      return "DELETE";
  }
  return "PUT";
}

std::string serializePoller(const PollerState& state) {
  api::Json doc = api::Json::object();
  doc["v"] = kPollerVersion;
  doc["verb"] = methodName(state.verb);
  doc["id"] = state.resourceId;
  doc["api"] = state.apiVersion;
  doc["via"] = viaText(state.via);
  if (state.via != PollVia::Body) {
    doc["url"] = state.url;
  }
  // parsePoller admits only valid UTF-8 and stateAfterBegin only plain URLs; replacing what
  // is not keeps dump() from throwing should a caller build a state by hand.
  return doc.dump(-1, ' ', false, api::Json::error_handler_t::replace);
}

lro::CallResult<PollerState> parsePoller(std::string_view token) {
  auto invalid = [](std::string why) { return tl::unexpected(invalidToken(std::move(why))); };
  const api::Json doc = api::Json::parse(token, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    return invalid("not a JSON object");
  }
  static const std::set<std::string, std::less<>> kFields = {"v",   "verb", "id",
                                                             "api", "via",  "url"};
  for (const auto& [key, value] : doc.items()) {
    if (!kFields.contains(key)) {
      return invalid("unknown field " + key);
    }
  }
  auto version = doc.find("v");
  if (version == doc.end() || !version->is_number_integer() ||
      version->get<int64_t>() != kPollerVersion) {
    return invalid("not version " + std::to_string(kPollerVersion));
  }
  auto text = [&](const char* name) -> std::optional<std::string> {
    auto it = doc.find(name);
    if (it == doc.end() || !it->is_string() || it->get<std::string>().empty()) {
      return std::nullopt;
    }
    return it->get<std::string>();
  };
  PollerState state;
  auto verb = text("verb");
  auto id = text("id");
  auto api = text("api");
  auto via = text("via");
  if (!verb || !verbFrom(*verb)) {
    return invalid("no known verb");
  }
  // As strict as ArmClient::target(): a token anyone could have edited must not make a request
  // curl refuses, again at every poll.
  if (!id || !validResourceId(*id)) {
    return invalid("no resource id");
  }
  if (!api || !validApiVersion(*api)) {
    return invalid("no api-version");
  }
  if (!via || !viaFrom(*via)) {
    return invalid("no known mechanism");
  }
  state.verb = *verbFrom(*verb);
  state.resourceId = *id;
  state.apiVersion = *api;
  state.via = *viaFrom(*via);
  auto url = text("url");
  if (state.via == PollVia::Body) {
    if (doc.contains("url")) {
      return invalid("a URL for body polling");
    }
  } else if (!url || !plainUrl(*url)) {
    return invalid("no absolute status monitor URL");
  } else {
    state.url = *url;
  }
  return state;
}

}  // namespace nodewright::cloud::azure
