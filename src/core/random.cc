#include "core/random.h"

#include <limits>
#include <vector>

#include <openssl/err.h>
#include <openssl/rand.h>

#include "core/hex.h"

namespace nodewright::core {

Result<std::string> randomHex(size_t bytes, RandomSource source) {
  if (bytes > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return fail(Error::invalid("randomHex: too many bytes"));
  }
  std::vector<unsigned char> buffer(bytes);
  const RandomSource draw = source != nullptr ? source : &RAND_bytes;
  if (draw(buffer.data(), static_cast<int>(bytes)) != 1) {
    char reason[256] = "no reason given";
    if (const unsigned long code = ERR_get_error(); code != 0) {
      ERR_error_string_n(code, reason, sizeof reason);
    }
    return fail(Error::internal(std::string("the random number generator failed: ") + reason));
  }
  return hexEncode(std::string_view(reinterpret_cast<const char*>(buffer.data()), bytes));
}

}  // namespace nodewright::core
