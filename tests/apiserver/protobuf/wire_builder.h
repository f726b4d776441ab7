#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// Writes protobuf wire data for hand-made test vectors (no schema, like the reader).
namespace nodewright::apiserver::protobuf::testing {

inline std::string varintBytes(std::uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
  return out;
}

class Proto {
 public:
  Proto& varint(std::uint32_t field, std::uint64_t value) {
    bytes_ += varintBytes(field << 3 | 0) + varintBytes(value);
    return *this;
  }
  Proto& bytes(std::uint32_t field, std::string_view value) {
    bytes_ += varintBytes(field << 3 | 2) + varintBytes(value.size());
    bytes_.append(value);
    return *this;
  }
  Proto& message(std::uint32_t field, const Proto& value) { return bytes(field, value.str()); }
  Proto& fixed64(std::uint32_t field, std::uint64_t value) {
    bytes_ += varintBytes(field << 3 | 1);
    for (int i = 0; i < 8; ++i) {
      bytes_ += static_cast<char>(value >> (8 * i));
    }
    return *this;
  }
  Proto& fixed32(std::uint32_t field, std::uint32_t value) {
    bytes_ += varintBytes(field << 3 | 5);
    for (int i = 0; i < 4; ++i) {
      bytes_ += static_cast<char>(value >> (8 * i));
    }
    return *this;
  }
  // A map<string, string> entry.
  Proto& entry(std::uint32_t field, std::string_view key, std::string_view value) {
    return message(field, Proto().bytes(1, key).bytes(2, value));
  }
  Proto& entry(std::uint32_t field, std::string_view key, const Proto& value) {
    return message(field, Proto().bytes(1, key).message(2, value));
  }
  Proto& raw(std::string_view data) {
    bytes_.append(data);
    return *this;
  }

  const std::string& str() const { return bytes_; }

 private:
  std::string bytes_;
};

// A request body as client-go writes it: "k8s\0" + runtime.Unknown.
inline std::string envelope(std::string_view apiVersion, std::string_view kind, const Proto& raw,
                            std::string_view contentEncoding = "") {
  Proto unknown;
  unknown.message(1, Proto().bytes(1, apiVersion).bytes(2, kind)).message(2, raw);
  unknown.bytes(3, contentEncoding).bytes(4, "");
  return std::string("k8s\0", 4) + unknown.str();
}

}  // namespace nodewright::apiserver::protobuf::testing
