#pragma once

#include <string>

// RSA keys for tests that sign client assertions (workload identity tokens, certificate
// credentials) as a Kubernetes service account issuer or an application would.
namespace nodewright::emulators::testing {

struct RsaTestKey {
  std::string privateKeyPem;
  std::string publicKeyPem;    // SubjectPublicKeyInfo ("PUBLIC KEY")
  std::string certificatePem;  // self-signed, for the public key
};

// A 2048-bit key and its certificate, made once per process for each `index` (so a test can
// sign with a key the other side does not know).
const RsaTestKey& rsaTestKey(int index = 0);

}  // namespace nodewright::emulators::testing
