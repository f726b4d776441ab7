#include "apiserver/protobuf/scalars.h"

#include <chrono>
#include <cstdio>

#include "apiserver/protobuf/wire_reader.h"

namespace nodewright::apiserver::protobuf {
namespace {

// 0001-01-01T00:00:00Z, Go's zero time: IsZero, so metav1.Time writes null for it.
constexpr std::int64_t kGoZeroTimeSeconds = -62135596800;
constexpr std::int64_t kMaxRfc3339Seconds = 253402300799;  // 9999-12-31T23:59:59Z

}  // namespace

core::Result<api::Json> decodeQuantity(std::string_view payload) {
  WireReader reader(payload);
  std::string text;
  while (!reader.atEnd()) {
    auto tag = reader.readTag();
    if (!tag) {
      return core::fail(tag.error());
    }
    if (tag->number == 1 && tag->type == WireType::LengthDelimited) {
      auto value = reader.readLengthDelimited();
      if (!value) {
        return core::fail(value.error());
      }
      text = validUtf8(*value);
    } else if (auto skipped = reader.skip(tag->type); !skipped) {
      return core::fail(skipped.error());
    }
  }
  return api::Json(text.empty() ? std::string("0") : text);
}

core::Result<std::string> formatRfc3339(std::int64_t seconds) {
  if (seconds < kGoZeroTimeSeconds || seconds > kMaxRfc3339Seconds) {
    return core::fail(core::Error::invalid("time " + std::to_string(seconds) +
                                           "s since the epoch is outside years 1 to 9999"));
  }
  using namespace std::chrono;
  sys_seconds point{std::chrono::seconds(seconds)};
  auto day = floor<days>(point);
  year_month_day date{day};
  hh_mm_ss clock{point - day};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()));
  return std::string(text);
}

core::Result<api::Json> decodeTime(std::string_view payload) {
  if (payload.empty()) {
    return api::Json(nullptr);
  }
  WireReader reader(payload);
  std::int64_t seconds = 0;
  while (!reader.atEnd()) {
    auto tag = reader.readTag();
    if (!tag) {
      return core::fail(tag.error());
    }
    if (tag->number == 1 && tag->type == WireType::Varint) {
      auto value = reader.readVarint();
      if (!value) {
        return core::fail(value.error());
      }
      seconds = static_cast<std::int64_t>(*value);
    } else if (auto skipped = reader.skip(tag->type); !skipped) {
      return core::fail(skipped.error());
    }
  }
  if (seconds == kGoZeroTimeSeconds) {
    return api::Json(nullptr);
  }
  auto text = formatRfc3339(seconds);
  if (!text) {
    return core::fail(text.error());
  }
  return api::Json(*text);
}

core::Result<api::Json> decodeIntOrString(std::string_view payload) {
  WireReader reader(payload);
  std::int64_t type = 0;
  std::int32_t intValue = 0;
  std::string stringValue;
  while (!reader.atEnd()) {
    auto tag = reader.readTag();
    if (!tag) {
      return core::fail(tag.error());
    }
    if ((tag->number == 1 || tag->number == 2) && tag->type == WireType::Varint) {
      auto value = reader.readVarint();
      if (!value) {
        return core::fail(value.error());
      }
      if (tag->number == 1) {
        type = static_cast<std::int64_t>(*value);
      } else {
        intValue = static_cast<std::int32_t>(*value);
      }
    } else if (tag->number == 3 && tag->type == WireType::LengthDelimited) {
      auto value = reader.readLengthDelimited();
      if (!value) {
        return core::fail(value.error());
      }
      stringValue = validUtf8(*value);
    } else if (auto skipped = reader.skip(tag->type); !skipped) {
      return core::fail(skipped.error());
    }
  }
  if (type == 0) {
    return api::Json(intValue);
  }
  if (type == 1) {
    return api::Json(stringValue);
  }
  return core::fail(core::Error::invalid("impossible IntOrString.Type " + std::to_string(type)));
}

}  // namespace nodewright::apiserver::protobuf
