// The certificates of the emulator's HTTPS server (src/http/certificates): an ECDSA serving key
// may only sign (RFC 5480). Every test of this directory shows that clients accept it.
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include <gtest/gtest.h>

#include "http/certificates.h"

namespace nodewright::emulators::arm {
namespace {

TEST(ServingCertificateTest, EcdsaServingCertificateOnlySigns) {
  auto ca = http::generateCa("test CA");
  ASSERT_TRUE(ca) << ca.error().message();
  auto serving = http::issueServingCertificate(*ca, "test server");
  ASSERT_TRUE(serving) << serving.error().message();
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(serving->certificatePem.data(),
                      static_cast<int>(serving->certificatePem.size())),
      &BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
  ASSERT_NE(cert, nullptr);
  EXPECT_EQ(X509_get_key_usage(cert.get()), static_cast<uint32_t>(KU_DIGITAL_SIGNATURE));
  EXPECT_EQ(X509_get_extended_key_usage(cert.get()), static_cast<uint32_t>(XKU_SSL_SERVER));
}

}  // namespace
}  // namespace nodewright::emulators::arm
