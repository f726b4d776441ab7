#pragma once

#include <cstddef>
#include <string>

#include "core/error.h"

namespace nodewright::core {

// Fills `out` with `size` bytes; 1 on success (OpenSSL's RAND_bytes convention).
using RandomSource = int (*)(unsigned char* out, int size);

// Lower-case hex of `bytes` bytes from OpenSSL's CSPRNG (or `source`, for tests). Internal,
// with OpenSSL's reason, when the generator cannot produce them (no entropy): a token or secret
// must never be made of whatever the buffer held.
Result<std::string> randomHex(size_t bytes, RandomSource source = nullptr);

}  // namespace nodewright::core
