#include "emulators/engine/store_codec.h"

#include <algorithm>
#include <exception>

#include <fmt/format.h>

namespace nodewright::emulators {
namespace {

// Fields that are rarely set are left out when unset, to keep files of thousands of
// resources small.
api::Json encodeTransition(const Transition& t) {
  api::Json j{{"to", t.to}, {"at", t.at}};
  if (t.keepFor) {
    j["keepFor"] = *t.keepFor;
  }
  return j;
}

Transition decodeTransition(const api::Json& j) {
  Transition t;
  t.to = j.at("to").get<std::string>();
  t.at = j.at("at").get<core::TimePoint>();
  t.keepFor = j.value("keepFor", std::optional<std::chrono::microseconds>());
  return t;
}

core::Result<api::Json> encodeResource(const Resource& r, const AttributeCodecs& codecs) {
  api::Json j{{"type", r.type}, {"id", r.id}, {"state", r.state}, {"created", r.created}};
  if (!r.clientToken.empty()) {
    j["clientToken"] = r.clientToken;
  }
  if (r.deleted) {
    j["deleted"] = *r.deleted;
  }
  if (r.expires) {
    j["expires"] = *r.expires;
  }
  if (r.next) {
    j["next"] = encodeTransition(*r.next);
  }
  if (!r.tags.empty()) {
    j["tags"] = r.tags;
  }
  if (r.attributes) {
    auto codec = codecs.find(r.type);
    std::optional<api::Json> attributes =
        codec == codecs.end() ? std::nullopt : codec->second.encode(*r.attributes);
    if (!attributes) {
      return core::fail(
          core::Error::internal(fmt::format("{} {}: no codec for its attributes", r.type, r.id)));
    }
    j["attributes"] = std::move(*attributes);
  }
  return j;
}

core::Result<Resource> decodeResource(const api::Json& j, const AttributeCodecs& codecs) {
  Resource r;
  r.type = j.at("type").get<std::string>();
  r.id = j.at("id").get<std::string>();
  r.state = j.at("state").get<std::string>();
  r.created = j.at("created").get<core::TimePoint>();
  r.clientToken = j.value("clientToken", std::string());
  r.deleted = j.value("deleted", std::optional<core::TimePoint>());
  r.expires = j.value("expires", std::optional<core::TimePoint>());
  if (auto next = j.find("next"); next != j.end() && !next->is_null()) {
    r.next = decodeTransition(*next);
  }
  r.tags = j.value("tags", Tags());
  std::sort(r.tags.begin(), r.tags.end(), [](const Tag& a, const Tag& b) { return a.key < b.key; });
  if (auto attributes = j.find("attributes"); attributes != j.end() && !attributes->is_null()) {
    auto codec = codecs.find(r.type);
    if (codec == codecs.end()) {
      return core::fail(core::Error::invalid(fmt::format("unknown resource type {}", r.type)));
    }
    auto decoded = codec->second.decode(*attributes);
    if (!decoded) {
      return core::fail(decoded.error());
    }
    r.attributes = std::move(*decoded);
  }
  return r;
}

}  // namespace

void to_json(api::Json& j, const Tag& tag) {
  j = api::Json{{"key", tag.key}, {"value", tag.value}};
}

void from_json(const api::Json& j, Tag& tag) {
  tag.key = j.at("key").get<std::string>();
  tag.value = j.value("value", std::string());
}

core::Result<api::Json> encodeStore(const StoreContents& contents, const AttributeCodecs& codecs) {
  api::Json resources = api::Json::array();
  for (const Resource& r : contents.resources) {
    auto j = encodeResource(r, codecs);
    if (!j) {
      return core::fail(j.error());
    }
    resources.push_back(std::move(*j));
  }
  return api::Json{{"idStream", contents.idStream}, {"resources", std::move(resources)}};
}

core::Result<StoreContents> decodeStore(const api::Json& json, const AttributeCodecs& codecs) {
  StoreContents out;
  std::string where = "store";
  try {
    out.idStream = json.at("idStream").get<uint64_t>();
    const api::Json& resources = json.at("resources");
    if (!resources.is_array()) {
      return core::fail(core::Error::invalid("store.resources: not an array"));
    }
    for (size_t i = 0; i < resources.size(); ++i) {
      where = fmt::format("store.resources[{}]", i);
      auto r = decodeResource(resources[i], codecs);
      if (!r) {
        return core::fail(core::Error::invalid(where + ": " + r.error().message()));
      }
      out.resources.push_back(std::move(*r));
    }
  } catch (const std::exception& e) {
    // nlohmann's type and key errors, and the codecs' own.
    return core::fail(core::Error::invalid(where + ": " + e.what()));
  }
  return out;
}

}  // namespace nodewright::emulators
