#include <memory>
#include <ostream>
#include <string>

#include <fstream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "cmd/command.h"
#include "cmd/listen_address.h"
#include "cmd/signals.h"
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
    auto text = readFile(flags.faults);
    if (!text) {
      return core::fail(text.error());
    }
    auto faults = emulators::parseFaultConfigText(*text);
    if (!faults) {
      return core::fail(core::Error::invalid(flags.faults + ": " + faults.error().message()));
    }
    options.engine.faults = std::move(*faults);
  }
  if (!flags.secretKeyFile.empty()) {
    auto secret = readFile(flags.secretKeyFile);
    if (!secret) {
      return core::fail(secret.error());
    }
    while (!secret->empty() && (secret->back() == '\n' || secret->back() == '\r')) {
      secret->pop_back();
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

}  // namespace

void addEmulateCommand(CLI::App& app, Context& ctx, Action& action) {
  CLI::App* emulate = app.add_subcommand("emulate", "Run a cloud emulator");
  emulate->require_subcommand(1);
  addEc2Command(*emulate, ctx, action);
  addPlaceholder(*emulate, "azure", "Run the Azure Resource Manager emulator", 9, ctx, action);
}

}  // namespace nodewright::cmd
