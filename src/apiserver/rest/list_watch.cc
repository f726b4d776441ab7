#include "apiserver/rest/list_watch.h"

#include "api/core/validation.h"
#include "apiserver/rest/handler.h"
#include "apiserver/rest/object_meta.h"
#include "apiserver/rest/query.h"
#include "apiserver/rest/request.h"
#include "apiserver/table/table.h"

namespace nodewright::apiserver::rest {
namespace {

using api::Json;
using Clock = std::chrono::steady_clock;

const char* eventName(storage::EventType type) {
  switch (type) {
    case storage::EventType::Added:
      return "ADDED";
    case storage::EventType::Modified:
      return "MODIFIED";
    case storage::EventType::Deleted:
      return "DELETED";
  }
  return "MODIFIED";
}

std::string eventLine(std::string_view type, std::string_view objectText) {
  std::string line;
  line.reserve(objectText.size() + 32);
  line += "{\"type\":\"";
  line += type;
  line += "\",\"object\":";
  line += objectText;
  line += "}\n";
  return line;
}

}  // namespace

ApiResult<Selection> Selection::fromRequest(const http::Request& request,
                                            const Resource& resource) {
  Selection selection;
  std::string labelText = request.param("labelSelector");
  if (!labelText.empty()) {
    auto parsed = api::parseSelector(labelText);
    if (!parsed) {
      return tl::unexpected(
          errors::badRequest("unable to parse requirement: " + parsed.error().message()));
    }
    selection.labels_ = std::move(*parsed);
  }
  std::string fieldText = request.param("fieldSelector");
  if (!fieldText.empty()) {
    auto parsed = FieldSelector::parse(fieldText);
    if (!parsed) {
      return tl::unexpected(errors::badRequest(parsed.error().message()));
    }
    auto checked = parsed->forResource(resource);
    if (!checked) {
      return tl::unexpected(errors::badRequest(checked.error().message()));
    }
    selection.fields_ = std::move(*checked);
  }
  return selection;
}

bool Selection::matches(const Json& object) const {
  if (labels_ && !api::matches(*labels_, meta::labels(object))) {
    return false;
  }
  if (fields_ && !fields_->matches(object)) {
    return false;
  }
  return true;
}

std::function<bool(const Json&)> Selection::predicate() const {
  if (empty()) {
    return {};
  }
  return [self = *this](const Json& object) { return self.matches(object); };
}

std::string encodeContinue(int64_t revision, const std::string& lastKey) {
  return api::corev1::encodeBase64(api::dumpJson(Json{{"rv", revision}, {"start", lastKey}}));
}

ApiResult<std::pair<int64_t, std::string>> decodeContinue(const std::string& token) {
  auto decoded = api::corev1::decodeBase64(token);
  if (decoded.errorOffset) {
    return tl::unexpected(errors::badRequest("continue key is not valid"));
  }
  Json value = Json::parse(decoded.bytes, nullptr, false);
  if (!value.is_object() || !value.contains("rv") || !value["rv"].is_number_integer() ||
      !value.contains("start") || !value["start"].is_string()) {
    return tl::unexpected(errors::badRequest("continue key is not valid"));
  }
  return std::pair{value["rv"].get<int64_t>(), value["start"].get<std::string>()};
}

void Handler::list(const http::Request& request, const Target& target, http::Exchange& exchange) {
  const Resource& resource = *target.resource;
  auto selection = Selection::fromRequest(request, resource);
  if (!selection) {
    exchange.respond(selection.error().toResponse());
    return;
  }
  auto query = listOptions(request);
  if (!query) {
    exchange.respond(query.error().toResponse());
    return;
  }
  // A limit of zero or less lists everything, as the storage layer reads it.
  size_t limit = query->limit > 0 ? static_cast<size_t>(query->limit) : 0;
  std::string startAfter;
  if (const std::string& token = query->continueToken; !token.empty()) {
    auto decoded = decodeContinue(token);
    if (!decoded) {
      exchange.respond(decoded.error().toResponse());
      return;
    }
    startAfter = decoded->second;
  }
  auto result =
      store_.list(storagePrefix(resource, target.ns), startAfter, limit, selection->predicate());
  std::string continueToken =
      result.lastKey ? encodeContinue(result.revision, *result.lastKey) : std::string();
  if (wantsTable(request)) {
    auto options = tableOptions(request);
    if (!options) {
      exchange.respond(options.error().toResponse());
      return;
    }
    std::vector<Json> objects;
    objects.reserve(result.items.size());
    for (const auto& item : result.items) {
      objects.push_back(*item->object);
    }
    TableListMeta listMeta{std::to_string(result.revision), continueToken, std::nullopt};
    if (!continueToken.empty()) {
      listMeta.remainingItemCount = static_cast<int64_t>(result.remaining);
    }
    auto table = listTable(resource, objects, listMeta, clock_.now(), *options);
    exchange.respond(table ? jsonResponse(200, *table)
                           : errors::internal(table.error().message()).toResponse());
    return;
  }
  std::string body;
  body.reserve(256 + result.items.size() * 1024);
  body += "{\"kind\":\"" + resource.kind + "List\",\"apiVersion\":\"" + resource.apiVersion() +
          "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(result.revision) + "\"";
  if (!continueToken.empty()) {
    body += ",\"continue\":\"" + continueToken +
            "\",\"remainingItemCount\":" + std::to_string(result.remaining);
  }
  body += "},\"items\":[";
  for (size_t i = 0; i < result.items.size(); ++i) {
    if (i) {
      body += ',';
    }
    body += *result.items[i]->text;
  }
  body += "]}";
  exchange.respond(textJsonResponse(200, std::move(body)));
}

void Handler::watch(const http::Request& request, const Target& target, http::Exchange& exchange) {
  const Resource& resource = *target.resource;
  auto selection = Selection::fromRequest(request, resource);
  if (!selection) {
    exchange.respond(selection.error().toResponse());
    return;
  }
  auto query = listOptions(request);
  if (!query) {
    exchange.respond(query.error().toResponse());
    return;
  }
  const std::string& rv = query->resourceVersion;
  const bool bookmarks = query->allowWatchBookmarks;
  const bool initialEvents = query->sendInitialEvents.value_or(false);
  // timeoutSeconds=0 or absent: the server's own timeout (get.go serveWatch); a negative one
  // has already expired.
  auto timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.defaultWatchTimeout);
  if (query->timeoutSeconds && *query->timeoutSeconds != 0) {
    timeout = std::chrono::seconds(std::max<int64_t>(0, *query->timeoutSeconds));
  }
  int64_t from = 0;
  bool listFirst = rv.empty() || rv == "0" || initialEvents;
  if (!listFirst) {
    try {
      from = std::stoll(rv);
    } catch (const std::exception&) {
      exchange.respond(
          errors::badRequest("resourceVersion: Invalid value: \"" + rv + "\"").toResponse());
      return;
    }
  }
  const bool table = wantsTable(request);
  auto tableOpts = tableOptions(request);
  if (!tableOpts) {
    exchange.respond(tableOpts.error().toResponse());
    return;
  }
  bool firstTable = true;
  // Like kube-apiserver, only the first Table of a watch carries the column definitions.
  auto render = [&](const storage::Stored& stored) -> std::string {
    if (!table) {
      return *stored.text;
    }
    auto t = objectTable(resource, *stored.object, clock_.now(), *tableOpts);
    if (!t) {
      return *stored.text;
    }
    if (!firstTable) {
      t->erase("columnDefinitions");
    }
    firstTable = false;
    return api::dumpJson(*t);
  };
  const std::string prefix = storagePrefix(resource, target.ns);
  http::Stream& stream = exchange.startStream(200, "application/json");
  auto bookmark = [&](int64_t revision, bool initialEnd) {
    Json object = {{"kind", resource.kind},
                   {"apiVersion", resource.apiVersion()},
                   {"metadata", {{"resourceVersion", std::to_string(revision)}}}};
    if (initialEnd) {
      object["metadata"]["annotations"] = {{"k8s.io/initial-events-end", "true"}};
    }
    return stream.write(eventLine("BOOKMARK", api::dumpJson(object)));
  };
  auto expired = [&](const std::string& message) {
    stream.write(eventLine("ERROR", api::dumpJson(errors::gone(message).toStatus())));
  };
  if (listFirst) {
    auto snapshot = store_.list(prefix, "", 0, selection->predicate());
    for (const auto& item : snapshot.items) {
      if (!stream.write(eventLine("ADDED", render(*item)))) {
        return;
      }
    }
    from = snapshot.revision;
    if (initialEvents && bookmarks && !bookmark(from, true)) {
      return;
    }
  }
  auto subscription = store_.watch(prefix, from);
  if (!subscription) {
    expired(subscription.error().message());
    return;
  }
  auto& w = **subscription;
  const auto deadline = Clock::now() + timeout;
  auto nextBookmark = Clock::now() + options_.bookmarkInterval;
  while (!stopping_) {
    auto now = Clock::now();
    if (now >= deadline) {
      return;
    }
    auto wait = std::min(
        {deadline - now, nextBookmark - now, Clock::duration(std::chrono::milliseconds(500))});
    auto events = w.next(std::max(std::chrono::duration_cast<std::chrono::milliseconds>(wait),
                                  std::chrono::milliseconds(1)));
    if (!events) {
      if (events.error().is(core::Code::Conflict)) {
        expired(events.error().message());
      }
      return;
    }
    for (const auto& event : *events) {
      const storage::Stored& stored = *event.stored;
      std::string type = eventName(event.type);
      if (!selection->empty()) {
        // Like kube's watch cache: an object entering the selection is ADDED, one leaving it
        // is DELETED (carrying its new state).
        bool was = event.previous && selection->matches(*event.previous->object);
        bool is = event.type != storage::EventType::Deleted && selection->matches(*stored.object);
        if (!was && !is) {
          continue;
        }
        type = !is ? "DELETED" : (was ? "MODIFIED" : "ADDED");
      }
      if (!stream.write(eventLine(type, render(stored)))) {
        return;
      }
    }
    if (Clock::now() >= nextBookmark) {
      nextBookmark = Clock::now() + options_.bookmarkInterval;
      if (bookmarks && !bookmark(w.cursor(), false)) {
        return;
      }
    }
  }
}

void Handler::removeCollection(const http::Request& request, const Target& target,
                               http::Exchange& exchange) {
  const Resource& resource = *target.resource;
  auto selection = Selection::fromRequest(request, resource);
  if (!selection) {
    exchange.respond(selection.error().toResponse());
    return;
  }
  auto options = deleteOptions(request);
  if (!options) {
    exchange.respond(options.error().toResponse());
    return;
  }
  auto result = store_.list(storagePrefix(resource, target.ns), "", 0, selection->predicate());
  std::string body = "{\"kind\":\"" + resource.kind + "List\",\"apiVersion\":\"" +
                     resource.apiVersion() + "\",\"metadata\":{\"resourceVersion\":\"" +
                     std::to_string(result.revision) + "\"},\"items\":[";
  bool first = true;
  for (const auto& item : result.items) {
    const Json& object = *item->object;
    auto removed =
        objects_.remove(resource, meta::namespaceOf(object), meta::name(object), *options);
    if (!removed) {
      if (removed.error().code == 404) {
        continue;
      }
      exchange.respond(removed.error().toResponse());
      return;
    }
    if (!first) {
      body += ',';
    }
    first = false;
    body += api::dumpJson(*removed);
  }
  body += "]}";
  exchange.respond(textJsonResponse(200, std::move(body)));
}

}  // namespace nodewright::apiserver::rest
