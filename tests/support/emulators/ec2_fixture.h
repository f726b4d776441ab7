#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/reflect/json.h"
#include "core/clock.h"
#include "core/error.h"
#include "emulators/ec2/emulator.h"
#include "support/emulators/process.h"
#include "support/emulators/query_client.h"

// What the EC2 wire tests share: an emulator on a loopback port, its admin stats, and the
// Python clients (boto3, awscli, moto) run as child processes against it.
namespace nodewright::emulators::testing {

// Emulated time passes this many times faster in the tests that run on a SystemClock, so a
// launch that takes a minute on EC2 is running within a fraction of a second.
inline constexpr double kFastTimeScale = 2000;

// The default options on a fast time scale.
ec2::Ec2EmulatorOptions fastOptions();

// Adds an untagged subnet `id` in the zone us-east-1a of the world's first VPC (the one the
// discovery tags select), with `availableIps` free addresses: a subnet launches run out of.
void addTinySubnet(ec2::WorldConfig& world, const std::string& id, int64_t availableIps);

// An Ec2Server on 127.0.0.1, port from the OS; stopped when destroyed.
core::Result<std::unique_ptr<ec2::Ec2Server>> startEc2(const core::Clock& clock,
                                                       ec2::Ec2EmulatorOptions options);

// GET /admin/stats as JSON.
core::Result<api::Json> adminStats(QueryClient& client);
// PUT /admin/faults with `json`, signed; an error unless the emulator answered 200.
core::Status putFaults(QueryClient& client, const std::string& json);
// stats["live"][type], 0 when absent.
int64_t liveCount(const api::Json& stats, const std::string& type);

// The Python side ------------------------------------------------------------------------------

// tests/emulators/ec2/scripts/<name> in the source tree.
std::string scriptPath(const std::string& name);

// The environment of a Python client: the access key nodewright/nodewright, region us-east-1,
// empty config and credentials files (the user's are never read), no instance metadata lookups.
std::map<std::string, std::string> awsClientEnvironment();

// Why the Python clients cannot run here ("boto3 is not importable"); tests fail with it, never
// skip: the clients are part of every machine the tests run on (DESIGN.md). nullopt when python3
// with boto3 and moto (when `needMoto`) and the aws command (when `needAwsCli`) are all present.
std::optional<std::string> missingPythonClients(bool needMoto, bool needAwsCli);

// Runs python3 scripts/<name> with `args` in awsClientEnvironment(), bounded by `timeout`.
ProcessResult runScript(const std::string& name, const std::vector<std::string>& args,
                        std::chrono::milliseconds timeout = std::chrono::seconds(180));

// A file with `content` under the temporary directory, removed when the object goes.
class TempFile {
 public:
  explicit TempFile(const std::string& content, const std::string& suffix = "");
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }  // empty when it could not be written

 private:
  std::string path_;
};

// The script's stdout as one JSON document.
core::Result<api::Json> parseScriptOutput(const ProcessResult& result);

}  // namespace nodewright::emulators::testing
