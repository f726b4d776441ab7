#pragma once

#include <string>
#include <string_view>

// SHA-256 (OpenSSL), for signatures and for fingerprints that must not reveal what they stand
// for.
namespace nodewright::core {

// Lower-case hex of the digest.
std::string sha256Hex(std::string_view data);

}  // namespace nodewright::core
