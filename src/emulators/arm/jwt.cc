#include "emulators/arm/jwt.h"

#include <array>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "core/openssl_ptr.h"

namespace nodewright::emulators::arm::jwt {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') {
    return c - 'A';
  }
  if (c >= 'a' && c <= 'z') {
    return c - 'a' + 26;
  }
  if (c >= '0' && c <= '9') {
    return c - '0' + 52;
  }
  if (c == '-') {
    return 62;
  }
  if (c == '_') {
    return 63;
  }
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

using BioPtr = core::BioPtr;
using CertPtr = core::X509Ptr;
using KeyPtr = core::EvpKeyPtr;
using MdCtxPtr = core::EvpMdCtxPtr;

BioPtr memory(std::string_view pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

CertPtr readCertificate(std::string_view pem) {
  BioPtr bio = memory(pem);
  return CertPtr(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

// An RSA public key from a "PUBLIC KEY" PEM or a certificate's.
KeyPtr readRsaPublicKey(std::string_view pem) {
  KeyPtr key;
  if (pem.find("-----BEGIN CERTIFICATE-----") != std::string_view::npos) {
    if (CertPtr cert = readCertificate(pem)) {
      key.reset(X509_get_pubkey(cert.get()));
    }
  } else if (BioPtr bio = memory(pem)) {
    key.reset(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  }
  if (key && EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) {
    key.reset();
  }
  return key;
}

// The three parts of a compact JWS, or nullopt.
std::optional<std::array<std::string_view, 3>> split(std::string_view token) {
  const size_t first = token.find('.');
  const size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  return std::array<std::string_view, 3>{token.substr(0, first),
                                         token.substr(first + 1, second - first - 1),
                                         token.substr(second + 1)};
}

}  // namespace

std::optional<std::string> signRs256(api::Json header, const api::Json& payload,
                                     std::string_view privateKeyPem) {
  BioPtr bio = memory(privateKeyPem);
  KeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key || EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) {
    return std::nullopt;
  }
  header["alg"] = "RS256";
  const std::string signingInput =
      base64UrlEncode(api::dumpJson(header)) + "." + base64UrlEncode(api::dumpJson(payload));
  MdCtxPtr ctx(EVP_MD_CTX_new());
  size_t size = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &size,
                     reinterpret_cast<const unsigned char*>(signingInput.data()),
                     signingInput.size()) != 1) {
    return std::nullopt;
  }
  std::string signature(size, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &size,
                     reinterpret_cast<const unsigned char*>(signingInput.data()),
                     signingInput.size()) != 1) {
    return std::nullopt;
  }
  signature.resize(size);
  return signingInput + "." + base64UrlEncode(signature);
}

bool verifyRs256(std::string_view token, std::string_view keyPem) {
  auto parts = split(token);
  if (!parts) {
    return false;
  }
  auto signature = base64UrlDecode((*parts)[2]);
  KeyPtr key = readRsaPublicKey(keyPem);
  if (!signature || signature->empty() || !key) {
    return false;
  }
  const std::string_view signingInput =
      token.substr(0, (*parts)[0].size() + 1 + (*parts)[1].size());
  MdCtxPtr ctx(EVP_MD_CTX_new());
  return ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1 &&
         EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature->data()),
                          signature->size(),
                          reinterpret_cast<const unsigned char*>(signingInput.data()),
                          signingInput.size()) == 1;
}

std::optional<std::string> certificateThumbprint(std::string_view certificatePem, bool sha256) {
  CertPtr cert = readCertificate(certificatePem);
  if (!cert) {
    return std::nullopt;
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (X509_digest(cert.get(), sha256 ? EVP_sha256() : EVP_sha1(), digest, &size) != 1) {
    return std::nullopt;
  }
  return base64UrlEncode(std::string_view(reinterpret_cast<const char*>(digest), size));
}

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
