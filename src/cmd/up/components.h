#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "core/clock.h"
#include "core/error.h"
#include "emulators/arm/server.h"
#include "emulators/ec2/emulator.h"

// The emulated clouds `nodewright up` starts beside its API server, with the client
// configuration they need written under the data directory.
namespace nodewright::cmd::up {

struct CloudOptions {
  double timeScale = 1.0;
  // Where the emulators keep their state across restarts.
  std::filesystem::path dataDir;
};

// The SQS queue of EC2's interruption events that `up` creates in its EC2 emulator and runs the
// interruption controller on: named after the cluster, as Karpenter's CloudFormation names it,
// and the interruptions fault's default queue.
inline constexpr const char* kUpInterruptionQueue = "nodewright";

// The EC2 emulator, with the interruption queue; writes DATA/aws/config and DATA/aws/credentials
// for the AWS CLI and SDKs.
core::Result<std::unique_ptr<emulators::ec2::Ec2Server>> startEc2(const CloudOptions& options,
                                                                  const core::Clock& clock);

// The service principal `up`'s controllers use with its ARM emulator.
inline constexpr const char* kUpClientId = "00000000-0000-0000-0000-00000000c0de";

// A client secret drawn at each start; it lives only in this process. Internal when the random
// number generator fails.
core::Result<std::string> drawSecret();

// The ARM emulator over HTTPS; writes its CA to DATA/azure/ca.crt for clients to trust (the
// Azure SDKs send tokens only over HTTPS).
core::Result<std::unique_ptr<emulators::arm::ArmServer>> startArm(const CloudOptions& options,
                                                                  const core::Clock& clock,
                                                                  const std::string& clientSecret);

// Long-running operations the ARM emulator has finished (succeeded or failed) and still keeps.
uint64_t armOperationsCompleted(emulators::arm::ArmServer& server);

}  // namespace nodewright::cmd::up
