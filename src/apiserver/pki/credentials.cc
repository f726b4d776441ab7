#include "apiserver/pki/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "api/core/validation.h"

namespace nodewright::apiserver::pki {
namespace {

namespace fs = std::filesystem;

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

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
  if (!PEM_write_bio_X509(bio.get(), cert)) return core::fail(opensslError("encoding a cert"));
  return bioText(bio.get());
}

core::Result<KeyPtr> readKey(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return core::fail(core::Error::invalid("not a PEM private key"));
  return key;
}

core::Result<CertPtr> readCert(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return core::fail(core::Error::invalid("not a PEM certificate"));
  return cert;
}

bool addExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// issuer == nullptr: self-signed CA.
core::Result<CertPtr> issue(EVP_PKEY* key, const std::string& commonName, X509* issuer,
                            EVP_PKEY* issuerKey, long days, bool ca) {
  CertPtr cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), days * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
  X509* signer = issuer ? issuer : cert.get();
  bool ok = addExtension(cert.get(), signer, NID_subject_key_identifier, "hash");
  if (ca) {
    ok = ok && addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE") &&
         addExtension(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    ok = ok && addExtension(cert.get(), signer, NID_authority_key_identifier, "keyid:always") &&
         addExtension(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE") &&
         addExtension(cert.get(), signer, NID_key_usage,
                      "critical,digitalSignature,keyEncipherment") &&
         addExtension(cert.get(), signer, NID_ext_key_usage, "serverAuth") &&
         addExtension(cert.get(), signer, NID_subject_alt_name,
                      "DNS:localhost,IP:127.0.0.1,IP:0:0:0:0:0:0:0:1");
  }
  if (!ok) return core::fail(opensslError("adding certificate extensions"));
  if (!X509_sign(cert.get(), issuerKey ? issuerKey : key, EVP_sha256())) {
    return core::fail(opensslError("signing a certificate"));
  }
  return cert;
}

std::optional<std::string> readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string randomToken() {
  unsigned char bytes[32];
  RAND_bytes(bytes, sizeof bytes);
  static const char* hex = "0123456789abcdef";
  std::string token;
  for (unsigned char b : bytes) {
    token.push_back(hex[b >> 4]);
    token.push_back(hex[b & 15]);
  }
  return token;
}

core::Result<Credentials> create(const fs::path& dir) {
  KeyPtr caKey(EVP_EC_gen("P-256"));
  KeyPtr servingKey(EVP_EC_gen("P-256"));
  if (!caKey || !servingKey) return core::fail(opensslError("generating keys"));
  auto ca = issue(caKey.get(), "nodewright-ca", nullptr, nullptr, 3650, true);
  if (!ca) return core::fail(ca.error());
  auto serving =
      issue(servingKey.get(), "nodewright-apiserver", ca->get(), caKey.get(), 825, false);
  if (!serving) return core::fail(serving.error());
  Credentials c;
  auto caPem = certPem(ca->get());
  auto caKeyPem = keyPem(caKey.get());
  auto servingPem = certPem(serving->get());
  auto servingKeyPem = keyPem(servingKey.get());
  if (!caPem || !caKeyPem || !servingPem || !servingKeyPem) {
    return core::fail(opensslError("encoding credentials"));
  }
  c.caCertificatePem = *caPem;
  c.servingCertificatePem = *servingPem;
  c.servingKeyPem = *servingKeyPem;
  c.token = randomToken();
  for (auto [file, content] : {std::pair{"ca.crt", c.caCertificatePem},
                               {"ca.key", *caKeyPem},
                               {"apiserver.crt", c.servingCertificatePem},
                               {"apiserver.key", c.servingKeyPem},
                               {"token", c.token}}) {
    if (auto s = writePrivateFile((dir / file).string(), content); !s) return core::fail(s.error());
  }
  return c;
}

}  // namespace

core::Status writePrivateFile(const std::string& path, const std::string& content) {
  std::string temporary = path + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return core::fail(core::Error::internal("cannot write " + path));
  ::fchmod(fd, 0600);
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n <= 0) {
      ::close(fd);
      return core::fail(core::Error::internal("cannot write " + path));
    }
    written += static_cast<size_t>(n);
  }
  bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || ::rename(temporary.c_str(), path.c_str()) != 0) {
    return core::fail(core::Error::internal("cannot write " + path));
  }
  return core::ok();
}

core::Result<Credentials> loadOrCreate(const std::string& dataDir) {
  fs::path dir = fs::path(dataDir) / "pki";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return core::fail(core::Error::internal("cannot create " + dir.string()));
  fs::permissions(dir, fs::perms::owner_all, ec);
  auto ca = readFile(dir / "ca.crt");
  auto cert = readFile(dir / "apiserver.crt");
  auto key = readFile(dir / "apiserver.key");
  auto token = readFile(dir / "token");
  if (!ca || !cert || !key || !token) return create(dir);
  // Refuse half-broken material loudly instead of serving with it.
  if (!readCert(*ca) || !readCert(*cert) || !readKey(*key) || token->size() < 32) {
    return core::fail(core::Error::invalid(dir.string() +
                                           ": unreadable credentials; remove the directory to "
                                           "create new ones"));
  }
  return Credentials{*ca, *cert, *key, *token};
}

std::string kubeconfig(const Credentials& credentials, const std::string& server) {
  std::ostringstream out;
  out << "apiVersion: v1\nkind: Config\n"
      << "clusters:\n- name: nodewright\n  cluster:\n    server: " << server << "\n"
      << "    certificate-authority-data: "
      << api::corev1::encodeBase64(credentials.caCertificatePem) << "\n"
      << "users:\n- name: nodewright\n  user:\n    token: " << credentials.token << "\n"
      << "contexts:\n- name: nodewright\n  context:\n    cluster: nodewright\n"
      << "    user: nodewright\n    namespace: default\n"
      << "current-context: nodewright\n";
  return out.str();
}

bool sameSecret(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace nodewright::apiserver::pki
