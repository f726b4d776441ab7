#include "apiserver/protobuf/wire_reader.h"

#include <string>

namespace nodewright::apiserver::protobuf {
namespace {

constexpr std::uint32_t kMaxFieldNumber = (1u << 29) - 1;

core::Error truncated(std::string_view what) {
  return core::Error::invalid(std::string("unexpected end of input reading ") + std::string(what));
}

}  // namespace

const char* wireTypeName(WireType type) {
  switch (type) {
    case WireType::Varint:
      return "varint";
    case WireType::Fixed64:
      return "fixed64";
    case WireType::LengthDelimited:
      return "length-delimited";
    case WireType::StartGroup:
      return "start-group";
    case WireType::EndGroup:
      return "end-group";
    case WireType::Fixed32:
      return "fixed32";
  }
  return "unknown";
}

core::Result<std::uint64_t> WireReader::readVarint() {
  std::uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (rest_.empty()) {
      return core::fail(truncated("a varint"));
    }
    auto byte = static_cast<std::uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      return value;
    }
  }
  return core::fail(core::Error::invalid("varint longer than 10 bytes"));
}

core::Result<Tag> WireReader::readTag() {
  auto key = readVarint();
  if (!key) {
    return core::fail(key.error());
  }
  auto type = static_cast<std::uint32_t>(*key & 7);
  std::uint64_t number = *key >> 3;
  if (number == 0 || number > kMaxFieldNumber) {
    return core::fail(core::Error::invalid("invalid field number " + std::to_string(number)));
  }
  if (type > 5) {
    return core::fail(core::Error::invalid("invalid wire type " + std::to_string(type) +
                                           " for field " + std::to_string(number)));
  }
  return Tag{static_cast<std::uint32_t>(number), static_cast<WireType>(type)};
}

core::Result<std::string_view> WireReader::take(std::uint64_t count) {
  if (count > rest_.size()) {
    return core::fail(core::Error::invalid("length " + std::to_string(count) +
                                           " runs past the end of the input (" +
                                           std::to_string(rest_.size()) + " bytes left)"));
  }
  std::string_view taken = rest_.substr(0, count);
  rest_.remove_prefix(count);
  return taken;
}

core::Result<std::uint64_t> WireReader::readFixed64() {
  if (rest_.size() < 8) {
    return core::fail(truncated("a fixed64"));
  }
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) {
    value = (value << 8) | static_cast<std::uint8_t>(rest_[i]);
  }
  rest_.remove_prefix(8);
  return value;
}

core::Result<std::uint32_t> WireReader::readFixed32() {
  if (rest_.size() < 4) {
    return core::fail(truncated("a fixed32"));
  }
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) {
    value = (value << 8) | static_cast<std::uint8_t>(rest_[i]);
  }
  rest_.remove_prefix(4);
  return value;
}

core::Result<std::string_view> WireReader::readLengthDelimited() {
  auto length = readVarint();
  if (!length) {
    return core::fail(length.error());
  }
  return take(*length);
}

core::Status WireReader::skip(WireType type) {
  switch (type) {
    case WireType::Varint:
      if (auto value = readVarint(); !value) {
        return core::fail(value.error());
      }
      return core::ok();
    case WireType::Fixed64:
      if (auto value = readFixed64(); !value) {
        return core::fail(value.error());
      }
      return core::ok();
    case WireType::Fixed32:
      if (auto value = readFixed32(); !value) {
        return core::fail(value.error());
      }
      return core::ok();
    case WireType::LengthDelimited:
      if (auto value = readLengthDelimited(); !value) {
        return core::fail(value.error());
      }
      return core::ok();
    case WireType::StartGroup:
    case WireType::EndGroup:
      break;
  }
  return core::fail(
      core::Error::invalid(std::string("unsupported wire type ") + wireTypeName(type)));
}

}  // namespace nodewright::apiserver::protobuf
