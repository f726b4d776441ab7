#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

// Certificates for nodewright's loopback HTTPS servers (the embedded API server, the ARM
// emulator): a self-signed CA and serving certificates it signs for the loopback names. Clients
// trust the CA, so a server can issue a new serving certificate without breaking them. Keys are
// ECDSA P-256; OpenSSL 3.
namespace nodewright::http {

// A certificate and its private key, both PEM.
struct KeyPair {
  std::string certificatePem;
  std::string keyPem;
};

// A new self-signed CA (basicConstraints CA:TRUE, keyCertSign) valid for `days`.
core::Result<KeyPair> generateCa(std::string_view commonName, long days = 3650);

// A serving certificate (serverAuth, keyUsage digitalSignature) for DNS:localhost, IP:127.0.0.1 and
// IP:::1, signed by `ca` and valid for `days`. Invalid when the CA's PEM does not parse.
core::Result<KeyPair> issueServingCertificate(const KeyPair& ca, std::string_view commonName,
                                              long days = 825);

// Whether the text parses as a PEM certificate / private key: refuses half-broken material
// before a server starts with it.
bool isCertificatePem(const std::string& pem);
bool isPrivateKeyPem(const std::string& pem);

}  // namespace nodewright::http
