#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "apiserver/api_server.h"
#include "http/client.h"
#include "core/clock.h"
#include "support/apiserver/process.h"

// An embedded API server for one test: its own data directory and a free loopback port.
namespace nodewright::apiserver::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string write(const std::string& relative, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

class TestApiServer {
 public:
  explicit TestApiServer(ApiServerOptions options = {});
  ~TestApiServer();

  const std::string& dataDir() const { return dir_.path().native(); }
  std::string kubeconfig() const;
  std::string caPem() const;
  std::string token() const;
  uint16_t port() const { return server_->port(); }
  // A new client connection.
  std::unique_ptr<http::Client> client() const;
  // Stops and starts again on the same data directory and port.
  void restart();
  void stop();

 private:
  void start();

  TempDir dir_;
  ApiServerOptions options_;
  core::SystemClock clock_;
  std::unique_ptr<ApiServer> server_;
};

// kubectl against `server`, with no other kubeconfig in reach.
Ran kubectl(const TestApiServer& server, const std::vector<std::string>& args,
            const std::string& input = "");

std::string readFile(const std::filesystem::path& path);

}  // namespace nodewright::apiserver::testing
