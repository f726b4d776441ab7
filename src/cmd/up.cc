#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <openssl/rand.h>
#include <CLI/CLI.hpp>

#include "api/crd/generate.h"
#include "api/crd/structural.h"
#include "apiserver/api_server.h"
#include "apiserver/pki/credentials.h"
#include "cmd/command.h"
#include "cmd/crds.h"
#include "cmd/embedded_controllers.h"
#include "cmd/listen_address.h"
#include "cmd/signals.h"
#include "core/check.h"
#include "core/clock.h"
#include "core/hex.h"
#include "emulators/arm/server.h"
#include "emulators/ec2/emulator.h"

namespace nodewright::cmd {
namespace {

namespace fs = std::filesystem;

struct UpOptions {
  std::string dataDir = ".nodewright";
  bool demo = false;
  std::string cloud = "emulated";
  double timeScale = 1.0;
  bool dryRun = false;
  bool wait = false;
  std::string listen = "127.0.0.1:6443";
};

struct Component {
  std::string name;
  int issue;  // the issue that delivers it
  bool available = false;
};

std::vector<Component> plan(const UpOptions& o, const fs::path& dataDir) {
  std::vector<Component> out;
  out.push_back({"embedded API server (SQLite in " + dataDir.string() + ", writes " +
                     (dataDir / "kubeconfig").string() + ")",
                 3, true});
  if (o.cloud == "emulated") {
    out.push_back({"EC2 emulator (writes " + (dataDir / "aws" / "config").string() + ")", 5, true});
    out.push_back({"ARM (Azure Resource Manager) emulator (writes " +
                       (dataDir / "azure" / "ca.crt").string() + ")",
                   9, true});
  }
  if (o.cloud == "emulated") {
    out.push_back(
        {"node agent (kubelet and kube-scheduler for emulated machines; Deployment, "
         "ReplicaSet and DaemonSet controllers)",
         7, true});
  }
  if (o.cloud == "emulated" || o.cloud == "aws") {
    out.push_back(
        {"Karpenter controllers (EC2NodeClass, provisioning, NodeClaim lifecycle and "
         "termination, garbage collection, drift and disruption) against " +
             std::string(o.cloud == "aws" ? "AWS" : "the EC2 emulator"),
         7, o.cloud == "emulated"});
  }
  if (o.cloud == "emulated" || o.cloud == "azure") {
    out.push_back(
        {"Cluster API controllers (Cluster, MachineDeployment, MachineSet, Machine, "
         "MachinePool, bootstrap) and CAPZ controllers (AzureCluster, AzureMachine, "
         "AzureMachinePool) "
         "against " +
             std::string(o.cloud == "azure" ? "Azure" : "the ARM emulator"),
         10, o.cloud == "emulated"});
  }
  if (o.demo) {
    out.push_back({"demo workload (NodePool, EC2NodeClass, pending pods)", 11});
  }
  return out;
}

// Kinds per group and the problems that would keep an API server from accepting the CRDs; a
// problem is a bug in the model, reported but not fatal, since `up` must always come up.
void summarizeModel(const api::Registry& registry, const std::vector<api::Json>& crds,
                    Context& ctx) {
  std::map<std::string, std::vector<std::string>> byGroup;
  for (const api::KindInfo& k : registry.kinds()) {
    byGroup[k.group.empty() ? "core" : k.group].push_back(k.version + "/" + k.kind);
  }
  ctx.out << "resource model: " << registry.kinds().size() << " kinds in " << byGroup.size()
          << " groups, " << crds.size() << " CRDs\n";
  for (const auto& [group, kinds] : byGroup) {
    ctx.out << fmt::format("  {:<34} {} {}: {}\n", group, kinds.size(),
                           kinds.size() == 1 ? "kind" : "kinds", fmt::join(kinds, ", "));
  }
  size_t problems = 0;
  for (const api::Json& crd : crds) {
    for (const api::Json& v : crd["spec"]["versions"]) {
      for (const api::FieldError& e : api::crd::structuralErrors(v["schema"]["openAPIV3Schema"])) {
        ctx.err << "warning: CRD " << crd["metadata"]["name"].get<std::string>() << " "
                << v["name"].get<std::string>() << ": " << e.toString() << "\n";
        ++problems;
      }
    }
  }
  if (problems == 0) {
    ctx.out << "  every CRD schema is structural\n";
  }
}

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

core::Result<std::unique_ptr<emulators::ec2::Ec2Server>> startEc2(const UpOptions& o,
                                                                  const fs::path& dataDir,
                                                                  const core::Clock& clock,
                                                                  Context& ctx) {
  emulators::ec2::Ec2EmulatorOptions options;
  options.engine.timeScale = o.timeScale;
  auto server = emulators::ec2::Ec2Server::start(clock, std::move(options));
  if (!server) {
    return core::fail(server.error());
  }
  const fs::path awsDir = dataDir / "aws";
  if (auto written = writeAwsConfig(awsDir, (*server)->url(), (*server)->emulator().world().region);
      !written) {
    return core::fail(written.error());
  }
  ctx.out << "EC2 emulator: " << (*server)->url()
          << " (try: AWS_CONFIG_FILE=" << (awsDir / "config").string()
          << " AWS_SHARED_CREDENTIALS_FILE=" << (awsDir / "credentials").string()
          << " aws ec2 describe-subnets)\n";
  return server;
}

// The ARM emulator, its CA in DIR/azure/ca.crt for clients to trust (the Azure SDKs send
// tokens only over HTTPS).
// The service principal `up`'s controllers use with its ARM emulator. Its secret is drawn
// at each start and lives only in this process.
constexpr const char* kUpClientId = "00000000-0000-0000-0000-00000000c0de";

std::string drawSecret() {
  unsigned char bytes[32];
  NW_CHECK(RAND_bytes(bytes, sizeof bytes) == 1);
  return core::hexEncode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

core::Result<std::unique_ptr<emulators::arm::ArmServer>> startArm(const UpOptions& o,
                                                                  const fs::path& dataDir,
                                                                  const core::Clock& clock,
                                                                  const std::string& clientSecret,
                                                                  Context& ctx) {
  emulators::arm::ArmEmulatorOptions options;
  options.engine.timeScale = o.timeScale;
  options.clientSecrets = {{kUpClientId, clientSecret}};
  const std::string tenant = options.tenantId;
  auto server = emulators::arm::ArmServer::start(clock, std::move(options));
  if (!server) {
    return core::fail(server.error());
  }
  const fs::path azureDir = dataDir / "azure";
  std::error_code ec;
  fs::create_directories(azureDir, ec);
  const std::string caFile = (azureDir / "ca.crt").string();
  if (auto written = apiserver::pki::writePrivateFile(caFile, (*server)->caPem()); !written) {
    return core::fail(written.error());
  }
  ctx.out << "ARM emulator: " << (*server)->url() << " (CA " << caFile << "; tokens from "
          << (*server)->url() << "/" << tenant << "/oauth2/v2.0/token)\n";
  return server;
}

int up(const UpOptions& o, Context& ctx) {
  std::error_code ec;
  fs::path dataDir = fs::absolute(o.dataDir, ec);
  if (ec) {
    dataDir = o.dataDir;
  }
  ctx.out << "nodewright " << NW_VERSION << ": up (cloud " << o.cloud << ", time scale "
          << fmt::format("{}", o.timeScale) << (o.dryRun ? ", dry run" : "") << ")\n";
  ctx.out << "plan:\n";
  for (const Component& c : plan(o, dataDir)) {
    if (c.available) {
      ctx.out << "  " << c.name << "\n";
    } else {
      ctx.out << "  " << c.name << ": not yet available in this build (issue " << c.issue << ")\n";
    }
  }

  std::vector<api::Json> crds = api::crd::generateCrds(ctx.registry);
  summarizeModel(ctx.registry, crds, ctx);

  fs::path crdDir = dataDir / "crds";
  if (o.dryRun) {
    ctx.out << "dry run: would write " << crds.size() << " CRDs to " << crdDir.string() << "\n";
    ctx.out << "dry run: nothing was started\n";
    return kExitOk;
  }
  auto written = writeCrdFiles(ctx.registry, crdDir);
  if (!written) {
    ctx.err << "error: " << written.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "wrote " << *written << " CRDs to " << crdDir.string() << "\n";

  auto address = parseListenAddress(o.listen);
  if (!address) {
    ctx.err << "error: " << address.error().message() << "\n";
    return kExitUsage;
  }
  std::optional<SignalWaiter> waiter;
  if (o.wait) {
    waiter.emplace();
  }
  apiserver::ApiServerOptions serverOptions;
  serverOptions.dataDir = dataDir.string();
  serverOptions.host = address->host;
  serverOptions.port = address->port;
  core::SystemClock clock;
  auto server = apiserver::startApiServer(serverOptions, clock);
  if (!server) {
    ctx.err << "error: embedded API server: " << server.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "embedded API server: " << (*server)->url() << "\n";
  std::unique_ptr<emulators::ec2::Ec2Server> ec2;
  if (o.cloud == "emulated") {
    auto started = startEc2(o, dataDir, clock, ctx);
    if (!started) {
      ctx.err << "error: EC2 emulator: " << started.error().message() << "\n";
      (*server)->stop();
      return kExitFailed;
    }
    ec2 = std::move(*started);
  }
  std::unique_ptr<emulators::arm::ArmServer> arm;
  const std::string armSecret = drawSecret();
  if (o.cloud == "emulated") {
    auto started = startArm(o, dataDir, clock, armSecret, ctx);
    if (!started) {
      ctx.err << "error: ARM emulator: " << started.error().message() << "\n";
      ec2->stop();
      (*server)->stop();
      return kExitFailed;
    }
    arm = std::move(*started);
  }
  std::unique_ptr<EmbeddedControllers> controllers;
  if (ec2) {
    EmbeddedControllersOptions embedded;
    embedded.kubeconfig = (*server)->kubeconfigPath();
    embedded.ec2Endpoint = ec2->url();
    embedded.region = ec2->emulator().world().region;
    if (arm) {
      AzureControllerSetOptions azure;
      azure.armEndpoint = arm->url();
      azure.caPem = arm->caPem();
      azure.tenantId = arm->emulator().options().tenantId;
      azure.clientId = kUpClientId;
      azure.clientSecret = armSecret;
      embedded.azure = std::move(azure);
    }
    auto started = EmbeddedControllers::start(embedded);
    if (!started) {
      ctx.err << "error: controllers: " << started.error().message() << "\n";
      arm->stop();
      ec2->stop();
      (*server)->stop();
      return kExitFailed;
    }
    controllers = std::move(*started);
    ctx.out << "controllers: EC2NodeClass, provisioner, NodeClaim lifecycle, garbage collection, "
               "drift, disruption; node agent and workload controllers"
            << (arm ? "; Cluster API and CAPZ (AzureCluster, AzureMachine, AzureMachinePool, "
                      "AzureMachinePoolMachine)"
                    : "")
            << "\n";
  }
  ctx.out << "nodewright is ready: kubectl --kubeconfig " << (*server)->kubeconfigPath()
          << " get nodepools,nodeclaims,ec2nodeclasses,clusters,azureclusters,azuremachines\n";
  ctx.out.flush();
  if (waiter) {
    int sig = waiter->wait();
    ctx.out << "received " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", stopping\n";
  }
  controllers.reset();
  if (arm) {
    arm->stop();
  }
  if (ec2) {
    ec2->stop();
  }
  (*server)->stop();
  return kExitOk;
}

}  // namespace

void addUpCommand(CLI::App& app, Context& ctx, Action& action) {
  auto o = std::make_shared<UpOptions>();
  CLI::App* sub = app.add_subcommand(
      "up", "Run everything on this machine: API server, cloud emulators and controllers");
  sub->add_option("--data-dir", o->dataDir, "Where state, kubeconfig and CRDs are kept")
      ->capture_default_str();
  sub->add_flag("--demo", o->demo, "Also create a demo NodePool, EC2NodeClass and pending pods");
  sub->add_option("--cloud", o->cloud, "Which cloud the controllers talk to")
      ->check(CLI::IsMember({"emulated", "aws", "azure"}))
      ->capture_default_str();
  sub->add_option("--time-scale", o->timeScale,
                  "How much faster than real time the emulated clouds run")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_flag("--dry-run", o->dryRun, "Print the plan and check the model; start nothing");
  sub->add_option("--listen", o->listen, "Loopback address of the embedded API server")
      ->capture_default_str();
  sub->add_flag("--wait", o->wait, "Stay up until SIGINT or SIGTERM, then stop cleanly");
  sub->callback([o, &ctx, &action] { action = [o, &ctx] { return up(*o, ctx); }; });
}

}  // namespace nodewright::cmd
