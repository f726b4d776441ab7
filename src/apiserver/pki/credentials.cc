#include "apiserver/pki/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include <openssl/crypto.h>

#include "api/core/validation.h"
#include "core/random.h"
#include "http/certificates.h"

namespace nodewright::apiserver::pki {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

core::Result<Credentials> create(const fs::path& dir) {
  auto ca = http::generateCa("nodewright-ca");
  if (!ca) {
    return core::fail(ca.error());
  }
  auto serving = http::issueServingCertificate(*ca, "nodewright-apiserver");
  if (!serving) {
    return core::fail(serving.error());
  }
  Credentials c;
  c.caCertificatePem = ca->certificatePem;
  c.servingCertificatePem = serving->certificatePem;
  c.servingKeyPem = serving->keyPem;
  // The bearer token that grants everything: 32 bytes of the CSPRNG, or no credentials at all.
  auto token = core::randomHex(32);
  if (!token) {
    return core::fail(token.error().wrap("making the API token"));
  }
  c.token = std::move(*token);
  for (auto [file, content] : {std::pair{"ca.crt", c.caCertificatePem},
                               {"ca.key", ca->keyPem},
                               {"apiserver.crt", c.servingCertificatePem},
                               {"apiserver.key", c.servingKeyPem},
                               {"token", c.token}}) {
    if (auto s = writePrivateFile((dir / file).string(), content); !s) {
      return core::fail(s.error());
    }
  }
  return c;
}

}  // namespace

core::Status writePrivateFile(const std::string& path, const std::string& content) {
  std::string temporary = path + ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return core::fail(core::Error::internal("cannot write " + path));
  }
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
  if (ec) {
    return core::fail(core::Error::internal("cannot create " + dir.string()));
  }
  fs::permissions(dir, fs::perms::owner_all, ec);
  auto ca = readFile(dir / "ca.crt");
  auto cert = readFile(dir / "apiserver.crt");
  auto key = readFile(dir / "apiserver.key");
  auto token = readFile(dir / "token");
  if (!ca || !cert || !key || !token) {
    return create(dir);
  }
  // Refuse half-broken material loudly instead of serving with it.
  if (!http::isCertificatePem(*ca) || !http::isCertificatePem(*cert) ||
      !http::isPrivateKeyPem(*key) || token->size() < 32) {
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
