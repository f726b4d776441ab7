#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "emulators/arm/emulator.h"
#include "emulators/engine/state_saver.h"
#include "http/server.h"

// The ARM emulator behind an HTTPS server on a loopback port, for `nodewright emulate azure`,
// tests and benchmarks. The Azure SDKs send bearer tokens only over HTTPS, so the server
// generates a CA at start and a serving certificate it signs for localhost, 127.0.0.1 and ::1;
// clients trust caPem(). One address serves ARM, the Entra token endpoint, the managed identity
// endpoint and /admin.
namespace nodewright::emulators::arm {

class ArmServer {
 public:
  static core::Result<std::unique_ptr<ArmServer>> start(const core::Clock& clock,
                                                        ArmEmulatorOptions options,
                                                        std::string host = "127.0.0.1",
                                                        uint16_t port = 0);
  ~ArmServer();

  std::string url() const;  // "https://127.0.0.1:PORT"
  uint16_t port() const { return server_->port(); }
  // The generated CA certificate (PEM) to trust.
  const std::string& caPem() const { return caPem_; }
  ArmEmulator& emulator() { return *emulator_; }
  // Stops serving, then saves the state file one last time (errors are logged). Idempotent.
  void stop();

 private:
  ArmServer(std::unique_ptr<ArmEmulator> emulator, std::string host, std::string caPem);

  std::unique_ptr<ArmEmulator> emulator_;
  std::unique_ptr<http::Server> server_;
  std::unique_ptr<StateSaver> saver_;  // set when the options name a state file
  std::string host_;
  std::string caPem_;
};

}  // namespace nodewright::emulators::arm
