#include "http/certificates.h"

#include <memory>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace nodewright::http {
namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

constexpr const char* kLoopbackNames = "DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1";

core::Error opensslError(const std::string& what) {
  return core::Error::internal(what + " failed (OpenSSL)");
}

std::string bioText(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

core::Result<std::string> keyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)) {
    return core::fail(opensslError("encoding a private key"));
  }
  return bioText(bio.get());
}

core::Result<std::string> certPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(bio.get(), cert)) {
    return core::fail(opensslError("encoding a certificate"));
  }
  return bioText(bio.get());
}

KeyPtr readKey(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return KeyPtr(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

CertPtr readCert(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return CertPtr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

bool addExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) {
    return false;
  }
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// issuer == nullptr: self-signed CA.
core::Result<CertPtr> issue(EVP_PKEY* key, std::string_view commonName, X509* issuer,
                            EVP_PKEY* issuerKey, long days, bool ca) {
  CertPtr cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) {
    return core::fail(opensslError("drawing a serial number"));
  }
  serial[0] &= 0x7f;  // a positive serial
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  // An hour back, so a client whose clock is slightly behind accepts it at once.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  const std::string cn(commonName);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
  X509* signer = issuer ? issuer : cert.get();
  bool ok = addExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (ca) {
    ok = ok && addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE") &&
         addExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    ok = ok && addExtension(cert.get(), signer, NID_authority_key_identifier, "keyid:always") &&
         addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE") &&
         // ECDSA keys sign; RFC 5480 forbids keyEncipherment on them.
         addExtension(cert.get(), signer, NID_key_usage, "critical,digitalSignature") &&
         addExtension(cert.get(), signer, NID_ext_key_usage, "serverAuth") &&
         addExtension(cert.get(), signer, NID_subject_alt_name, kLoopbackNames);
  }
  if (!ok) {
    return core::fail(opensslError("adding certificate extensions"));
  }
  if (!X509_sign(cert.get(), issuerKey ? issuerKey : key, EVP_sha256())) {
    return core::fail(opensslError("signing a certificate"));
  }
  return cert;
}

core::Result<KeyPair> encode(X509* cert, EVP_PKEY* key) {
  auto certificate = certPem(cert);
  if (!certificate) {
    return core::fail(certificate.error());
  }
  auto privateKey = keyPem(key);
  if (!privateKey) {
    return core::fail(privateKey.error());
  }
  KeyPair out;
  out.certificatePem = std::move(*certificate);
  out.keyPem = std::move(*privateKey);
  return out;
}

}  // namespace

core::Result<KeyPair> generateCa(std::string_view commonName, long days) {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) {
    return core::fail(opensslError("generating a key"));
  }
  auto cert = issue(key.get(), commonName, nullptr, nullptr, days, true);
  if (!cert) {
    return core::fail(cert.error());
  }
  return encode(cert->get(), key.get());
}

core::Result<KeyPair> issueServingCertificate(const KeyPair& ca, std::string_view commonName,
                                              long days) {
  CertPtr caCert = readCert(ca.certificatePem);
  KeyPtr caKey = readKey(ca.keyPem);
  if (!caCert || !caKey) {
    return core::fail(core::Error::invalid("the CA certificate or key is not valid PEM"));
  }
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) {
    return core::fail(opensslError("generating a key"));
  }
  auto cert = issue(key.get(), commonName, caCert.get(), caKey.get(), days, false);
  if (!cert) {
    return core::fail(cert.error());
  }
  return encode(cert->get(), key.get());
}

bool isCertificatePem(const std::string& pem) {
  return readCert(pem) != nullptr;
}

bool isPrivateKeyPem(const std::string& pem) {
  return readKey(pem) != nullptr;
}

}  // namespace nodewright::http
