#pragma once

#include <cstdint>
#include <string_view>

#include "core/error.h"

// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/), read without
// any schema so unknown fields can be skipped: the wire type alone says how long a value is.
namespace nodewright::apiserver::protobuf {

enum class WireType : std::uint8_t {
  Varint = 0,
  Fixed64 = 1,
  LengthDelimited = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5,
};

struct Tag {
  std::uint32_t number = 0;
  WireType type = WireType::Varint;
};

// Reads values front to back from a view it does not own (`bytes` must outlive the reader).
// Every read checks the remaining length, so truncated or hostile input yields Invalid errors.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : rest_(bytes) {}

  bool atEnd() const { return rest_.empty(); }

  // Field number 0, numbers past 2^29-1 and the wire types 6 and 7 are rejected.
  core::Result<Tag> readTag();
  // At most ten bytes, as protobuf encoders never write more.
  core::Result<std::uint64_t> readVarint();
  core::Result<std::uint64_t> readFixed64();
  core::Result<std::uint32_t> readFixed32();
  // A length prefix and that many bytes, as a view into the input.
  core::Result<std::string_view> readLengthDelimited();
  // Skips the value of a field of `type`. Groups (deprecated, never used by Kubernetes) are
  // rejected rather than walked.
  core::Status skip(WireType type);

 private:
  core::Result<std::string_view> take(std::uint64_t count);

  std::string_view rest_;
};

// "varint", "length-delimited", ... for error messages.
const char* wireTypeName(WireType type);

}  // namespace nodewright::apiserver::protobuf
