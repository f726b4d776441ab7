#pragma once

#include <string>

#include "core/error.h"

// The serving identity of the embedded API server: a self-signed CA, a serving certificate for
// localhost/127.0.0.1/::1 signed by it, and one bearer token. Created on first start under
// DIR/pki and reused afterwards, so kubeconfigs stay valid across restarts.
namespace nodewright::apiserver::pki {

struct Credentials {
  std::string caCertificatePem;
  std::string servingCertificatePem;
  std::string servingKeyPem;
  std::string token;
};

// Loads DIR/pki/{ca.crt,ca.key,apiserver.crt,apiserver.key,token}, creating what is missing.
// Every file is written 0600 (the directory 0700).
core::Result<Credentials> loadOrCreate(const std::string& dataDir);

// A kubeconfig with one cluster, user and context named "nodewright", the CA embedded and the
// token as the user's credential.
std::string kubeconfig(const Credentials& credentials, const std::string& server);

// Writes `content` to `path` with mode 0600, atomically (temporary file and rename).
core::Status writePrivateFile(const std::string& path, const std::string& content);

// Constant-time comparison, so a token check does not leak how much of a guess matched.
bool sameSecret(const std::string& a, const std::string& b);

}  // namespace nodewright::apiserver::pki
