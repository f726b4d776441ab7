#pragma once

#include <cstdint>
#include <span>

// Declarative descriptions of the Kubernetes protobuf messages (the generated.proto files of
// k8s.io/api and k8s.io/apimachinery), just enough to turn their wire form into the JSON that
// Go's encoding/json would write for the same Go struct.
namespace nodewright::apiserver::protobuf {

struct MessageDescriptor;

enum class FieldKind : std::uint8_t {
  String,
  Bytes,  // []byte: base64 in JSON
  Bool,
  Int32,
  Int64,
  Message,      // a nested message described by Field::message
  Quantity,     // resource.Quantity {string = 1}: its string
  Time,         // metav1.Time {seconds = 1, nanos = 2}: RFC 3339, or null when unset
  IntOrString,  // intstr.IntOrString {type = 1, intVal = 2, strVal = 3}
};

enum class FieldShape : std::uint8_t {
  Single,
  Repeated,
  Map,  // map<string, kind>: entries {key = 1, value = 2}; JSON keys sorted as Go sorts them
};

struct Field {
  std::uint32_t number = 0;
  const char* json = "";
  FieldKind kind = FieldKind::String;
  FieldShape shape = FieldShape::Single;
  const MessageDescriptor* message = nullptr;
  // Go writes the zero value of a pointer field that is set, and of a field without
  // `omitempty`; the wire cannot tell those apart from omitted zeros, so the table says.
  bool keepZero = false;
  // An embedded Go struct (ProbeHandler in Probe, LocalObjectReference in key selectors): its
  // fields appear in the parent JSON object.
  bool inlined = false;

  constexpr Field keep() const {
    Field copy = *this;
    copy.keepZero = true;
    return copy;
  }
};

// `fields` are listed in Go struct order, which is the JSON order; numbers are the wire's.
struct MessageDescriptor {
  const char* name;
  std::span<const Field> fields;
};

namespace field {

constexpr Field scalar(std::uint32_t number, const char* json, FieldKind kind) {
  Field f;
  f.number = number;
  f.json = json;
  f.kind = kind;
  return f;
}
constexpr Field str(std::uint32_t n, const char* json) {
  return scalar(n, json, FieldKind::String);
}
constexpr Field bytes(std::uint32_t n, const char* json) {
  return scalar(n, json, FieldKind::Bytes);
}
constexpr Field boolean(std::uint32_t n, const char* json) {
  return scalar(n, json, FieldKind::Bool);
}
constexpr Field i32(std::uint32_t n, const char* json) {
  return scalar(n, json, FieldKind::Int32);
}
constexpr Field i64(std::uint32_t n, const char* json) {
  return scalar(n, json, FieldKind::Int64);
}
constexpr Field quantity(std::uint32_t n, const char* json) {
  return scalar(n, json, FieldKind::Quantity);
}
constexpr Field time(std::uint32_t n, const char* json) {
  return scalar(n, json, FieldKind::Time);
}
constexpr Field intOrString(std::uint32_t n, const char* json) {
  return scalar(n, json, FieldKind::IntOrString);
}
constexpr Field message(std::uint32_t n, const char* json, const MessageDescriptor& type) {
  Field f = scalar(n, json, FieldKind::Message);
  f.message = &type;
  return f;
}
constexpr Field inlined(std::uint32_t n, const MessageDescriptor& type) {
  Field f = message(n, "", type);
  f.inlined = true;
  return f;
}
constexpr Field repeated(Field element) {
  element.shape = FieldShape::Repeated;
  return element;
}
// `value` describes the map's value type; its number and name are the map field's.
constexpr Field mapOf(Field value) {
  value.shape = FieldShape::Map;
  return value;
}

}  // namespace field

}  // namespace nodewright::apiserver::protobuf
