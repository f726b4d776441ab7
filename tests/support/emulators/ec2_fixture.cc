#include "support/emulators/ec2_fixture.h"

#include <stdlib.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>

namespace nodewright::emulators::testing {

ec2::Ec2EmulatorOptions fastOptions() {
  ec2::Ec2EmulatorOptions options;
  options.engine.timeScale = kFastTimeScale;
  return options;
}

void addTinySubnet(ec2::WorldConfig& world, const std::string& id, int64_t availableIps) {
  ec2::SubnetConfig subnet;
  subnet.id = id;
  subnet.zone = "us-east-1a";
  subnet.cidrBlock = "10.0.250.0/28";
  subnet.availableIps = availableIps;
  subnet.tags = {{"Name", "tiny"}};
  world.vpcs.at(0).subnets.push_back(std::move(subnet));
}

core::Result<std::unique_ptr<ec2::Ec2Server>> startEc2(const core::Clock& clock,
                                                       ec2::Ec2EmulatorOptions options) {
  return ec2::Ec2Server::start(clock, std::move(options), "127.0.0.1", 0);
}

core::Result<api::Json> adminStats(QueryClient& client) {
  auto response = client.get("/admin/stats");
  if (!response) {
    return core::fail(response.error());
  }
  if (response->status != 200) {
    return core::fail(core::Error::internal(
        fmt::format("GET /admin/stats: {} {}", response->status, response->body)));
  }
  api::Json stats = api::Json::parse(response->body, nullptr, /*allow_exceptions=*/false);
  if (stats.is_discarded()) {
    return core::fail(core::Error::internal("GET /admin/stats is not JSON: " + response->body));
  }
  return stats;
}

core::Status putFaults(QueryClient& client, const std::string& json) {
  auto response = client.admin("PUT", "/admin/faults", json);
  if (!response) {
    return core::fail(response.error());
  }
  if (response->status != 200) {
    return core::fail(core::Error::internal(
        fmt::format("PUT /admin/faults: {} {}", response->status, response->body)));
  }
  return core::ok();
}

int64_t liveCount(const api::Json& stats, const std::string& type) {
  if (!stats.contains("live") || !stats["live"].contains(type)) {
    return 0;
  }
  return stats["live"][type].get<int64_t>();
}

std::string scriptPath(const std::string& name) {
  return std::string(NW_SOURCE_DIR) + "/tests/emulators/ec2/scripts/" + name;
}

std::map<std::string, std::string> awsClientEnvironment() {
  return cleanEnvironment({
      {"AWS_ACCESS_KEY_ID", "nodewright"},
      {"AWS_SECRET_ACCESS_KEY", "nodewright"},
      {"AWS_DEFAULT_REGION", "us-east-1"},
      {"AWS_CONFIG_FILE", "/dev/null"},
      {"AWS_SHARED_CREDENTIALS_FILE", "/dev/null"},
      {"AWS_EC2_METADATA_DISABLED", "true"},
      {"AWS_MAX_ATTEMPTS", "1"},  // an error must show, not be retried away
      {"AWS_RETRY_MODE", "standard"},
      {"PYTHONDONTWRITEBYTECODE", "1"},  // nothing written into the source tree
      {"NO_PROXY", "*"},
  });
}

std::optional<std::string> missingPythonClients(bool needMoto, bool needAwsCli) {
  const auto env = awsClientEnvironment();
  const auto timeout = std::chrono::seconds(60);
  const std::string modules = needMoto ? "import boto3, moto" : "import boto3";
  if (auto r = runProcess({"python3", "-c", modules}, env, timeout); !r.ok()) {
    return "python3 cannot " + modules + ": " + r.describe();
  }
  if (needAwsCli) {
    if (auto r = runProcess({"aws", "--version"}, env, timeout); !r.ok()) {
      return "the aws command does not run: " + r.describe();
    }
  }
  return std::nullopt;
}

ProcessResult runScript(const std::string& name, const std::vector<std::string>& args,
                        std::chrono::milliseconds timeout) {
  std::vector<std::string> argv{"python3", scriptPath(name)};
  argv.insert(argv.end(), args.begin(), args.end());
  return runProcess(argv, awsClientEnvironment(), timeout);
}

TempFile::TempFile(const std::string& content, const std::string& suffix) {
  std::string path =
      (std::filesystem::temp_directory_path() / "nw-ec2-wire-XXXXXX").string() + suffix;
  const int fd = ::mkstemps(path.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    return;
  }
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n <= 0) {
      break;
    }
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  if (written == content.size()) {
    path_ = std::move(path);
  } else {
    std::filesystem::remove(path);
  }
}

TempFile::~TempFile() {
  if (!path_.empty()) {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
}

core::Result<api::Json> parseScriptOutput(const ProcessResult& result) {
  api::Json out = api::Json::parse(result.out, nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) {
    return core::fail(core::Error::internal("script output is not JSON: " + result.describe()));
  }
  return out;
}

}  // namespace nodewright::emulators::testing
