#include "emulators/arm/jwt.h"

#include <array>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace nodewright::emulators::arm::jwt {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

std::string hmacSha256(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &size);
  return std::string(reinterpret_cast<const char*>(out.data()), size);
}

std::optional<api::Json> decodeObject(std::string_view part) {
  auto text = base64UrlDecode(part);
  if (!text) {
    return std::nullopt;
  }
  api::Json value = api::Json::parse(*text, nullptr, false);
  if (value.is_discarded() || !value.is_object()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::string base64UrlEncode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(buffer >> bits) & 0x3f];
    }
  }
  if (bits > 0) {
    out += kAlphabet[(buffer << (6 - bits)) & 0x3f];
  }
  return out;
}

std::optional<std::string> base64UrlDecode(std::string_view text) {
  while (!text.empty() && text.back() == '=') {
    text.remove_suffix(1);
  }
  if (text.size() % 4 == 1) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    const int v = sextet(c);
    if (v < 0) {
      return std::nullopt;
    }
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

std::string signHs256(const api::Json& payload, std::string_view key) {
  static const std::string header = base64UrlEncode(R"({"alg":"HS256","typ":"JWT"})");
  const std::string signingInput = header + "." + base64UrlEncode(api::dumpJson(payload));
  return signingInput + "." + base64UrlEncode(hmacSha256(key, signingInput));
}

std::optional<api::Json> verifyHs256(std::string_view token, std::string_view key) {
  const size_t first = token.find('.');
  const size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  auto header = decodeObject(token.substr(0, first));
  auto signature = base64UrlDecode(token.substr(second + 1));
  if (!header || !signature) {
    return std::nullopt;
  }
  auto alg = header->find("alg");
  if (alg == header->end() || !alg->is_string() || alg->get_ref<const std::string&>() != "HS256") {
    return std::nullopt;
  }
  const std::string expected = hmacSha256(key, token.substr(0, second));
  if (signature->size() != expected.size() ||
      CRYPTO_memcmp(signature->data(), expected.data(), expected.size()) != 0) {
    return std::nullopt;
  }
  return decodeObject(token.substr(first + 1, second - first - 1));
}

std::optional<Decoded> decodeUnverified(std::string_view token) {
  const size_t first = token.find('.');
  const size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  auto header = decodeObject(token.substr(0, first));
  auto payload = decodeObject(token.substr(first + 1, second - first - 1));
  if (!header || !payload) {
    return std::nullopt;
  }
  return Decoded{std::move(*header), std::move(*payload)};
}

}  // namespace nodewright::emulators::arm::jwt
