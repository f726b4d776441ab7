#include "emulators/arm/server.h"

#include <fmt/format.h>

#include "core/log.h"
#include "http/certificates.h"

namespace nodewright::emulators::arm {

core::Result<std::unique_ptr<ArmServer>> ArmServer::start(const core::Clock& clock,
                                                          ArmEmulatorOptions options,
                                                          std::string host, uint16_t port) {
  const size_t maxBody = options.maxBodyBytes;
  auto emulator = ArmEmulator::create(clock, std::move(options));
  if (!emulator) {
    return core::fail(emulator.error());
  }
  // A new CA per start: nothing outlives the process, and clients read the CA it prints.
  auto ca = http::generateCa("nodewright ARM emulator CA");
  if (!ca) {
    return core::fail(ca.error());
  }
  auto serving = http::issueServingCertificate(*ca, "nodewright ARM emulator");
  if (!serving) {
    return core::fail(serving.error());
  }
  std::unique_ptr<ArmServer> server(
      new ArmServer(std::move(*emulator), host, std::move(ca->certificatePem)));
  ArmEmulator* emu = server->emulator_.get();
  http::ServerOptions serverOptions;
  serverOptions.host = std::move(host);
  serverOptions.port = port;
  serverOptions.certificatePem = std::move(serving->certificatePem);
  serverOptions.privateKeyPem = std::move(serving->keyPem);
  serverOptions.maxBodyBytes = maxBody;
  serverOptions.tooLarge = [emu](size_t limit) { return emu->tooLarge(limit); };
  auto https = http::startServer(std::move(serverOptions),
                                 [emu](const http::Request& request, http::Exchange& exchange) {
                                   exchange.respond(emu->serve(request));
                                 });
  if (!https) {
    return core::fail(https.error());
  }
  server->server_ = std::move(*https);
  emu->setBaseUrl(server->url());
  if (const std::string& file = emu->options().stateFile; !file.empty()) {
    server->saver_ =
        std::make_unique<StateSaver>(emu->engine().clock(), file,
                                     StateSaver::Source{[emu] { return emu->stateGeneration(); },
                                                        [emu] { return emu->saveState(); }});
    server->saver_->start();
  }
  return server;
}

ArmServer::ArmServer(std::unique_ptr<ArmEmulator> emulator, std::string host, std::string caPem)
    : emulator_(std::move(emulator)), host_(std::move(host)), caPem_(std::move(caPem)) {}

ArmServer::~ArmServer() {
  stop();
}

std::string ArmServer::url() const {
  return fmt::format("https://{}:{}",
                     host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_,
                     server_->port());
}

void ArmServer::stop() {
  if (server_) {
    server_->stop();
  }
  if (saver_) {
    if (auto saved = saver_->stop(); !saved) {
      core::logError("arm: saving the state file failed", {{"error", saved.error()}});
    }
  }
}

}  // namespace nodewright::emulators::arm
