#pragma once

#include <string_view>

#include "api/reflect/json.h"
#include "apiserver/protobuf/descriptor.h"
#include "core/error.h"

namespace nodewright::apiserver::protobuf {

// Decodes the wire form of one message of `type` into the JSON object Go's encoding/json
// writes for the same struct: fields in Go struct order, zero values dropped unless the field
// keeps them, map keys sorted, []byte as base64, invalid UTF-8 replaced by U+FFFD.
// Fields the table does not list are skipped, since upstream adds fields over time.
// Errors (Invalid): truncated or malformed wire data, or a listed field sent with a wire type
// its kind cannot have. Recursion follows the descriptor tables, which have no cycles, so
// hostile nesting cannot run the stack out.
core::Result<api::Json> decodeMessage(std::string_view bytes, const MessageDescriptor& type);

}  // namespace nodewright::apiserver::protobuf
