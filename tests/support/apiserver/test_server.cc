#include "support/apiserver/test_server.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace nodewright::apiserver::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "nw-apiserver-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::abort();
  }
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& relative, const std::string& text) const {
  std::filesystem::path p = path_ / relative;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TestApiServer::TestApiServer(ApiServerOptions options) : options_(std::move(options)) {
  options_.dataDir = dir_.path().string();
  options_.host = "127.0.0.1";
  options_.port = 0;
  start();
}

TestApiServer::~TestApiServer() {
  stop();
}

void TestApiServer::start() {
  auto server = startApiServer(options_, clock_);
  if (!server) {
    fprintf(stderr, "test API server: %s\n", server.error().message().c_str());
    std::abort();
  }
  server_ = std::move(*server);
}

void TestApiServer::stop() {
  if (server_) {
    server_->stop();
  }
}

void TestApiServer::restart() {
  // The same port, so clients (informers) reconnect as they would to a restarted apiserver.
  options_.port = server_->port();
  stop();
  server_.reset();
  start();
}

std::string TestApiServer::kubeconfig() const {
  return server_->kubeconfigPath();
}
std::string TestApiServer::caPem() const {
  return readFile(dir_.path() / "pki" / "ca.crt");
}
std::string TestApiServer::token() const {
  return readFile(dir_.path() / "pki" / "token");
}

std::unique_ptr<http::Client> TestApiServer::client() const {
  http::ClientOptions options;
  options.port = port();
  options.caPem = caPem();
  options.token = token();
  auto client = http::connectClient(options);
  if (!client) {
    fprintf(stderr, "test client: %s\n", client.error().message().c_str());
    std::abort();
  }
  return std::move(*client);
}

Ran kubectl(const TestApiServer& server, const std::vector<std::string>& args,
            const std::string& input) {
  std::vector<std::string> argv = {"kubectl", "--kubeconfig", server.kubeconfig(),
                                   "--request-timeout=60s"};
  argv.insert(argv.end(), args.begin(), args.end());
  // A private cache directory: discovery and OpenAPI caches of other runs never leak in.
  return runProcess(
      argv, input, {{"KUBECACHEDIR", server.dataDir() + "/kubecache"}, {"HOME", server.dataDir()}});
}

}  // namespace nodewright::apiserver::testing
