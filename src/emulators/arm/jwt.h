#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/reflect/json.h"

// The JSON Web Tokens of the emulated Entra endpoint: access tokens it signs with HS256, and
// client assertions (federated workload identity, certificate credentials) it verifies RS256
// with the key registered for the client, as Entra does.
namespace nodewright::emulators::arm::jwt {

std::string base64UrlEncode(std::string_view bytes);
// nullopt on characters outside the URL-safe alphabet or an impossible length.
std::optional<std::string> base64UrlDecode(std::string_view text);

// A compact JWS of `payload` with {"alg":"HS256","typ":"JWT"}.
std::string signHs256(const api::Json& payload, std::string_view key);
// The payload when `token` is an HS256 JWS whose signature `key` verifies (constant-time
// comparison); nullopt otherwise.
std::optional<api::Json> verifyHs256(std::string_view token, std::string_view key);

// RS256: RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 3.3).
// A compact JWS of `payload` with `header` ("alg" set to RS256) signed with the RSA private key
// in `privateKeyPem`; nullopt when the key does not parse or is not RSA.
std::optional<std::string> signRs256(api::Json header, const api::Json& payload,
                                     std::string_view privateKeyPem);
// Whether `token` (three parts) carries an RS256 signature of its first two parts by the RSA key
// in `keyPem`: a public key ("PUBLIC KEY") or a certificate. False on any malformed input.
bool verifyRs256(std::string_view token, std::string_view keyPem);
// The base64url SHA-256 (x5t#S256) or SHA-1 (x5t) thumbprint of a PEM certificate's DER;
// nullopt when it does not parse.
std::optional<std::string> certificateThumbprint(std::string_view certificatePem, bool sha256);

struct Decoded {
  api::Json header;
  api::Json payload;
};
// Header and payload of a three-part JWT whose parts decode to JSON objects; the signature is
// not checked.
std::optional<Decoded> decodeUnverified(std::string_view token);

}  // namespace nodewright::emulators::arm::jwt
