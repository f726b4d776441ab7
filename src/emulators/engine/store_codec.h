#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "api/reflect/json.h"
#include "core/error.h"
#include "emulators/engine/json_codec.h"
#include "emulators/engine/resource_store.h"

// A ResourceStore's contents as JSON, for the emulators' state files: each resource's store
// fields (state, next transition, deleted and expiry times, tags, client token, creation time)
// and its Attributes through the codec of its store type, which the emulator supplies.
namespace nodewright::emulators {

void to_json(api::Json& j, const Tag& tag);
void from_json(const api::Json& j, Tag& tag);

// How one store type's attributes go to and from JSON.
struct AttributeCodec {
  // nullopt when `attributes` is not of the type the codec serves.
  std::function<std::optional<api::Json>(const Attributes&)> encode;
  // May throw nlohmann's exceptions on malformed input; decodeStore() reports them.
  std::function<core::Result<AttributesPtr>(const api::Json&)> decode;
};
// By store type ("instance").
using AttributeCodecs = std::map<std::string, AttributeCodec, std::less<>>;

// The codec of an attributes struct T with to_json / from_json for api::Json (NW_STATE_FIELDS),
// found by ADL where this is instantiated.
template <class T>
AttributeCodec fieldsCodec() {
  return {[](const Attributes& a) -> std::optional<api::Json> {
            const T* typed = dynamic_cast<const T*>(&a);
            if (typed == nullptr) {
              return std::nullopt;
            }
            api::Json j;
            to_json(j, *typed);
            return j;
          },
          [](const api::Json& j) -> core::Result<AttributesPtr> {
            auto out = std::make_shared<T>();
            from_json(j, *out);
            return AttributesPtr(std::move(out));
          }};
}

// Internal when a resource's type has no codec or its attributes are not the codec's type: a
// type added without a codec, a bug.
core::Result<api::Json> encodeStore(const StoreContents& contents, const AttributeCodecs& codecs);
// Invalid, with the resource that is wrong, on anything malformed or of an unknown type.
core::Result<StoreContents> decodeStore(const api::Json& json, const AttributeCodecs& codecs);

}  // namespace nodewright::emulators
