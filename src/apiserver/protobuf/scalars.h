#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/reflect/json.h"
#include "core/error.h"
#include "core/utf8.h"

// The apimachinery value types that have their own protobuf messages but plain JSON forms.
// Errors are Invalid and unlocated; the message decoder prefixes the field path.
namespace nodewright::apiserver::protobuf {

// Invalid UTF-8 becomes U+FFFD, as Go's encoding/json writes it (core/utf8.h).
using core::validUtf8;

// resource.Quantity {string = 1}: its string ("0" when empty).
core::Result<api::Json> decodeQuantity(std::string_view payload);

// metav1.Time {seconds = 1, nanos = 2}: null when unset (an empty message, as Go writes a zero
// Time), else RFC 3339 in UTC at second precision; Go drops the nanos when decoding.
core::Result<api::Json> decodeTime(std::string_view payload);

// "2006-01-02T15:04:05Z" for seconds since the Unix epoch; Invalid outside years 1..9999.
core::Result<std::string> formatRfc3339(std::int64_t seconds);

// intstr.IntOrString {type = 1, intVal = 2, strVal = 3}: a number for type 0, a string for 1.
core::Result<api::Json> decodeIntOrString(std::string_view payload);

}  // namespace nodewright::apiserver::protobuf
