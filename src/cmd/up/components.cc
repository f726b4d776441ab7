#include "cmd/up/components.h"

#include <fstream>
#include <system_error>

#include "apiserver/pki/credentials.h"
#include "core/random.h"
#include "emulators/arm/model.h"

namespace nodewright::cmd::up {

namespace fs = std::filesystem;

namespace {

// An AWS config and credentials pair that points the AWS CLI and SDKs at the emulator:
// AWS_CONFIG_FILE=DIR/aws/config AWS_SHARED_CREDENTIALS_FILE=DIR/aws/credentials aws ec2 ...
core::Status writeAwsConfig(const fs::path& dir, const std::string& url,
                            const std::string& region) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return core::fail(core::Error::internal("creating " + dir.string() + ": " + ec.message()));
  }
  std::ofstream config(dir / "config");
  config << "[default]\nregion = " << region << "\nendpoint_url = " << url << "\n";
  std::ofstream credentials(dir / "credentials");
  // The emulator's well-known development key, not a secret (DESIGN.md).
  credentials << "[default]\naws_access_key_id = nodewright\naws_secret_access_key = nodewright\n";
  if (!config || !credentials) {
    return core::fail(core::Error::internal("writing " + dir.string()));
  }
  fs::permissions(dir / "credentials", fs::perms::owner_read | fs::perms::owner_write, ec);
  return {};
}

}  // namespace

core::Result<std::unique_ptr<emulators::ec2::Ec2Server>> startEc2(const CloudOptions& o,
                                                                  const core::Clock& clock) {
  emulators::ec2::Ec2EmulatorOptions options;
  options.engine.timeScale = o.timeScale;
  options.stateFile = (o.dataDir / "ec2-state.json").string();
  auto server = emulators::ec2::Ec2Server::start(clock, std::move(options));
  if (!server) {
    return core::fail(server.error());
  }
  if (auto queue = (*server)->emulator().sqs().create(kUpInterruptionQueue, {}); !queue) {
    return core::fail(
        core::Error::internal("creating the interruption queue: " + queue.error().message));
  }
  if (auto written =
          writeAwsConfig(o.dataDir / "aws", (*server)->url(), (*server)->emulator().world().region);
      !written) {
    return core::fail(written.error());
  }
  return server;
}

core::Result<std::string> drawSecret() {
  return core::randomHex(32);
}

core::Result<std::unique_ptr<emulators::arm::ArmServer>> startArm(const CloudOptions& o,
                                                                  const core::Clock& clock,
                                                                  const std::string& clientSecret) {
  emulators::arm::ArmEmulatorOptions options;
  options.engine.timeScale = o.timeScale;
  options.clientSecrets = {{kUpClientId, clientSecret}};
  const fs::path azureDir = o.dataDir / "azure";
  std::error_code ec;
  fs::create_directories(azureDir, ec);
  options.stateFile = (azureDir / "arm-state.json").string();
  auto server = emulators::arm::ArmServer::start(clock, std::move(options));
  if (!server) {
    return core::fail(server.error());
  }
  if (auto written =
          apiserver::pki::writePrivateFile((azureDir / "ca.crt").string(), (*server)->caPem());
      !written) {
    return core::fail(written.error());
  }
  return server;
}

uint64_t armOperationsCompleted(emulators::arm::ArmServer& server) {
  auto finished = server.emulator().engine().store().list(
      emulators::arm::kOperationTable,
      [](const emulators::Resource& r) { return r.state != "InProgress"; });
  return finished.size();
}

}  // namespace nodewright::cmd::up
