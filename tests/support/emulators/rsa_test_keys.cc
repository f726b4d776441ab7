#include "support/emulators/rsa_test_keys.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "core/openssl_ptr.h"

namespace nodewright::emulators::testing {
namespace {

using core::BioPtr;
using KeyPtr = core::EvpKeyPtr;
using CertPtr = core::X509Ptr;

std::string text(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

void check(bool ok, const char* what) {
  if (!ok) {
    throw std::runtime_error(std::string("rsaTestKey: ") + what);
  }
}

RsaTestKey make(int index) {
  KeyPtr key(EVP_RSA_gen(2048));
  check(key != nullptr, "generating the key");
  RsaTestKey out;
  BioPtr priv(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_PrivateKey(priv.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "encoding the private key");
  out.privateKeyPem = text(priv.get());
  BioPtr pub(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_PUBKEY(pub.get(), key.get()) == 1, "encoding the public key");
  out.publicKeyPem = text(pub.get());

  CertPtr cert(X509_new());
  check(cert != nullptr, "making the certificate");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), index + 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3650L * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  const std::string cn = "nodewright-test-app-" + std::to_string(index);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  check(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "signing the certificate");
  BioPtr pem(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_X509(pem.get(), cert.get()) == 1, "encoding the certificate");
  out.certificatePem = text(pem.get());
  return out;
}

}  // namespace

const RsaTestKey& rsaTestKey(int index) {
  static std::mutex mu;
  static std::map<int, RsaTestKey> keys;
  std::lock_guard<std::mutex> lock(mu);
  auto it = keys.find(index);
  if (it == keys.end()) {
    it = keys.emplace(index, make(index)).first;
  }
  return it->second;
}

}  // namespace nodewright::emulators::testing
