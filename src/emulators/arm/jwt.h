#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/reflect/json.h"

// The JSON Web Tokens of the emulated Entra endpoint: access tokens it signs with HS256, and
// client assertions (federated workload identity) it only decodes, as it holds no issuer keys.
namespace nodewright::emulators::arm::jwt {

std::string base64UrlEncode(std::string_view bytes);
// nullopt on characters outside the URL-safe alphabet or an impossible length.
std::optional<std::string> base64UrlDecode(std::string_view text);

// A compact JWS of `payload` with {"alg":"HS256","typ":"JWT"}.
std::string signHs256(const api::Json& payload, std::string_view key);
// The payload when `token` is an HS256 JWS whose signature `key` verifies (constant-time
// comparison); nullopt otherwise.
std::optional<api::Json> verifyHs256(std::string_view token, std::string_view key);

struct Decoded {
  api::Json header;
  api::Json payload;
};
// Header and payload of a three-part JWT whose parts decode to JSON objects; the signature is
// not checked.
std::optional<Decoded> decodeUnverified(std::string_view token);

}  // namespace nodewright::emulators::arm::jwt
