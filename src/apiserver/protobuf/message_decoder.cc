#include "apiserver/protobuf/message_decoder.h"

#include <map>
#include <string>
#include <vector>

#include "api/core/validation.h"
#include "apiserver/protobuf/scalars.h"
#include "apiserver/protobuf/wire_reader.h"

namespace nodewright::apiserver::protobuf {
namespace {

using api::Json;

// What one field of the message collected while its wire data was read.
struct Slot {
  bool seen = false;
  Json value;
  std::map<std::string, Json> entries;  // maps: ordered as Go's encoding/json sorts keys
};

bool isVarintKind(FieldKind kind) {
  return kind == FieldKind::Bool || kind == FieldKind::Int32 || kind == FieldKind::Int64;
}

// Errors from the wire reader and the value types say what went wrong; this adds where.
core::Error located(const std::string& path, const core::Error& error) {
  return core::Error::invalid("protobuf: " + path + ": " + error.message());
}

core::Result<Json> decodeAt(std::string_view bytes, const MessageDescriptor& type,
                            const std::string& path);

Json varintValue(FieldKind kind, std::uint64_t raw) {
  switch (kind) {
    case FieldKind::Bool:
      return raw != 0;
    case FieldKind::Int32:
      // Negative int32 values are sign-extended to ten bytes; Go keeps the low 32 bits.
      return static_cast<std::int64_t>(static_cast<std::int32_t>(raw));
    default:
      return static_cast<std::int64_t>(raw);
  }
}

// Decodes a length-delimited value of `field`; errors are located at `path`.
core::Result<Json> lengthDelimitedValue(const Field& field, std::string_view payload,
                                        const std::string& path) {
  core::Result<Json> value = Json();
  switch (field.kind) {
    case FieldKind::String:
      return Json(validUtf8(payload));
    case FieldKind::Bytes:
      return Json(api::corev1::encodeBase64(payload));
    case FieldKind::Quantity:
      value = decodeQuantity(payload);
      break;
    case FieldKind::Time:
      value = decodeTime(payload);
      break;
    case FieldKind::IntOrString:
      value = decodeIntOrString(payload);
      break;
    case FieldKind::Message:
      return decodeAt(payload, *field.message, path);
    default:
      return core::fail(located(path, core::Error::invalid("not a length-delimited kind")));
  }
  if (!value) {
    return core::fail(located(path, value.error()));
  }
  return value;
}

// The value a map entry has when its value field is absent from the wire.
Json zeroValue(const Field& field) {
  switch (field.kind) {
    case FieldKind::Quantity:
      return "0";
    case FieldKind::Time:
      return nullptr;
    case FieldKind::Message:
      return Json::object();
    case FieldKind::Bool:
      return false;
    case FieldKind::Int32:
    case FieldKind::Int64:
      return 0;
    default:
      return "";
  }
}

// A map entry is a message {key = 1, value = 2}; keys are always strings in Kubernetes.
// Errors are located.
core::Status readMapEntry(const Field& field, std::string_view payload, const std::string& path,
                          Slot& slot) {
  WireReader reader(payload);
  std::string key;
  Json value = zeroValue(field);
  while (!reader.atEnd()) {
    auto tag = reader.readTag();
    if (!tag) {
      return core::fail(located(path, tag.error()));
    }
    bool varint = tag->type == WireType::Varint;
    bool delimited = tag->type == WireType::LengthDelimited;
    if (tag->number == 1 && delimited) {
      auto text = reader.readLengthDelimited();
      if (!text) {
        return core::fail(located(path, text.error()));
      }
      key = validUtf8(*text);
    } else if (tag->number == 2 && varint && isVarintKind(field.kind)) {
      auto raw = reader.readVarint();
      if (!raw) {
        return core::fail(located(path, raw.error()));
      }
      value = varintValue(field.kind, *raw);
    } else if (tag->number == 2 && delimited && !isVarintKind(field.kind)) {
      auto bytes = reader.readLengthDelimited();
      if (!bytes) {
        return core::fail(located(path, bytes.error()));
      }
      auto decoded = lengthDelimitedValue(field, *bytes, path + "[" + key + "]");
      if (!decoded) {
        return core::fail(decoded.error());
      }
      value = std::move(*decoded);
    } else if (tag->number == 1 || tag->number == 2) {
      return core::fail(
          located(path, core::Error::invalid("map entry field " + std::to_string(tag->number) +
                                             " has wire type " + wireTypeName(tag->type))));
    } else if (auto skipped = reader.skip(tag->type); !skipped) {
      return core::fail(located(path, skipped.error()));
    }
  }
  slot.entries[key] = std::move(value);
  return core::ok();
}

core::Status readPackedVarints(const Field& field, std::string_view payload, Slot& slot) {
  WireReader reader(payload);
  while (!reader.atEnd()) {
    auto raw = reader.readVarint();
    if (!raw) {
      return core::fail(raw.error());
    }
    slot.value.push_back(varintValue(field.kind, *raw));
  }
  return core::ok();
}

void store(const Field& field, Json value, Slot& slot) {
  if (field.shape == FieldShape::Repeated) {
    slot.value.push_back(std::move(value));
  } else {
    slot.value = std::move(value);  // proto2: the last occurrence of a single field wins
  }
}

// Reads one occurrence of `field`, whose tag was just read, into its slot. Errors are located.
core::Status readField(const Field& field, WireType wire, WireReader& reader,
                       const std::string& path, Slot& slot) {
  if (field.shape == FieldShape::Repeated && !slot.seen) {
    slot.value = Json::array();
  }
  slot.seen = true;
  bool scalarVarint = isVarintKind(field.kind) && field.shape != FieldShape::Map;
  if (wire == WireType::Varint && scalarVarint) {
    auto raw = reader.readVarint();
    if (!raw) {
      return core::fail(located(path, raw.error()));
    }
    store(field, varintValue(field.kind, *raw), slot);
    return core::ok();
  }
  // Repeated numbers may also come packed into one length-delimited run.
  bool packed = scalarVarint && field.shape == FieldShape::Repeated;
  if (wire != WireType::LengthDelimited || (scalarVarint && !packed)) {
    return core::fail(located(
        path, core::Error::invalid(std::string("unexpected wire type ") + wireTypeName(wire))));
  }
  auto payload = reader.readLengthDelimited();
  if (!payload) {
    return core::fail(located(path, payload.error()));
  }
  if (field.shape == FieldShape::Map) {
    return readMapEntry(field, *payload, path, slot);
  }
  if (packed) {
    if (auto read = readPackedVarints(field, *payload, slot); !read) {
      return core::fail(located(path, read.error()));
    }
    return core::ok();
  }
  auto value = lengthDelimitedValue(field, *payload, path);
  if (!value) {
    return core::fail(value.error());
  }
  store(field, std::move(*value), slot);
  return core::ok();
}

// Go's omitempty drops "", 0 and false (and empty []byte); the value types and nested
// structs are written whenever they are on the wire.
bool isOmittedZero(FieldKind kind, const Json& value) {
  if (kind == FieldKind::Message || kind == FieldKind::Quantity || kind == FieldKind::Time ||
      kind == FieldKind::IntOrString) {
    return false;
  }
  return (value.is_string() && value.get_ref<const std::string&>().empty()) ||
         (value.is_number_integer() && value.get<std::int64_t>() == 0) ||
         (value.is_boolean() && !value.get<bool>());
}

// Lays the collected slots out in Go struct order, applying omitempty.
Json assemble(const MessageDescriptor& type, std::vector<Slot>& slots) {
  Json out = Json::object();
  for (std::size_t i = 0; i < type.fields.size(); ++i) {
    const Field& field = type.fields[i];
    Slot& slot = slots[i];
    if (!slot.seen) {
      continue;
    }
    if (field.shape == FieldShape::Map) {
      if (slot.entries.empty()) {
        continue;
      }
      Json object = Json::object();
      for (auto& [key, value] : slot.entries) {
        object[key] = std::move(value);
      }
      out[field.json] = std::move(object);
    } else if (field.shape == FieldShape::Repeated) {
      if (!slot.value.empty()) {
        out[field.json] = std::move(slot.value);
      }
    } else if (field.inlined) {
      for (auto& [key, value] : slot.value.items()) {
        out[key] = value;
      }
    } else if (field.keepZero || !isOmittedZero(field.kind, slot.value)) {
      out[field.json] = std::move(slot.value);
    }
  }
  return out;
}

core::Result<Json> decodeAt(std::string_view bytes, const MessageDescriptor& type,
                            const std::string& path) {
  std::vector<Slot> slots(type.fields.size());
  WireReader reader(bytes);
  while (!reader.atEnd()) {
    auto tag = reader.readTag();
    if (!tag) {
      return core::fail(located(path, tag.error()));
    }
    std::size_t index = 0;
    while (index < type.fields.size() && type.fields[index].number != tag->number) {
      ++index;
    }
    if (index == type.fields.size()) {
      if (auto skipped = reader.skip(tag->type); !skipped) {
        return core::fail(located(path, skipped.error()));
      }
      continue;
    }
    const Field& field = type.fields[index];
    // An inlined struct's fields sit in the parent's JSON object, so it adds nothing to a path.
    std::string fieldPath = field.inlined ? path : path + "." + field.json;
    if (auto read = readField(field, tag->type, reader, fieldPath, slots[index]); !read) {
      return core::fail(read.error());
    }
  }
  return assemble(type, slots);
}

}  // namespace

core::Result<Json> decodeMessage(std::string_view bytes, const MessageDescriptor& type) {
  return decodeAt(bytes, type, type.name);
}

}  // namespace nodewright::apiserver::protobuf
