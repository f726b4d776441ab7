#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "cmd/command.h"
#include "cmd/listen_address.h"
#include "cmd/signals.h"
#include "emulators/arm/server.h"
#include "emulators/ec2/emulator.h"

namespace nodewright::cmd {
namespace {

struct Ec2Flags {
  std::string listen = "127.0.0.1:8710";
  std::string instanceTypes;
  std::string world;
  std::string faults;
  double timeScale = 1;
  uint64_t seed = 1;
  std::string accessKey = "nodewright";
  std::string secretKeyFile;
};

core::Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return core::fail(core::Error::invalid(path + ": cannot be read"));
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A --faults file, the same YAML for every emulator; errors name the file.
core::Result<emulators::FaultConfig> readFaults(const std::string& path) {
  auto text = readFile(path);
  if (!text) {
    return core::fail(text.error());
  }
  auto faults = emulators::parseFaultConfigText(*text);
  if (!faults) {
    return core::fail(core::Error::invalid(path + ": " + faults.error().message()));
  }
  return std::move(*faults);
}

// A secret kept in a file (so it stays out of ps and shell history), without its line end.
core::Result<std::string> readSecret(const std::string& path) {
  auto secret = readFile(path);
  if (!secret) {
    return core::fail(secret.error());
  }
  while (!secret->empty() && (secret->back() == '\n' || secret->back() == '\r')) {
    secret->pop_back();
  }
  return secret;
}

core::Result<emulators::ec2::Ec2EmulatorOptions> ec2Options(const Ec2Flags& flags) {
  emulators::ec2::Ec2EmulatorOptions options;
  options.engine.timeScale = flags.timeScale;
  options.engine.seed = flags.seed;
  if (!flags.instanceTypes.empty()) {
    auto catalog = emulators::ec2::loadCatalog(flags.instanceTypes);
    if (!catalog) {
      return core::fail(catalog.error());
    }
    options.catalog = std::move(*catalog);
  }
  if (!flags.world.empty()) {
    auto world = emulators::ec2::loadWorldConfig(flags.world);
    if (!world) {
      return core::fail(world.error());
    }
    options.world = std::move(*world);
  }
  if (!flags.faults.empty()) {
    // The EC2 emulator's file may also hold the interruptions fault (interruptions.h).
    auto text = readFile(flags.faults);
    if (!text) {
      return core::fail(text.error());
    }
    auto faults = emulators::ec2::parseEc2FaultConfigText(*text);
    if (!faults) {
      return core::fail(core::Error::invalid(flags.faults + ": " + faults.error().message()));
    }
    options.engine.faults = std::move(faults->engine);
    options.interruptions = std::move(faults->interruptions);
  }
  if (!flags.secretKeyFile.empty()) {
    auto secret = readSecret(flags.secretKeyFile);
    if (!secret) {
      return core::fail(secret.error());
    }
    options.credentials = {{flags.accessKey, *secret}};
  } else if (flags.accessKey != "nodewright") {
    options.credentials = {{flags.accessKey, "nodewright"}};
  }
  return options;
}

int runEc2(const Ec2Flags& flags, Context& ctx) {
  auto address = parseListenAddress(flags.listen);
  if (!address) {
    ctx.err << "error: " << address.error().message() << "\n";
    return kExitUsage;
  }
  auto options = ec2Options(flags);
  if (!options) {
    ctx.err << "error: " << options.error().message() << "\n";
    return kExitFailed;
  }
  const size_t types = options->catalog.size();
  SignalWaiter waiter;
  core::SystemClock clock;
  auto server =
      emulators::ec2::Ec2Server::start(clock, std::move(*options), address->host, address->port);
  if (!server) {
    ctx.err << "error: " << server.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "listening on " << (*server)->url() << "\n"
          << "instance types: " << types << ", region " << (*server)->emulator().world().region
          << "\n"
          << "try: AWS_ACCESS_KEY_ID=" << flags.accessKey
          << " AWS_SECRET_ACCESS_KEY=... aws --endpoint-url " << (*server)->url() << " --region "
          << (*server)->emulator().world().region << " ec2 describe-availability-zones\n";
  ctx.out.flush();
  int sig = waiter.wait();
  ctx.out << "received " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping\n";
  (*server)->stop();
  return kExitOk;
}

void addEc2Command(CLI::App& emulate, Context& ctx, Action& action) {
  auto flags = std::make_shared<Ec2Flags>();
  CLI::App* sub =
      emulate.add_subcommand("ec2", "Run the EC2 emulator (Query protocol 2016-11-15, and SSM)");
  sub->add_option("--listen", flags->listen, "Loopback address to serve HTTP on (port 0: any)")
      ->capture_default_str();
  sub->add_option("--instance-types", flags->instanceTypes,
                  "A catalog of instance types such as ../shared/data/aws-instance-types.json "
                  "(default: the built-in common families)");
  sub->add_option("--world", flags->world,
                  "YAML describing zones, VPCs, subnets, security groups and images");
  sub->add_option("--faults", flags->faults,
                  "YAML fault configuration: error rates, capacity pools, latencies, throttling");
  sub->add_option("--time-scale", flags->timeScale,
                  "Emulated durations pass this many times faster")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--seed", flags->seed, "Seeds ids and latencies")->capture_default_str();
  sub->add_option("--access-key-id", flags->accessKey, "The access key requests must be signed by")
      ->capture_default_str();
  sub->add_option("--secret-access-key-file", flags->secretKeyFile,
                  "A file holding its secret (default: the secret \"nodewright\")");
  sub->callback([flags, &ctx, &action] { action = [flags, &ctx] { return runEc2(*flags, ctx); }; });
}

struct AzureFlags {
  std::string listen = "127.0.0.1:8711";
  std::string vmSizes;
  std::string faults;
  std::string caFile;
  double timeScale = 1;
  uint64_t seed = 1;
  std::string tenantId = "00000000-0000-0000-0000-000000000001";
  std::string clientId;
  std::string clientSecretFile;
};

core::Result<emulators::arm::ArmEmulatorOptions> azureOptions(const AzureFlags& flags) {
  emulators::arm::ArmEmulatorOptions options;
  options.engine.timeScale = flags.timeScale;
  options.engine.seed = flags.seed;
  options.vmSizesFile = flags.vmSizes;
  options.tenantId = flags.tenantId;
  if (!flags.faults.empty()) {
    auto faults = readFaults(flags.faults);
    if (!faults) {
      return core::fail(faults.error());
    }
    options.engine.faults = std::move(*faults);
  }
  if (!flags.clientSecretFile.empty()) {
    if (flags.clientId.empty()) {
      return core::fail(core::Error::invalid("--client-secret-file needs --client-id"));
    }
    auto secret = readSecret(flags.clientSecretFile);
    if (!secret) {
      return core::fail(secret.error());
    }
    options.clientSecrets = {{flags.clientId, *secret}};
  }
  return options;
}

// Writes the CA where clients can trust it: a new temporary file renamed into place, so a client
// never reads half of it. O_EXCL and O_NOFOLLOW: a file or symlink planted at the temporary
// name fails the write instead of receiving it (unlink removes a link, never its target).
core::Status writeCa(const std::string& path, const std::string& pem) {
  const std::string temporary = path + ".tmp";
  auto failed = [&](const std::string& what) {
    return core::fail(core::Error::invalid(path + ": cannot be written: " + what));
  };
  if (::unlink(temporary.c_str()) != 0 && errno != ENOENT) {
    return failed(std::strerror(errno));
  }
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    return failed(std::strerror(errno));
  }
  size_t written = 0;
  while (written < pem.size()) {
    const ssize_t n = ::write(fd, pem.data() + written, pem.size() - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      return failed(std::strerror(error));
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return failed(std::strerror(error));
  }
  return core::ok();
}

// A new private directory (0700) under the system temp dir for the default CA file: a fixed
// name there could be planted by another user.
core::Result<std::string> privateTempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "nodewright-azure-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return core::fail(core::Error::invalid(std::string("creating a temporary directory: ") +
                                           std::strerror(errno)));
  }
  return pattern;
}

int runAzure(const AzureFlags& flags, Context& ctx) {
  auto address = parseListenAddress(flags.listen);
  if (!address) {
    ctx.err << "error: " << address.error().message() << "\n";
    return kExitUsage;
  }
  auto options = azureOptions(flags);
  if (!options) {
    ctx.err << "error: " << options.error().message() << "\n";
    return kExitFailed;
  }
  SignalWaiter waiter;
  core::SystemClock clock;
  auto server =
      emulators::arm::ArmServer::start(clock, std::move(*options), address->host, address->port);
  if (!server) {
    ctx.err << "error: " << server.error().message() << "\n";
    return kExitFailed;
  }
  std::string caFile = flags.caFile;
  std::string caDir;  // created here, removed on the way out
  if (caFile.empty()) {
    auto dir = privateTempDir();
    if (!dir) {
      ctx.err << "error: " << dir.error().message() << "\n";
      return kExitFailed;
    }
    caDir = *dir;
    caFile = caDir + "/ca.pem";
  }
  auto cleanup = [&caDir] {
    if (!caDir.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(caDir, ignored);
    }
  };
  if (auto written = writeCa(caFile, (*server)->caPem()); !written) {
    ctx.err << "error: " << written.error().message() << "\n";
    cleanup();
    return kExitFailed;
  }
  const auto& emulator = (*server)->emulator();
  ctx.out << "listening on " << (*server)->url() << "\n"
          << "ca: " << caFile << "\n"
          << "tenant: " << emulator.options().tenantId << ", vm sizes: " << emulator.skus().size()
          << "\n"
          << "try: curl --cacert " << caFile << " -d grant_type=client_credentials -d client_id=me"
          << " -d client_secret=x -d scope=https://management.azure.com/.default "
          << (*server)->url() << "/" << emulator.options().tenantId << "/oauth2/v2.0/token\n";
  ctx.out.flush();
  int sig = waiter.wait();
  ctx.out << "received " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping\n";
  (*server)->stop();
  cleanup();
  return kExitOk;
}

void addAzureCommand(CLI::App& emulate, Context& ctx, Action& action) {
  auto flags = std::make_shared<AzureFlags>();
  CLI::App* sub = emulate.add_subcommand(
      "azure", "Run the Azure Resource Manager emulator (HTTPS, with Entra token endpoints)");
  sub->add_option("--listen", flags->listen, "Loopback address to serve HTTPS on (port 0: any)")
      ->capture_default_str();
  sub->add_option("--vm-sizes", flags->vmSizes,
                  "VM sizes for Microsoft.Compute/skus such as ../shared/data/azure-vm-sizes.json "
                  "(default: a built-in handful)");
  sub->add_option("--faults", flags->faults,
                  "YAML fault configuration: error rates by ARM action, latencies, throttling");
  sub->add_option("--ca-file", flags->caFile,
                  "Where to write the generated CA certificate (default: a new private "
                  "directory under the temp directory, removed on exit)");
  sub->add_option("--time-scale", flags->timeScale,
                  "Emulated durations pass this many times faster")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--seed", flags->seed, "Seeds latencies")->capture_default_str();
  sub->add_option("--tenant-id", flags->tenantId, "The Entra tenant the token endpoint serves")
      ->capture_default_str();
  sub->add_option("--client-id", flags->clientId,
                  "The only client the token endpoint accepts (with --client-secret-file)");
  sub->add_option("--client-secret-file", flags->clientSecretFile,
                  "A file holding its secret (default: any client and secret are accepted)");
  sub->callback(
      [flags, &ctx, &action] { action = [flags, &ctx] { return runAzure(*flags, ctx); }; });
}

}  // namespace

void addEmulateCommand(CLI::App& app, Context& ctx, Action& action) {
  CLI::App* emulate = app.add_subcommand("emulate", "Run a cloud emulator");
  emulate->require_subcommand(1);
  addEc2Command(*emulate, ctx, action);
  addAzureCommand(*emulate, ctx, action);
}

}  // namespace nodewright::cmd
