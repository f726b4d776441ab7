#include "apiserver/protobuf/scalars.h"

#include <chrono>
#include <cstdio>

#include "apiserver/protobuf/wire_reader.h"

namespace nodewright::apiserver::protobuf {
namespace {

// 0001-01-01T00:00:00Z, Go's zero time: IsZero, so metav1.Time writes null for it.
constexpr std::int64_t kGoZeroTimeSeconds = -62135596800;
constexpr std::int64_t kMaxRfc3339Seconds = 253402300799;  // 9999-12-31T23:59:59Z

// Length of the valid UTF-8 sequence at the start of `s`, or 0 (Go's utf8 rules: no overlong
// forms, no surrogates, nothing past U+10FFFF).
std::size_t validSequenceLength(std::string_view s) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char lead = byte(0);
  if (lead < 0x80) {
    return 1;
  }
  std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || s.size() < length) {
    return 0;
  }
  unsigned char low = 0x80, high = 0xBF;
  if (lead == 0xE0) {
    low = 0xA0;
  }
  if (lead == 0xED) {
    high = 0x9F;
  }
  if (lead == 0xF0) {
    low = 0x90;
  }
  if (lead == 0xF4) {
    high = 0x8F;
  }
  if (byte(1) < low || byte(1) > high) {
    return 0;
  }
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) {
      return 0;
    }
  }
  return length;
}

}  // namespace

std::string validUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    std::size_t length = validSequenceLength(bytes);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      length = 1;
    } else {
      out.append(bytes.substr(0, length));
    }
    bytes.remove_prefix(length);
  }
  return out;
}

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
