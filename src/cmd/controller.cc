#include <unistd.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>

#include <CLI/CLI.hpp>

#include "cmd/aws_flags.h"
#include "cmd/azure_controller_flags.h"
#include "cmd/azure_controller_set.h"
#include "cmd/command.h"
#include "cmd/controller_set.h"
#include "cmd/feature_gates.h"
#include "cmd/listen_address.h"
#include "cmd/lro_flags.h"
#include "cmd/signals.h"
#include "core/clock.h"
#include "kube/config.h"

// `nodewright controller`: the Karpenter controllers for AWS against a cluster named by a
// kubeconfig (or in-cluster), with Karpenter's flags. The EC2, SSM and Pricing endpoints follow
// the SDK's rules (flag, AWS_ENDPOINT_URL_*, profile), so the same binary talks to AWS, the
// project's emulator or moto_server. With --cloud azure: Cluster API and CAPZ with CAPZ's flags,
// against Azure Resource Manager or the ARM emulator.
namespace nodewright::cmd {
namespace {

struct ControllerFlags {
  std::string cloud = "aws";
  std::string kubeconfig;
  AwsFlags aws;
  AzureControllerFlags azure;
  LroFlags lro;
  std::string clusterEndpoint;
  std::string clusterCaBundle;
  std::string serviceCidr = "10.100.0.0/16";
  double batchIdleSeconds = 1;
  double batchMaxSeconds = 10;
  std::string pending = "unschedulable";
  double gcIntervalSeconds = 60;
  double gcGraceSeconds = 30;
  double disruptionPollSeconds = 10;
  double driftRecheckSeconds = 300;
  double nodeClassResolveSeconds = 60;
  bool leaderElect = false;
  std::string featureGates = kDefaultFeatureGates;
  std::string metricsAddress = "127.0.0.1:8080";
  std::string healthAddress = "127.0.0.1:8081";
};

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

// The endpoints and leader election both clouds share; false after writing the error.
bool commonManagerOptions(const ControllerFlags& flags, const std::string& electionName,
                          runtime::ManagerOptions& managerOptions, Context& ctx) {
  for (auto [name, flag, target] : {std::tuple{"--metrics-bind-address", &flags.metricsAddress,
                                               &managerOptions.metricsEndpoint},
                                    std::tuple{"--health-probe-bind-address", &flags.healthAddress,
                                               &managerOptions.healthEndpoint}}) {
    if (flag->empty()) {
      continue;
    }
    // In a pod these must be reachable by the kubelet's probes and Prometheus (0.0.0.0:8080).
    auto address = parseListenAddress(*flag, name, ListenScope::Any);
    if (!address) {
      ctx.err << "error: " << address.error().message() << "\n";
      return false;
    }
    runtime::EndpointsOptions endpoint;
    endpoint.host = address->host;
    endpoint.port = address->port;
    *target = endpoint;
  }
  if (flags.leaderElect) {
    runtime::LeaderElectionConfig election;
    election.name = electionName;
    election.ns = "kube-system";
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    election.identity = std::string(host) + "_" + std::to_string(getpid());
    managerOptions.leaderElection = election;
  }
  return true;
}

// Runs `manager` until SIGINT/SIGTERM or until it fails on its own; `beforeStop` runs first
// when it is asked to stop.
int runUntilSignalled(runtime::Manager& manager, SignalWaiter& waiter, Context& ctx,
                      const std::function<void()>& beforeStop = {}) {
  core::Status result;
  std::atomic<bool> ended{false};
  std::jthread running([&](std::stop_token stop) {
    result = manager.run(stop);
    ended = true;
  });
  while (!ended && !waiter.waitFor(std::chrono::milliseconds(200))) {
  }
  if (beforeStop) {
    beforeStop();
  }
  running.request_stop();
  running.join();
  if (!result) {
    ctx.err << "error: " << result.error().message() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

std::unique_ptr<kube::Client> connect(const ControllerFlags& flags, Context& ctx, int& code) {
  auto config = kube::loadConfig(flags.kubeconfig);
  if (!config) {
    ctx.err << "error: kubeconfig: " << config.error().message() << "\n";
    code = kExitUsage;
    return nullptr;
  }
  auto client = kube::Client::create(*config);
  if (!client) {
    ctx.err << "error: " << client.error().message() << "\n";
    code = kExitFailed;
    return nullptr;
  }
  return std::move(*client);
}

int runAzureController(const ControllerFlags& flags, Context& ctx) {
  auto settings = azureControllerSettings(
      flags.azure, flags.lro, [](std::string_view name) -> std::optional<std::string> {
        const char* value = std::getenv(std::string(name).c_str());
        return value == nullptr ? std::nullopt : std::optional<std::string>(value);
      });
  if (!settings) {
    ctx.err << "error: " << settings.error().message() << "\n";
    return kExitUsage;
  }
  SignalWaiter waiter;
  int code = kExitOk;
  auto client = connect(flags, ctx, code);
  if (!client) {
    return code;
  }
  runtime::ManagerOptions managerOptions;
  // CAPZ's leader election id.
  if (!commonManagerOptions(flags, "controller-leader-election-capz", managerOptions, ctx)) {
    return kExitUsage;
  }
  managerOptions.component = "capz";
  managerOptions.informerDefaults.resyncPeriod = settings->syncPeriod;
  runtime::Manager manager(*client, managerOptions);
  const std::string armEndpoint = settings->controllers.armEndpoint;
  auto set =
      AzureControllerSet::create(manager, core::systemClock(), std::move(settings->controllers));
  if (!set) {
    ctx.err << "error: " << set.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "nodewright controller: cloud azure, ARM " << armEndpoint << "\n";
  ctx.out.flush();
  // Reconciles waiting out a poll window park their operations, so the workers end promptly.
  return runUntilSignalled(manager, waiter, ctx, [&set] { (*set)->engine().stop(); });
}

int runController(const ControllerFlags& flags, Context& ctx) {
  if (flags.cloud == "azure") {
    return runAzureController(flags, ctx);
  }
  if (flags.aws.clusterName.empty()) {
    ctx.err << "error: --cluster-name: required (the cluster whose nodes this controller owns)\n";
    return kExitUsage;
  }
  auto lro = lroOptions(flags.lro);
  if (!lro) {
    ctx.err << "error: " << lro.error().message() << "\n";
    return kExitUsage;
  }
  SignalWaiter waiter;
  core::SystemClock clock;
  int code = kExitOk;
  auto client = connect(flags, ctx, code);
  if (!client) {
    return code;
  }
  runtime::ManagerOptions managerOptions;
  if (!commonManagerOptions(flags, "karpenter-leader-election", managerOptions, ctx)) {
    return kExitUsage;
  }
  managerOptions.component = "karpenter";
  runtime::Manager manager(*client, managerOptions);
  auto transport = nodewright::aws::makeCurlTransport();
  auto aws = awsOptions(flags.aws, *transport, clock);
  if (!aws) {
    ctx.err << "error: " << aws.error().message() << "\n";
    return kExitUsage;
  }
  aws->cluster.endpoint = flags.clusterEndpoint;
  aws->cluster.caBundle = flags.clusterCaBundle;
  aws->cluster.serviceCidr = flags.serviceCidr;
  auto gates = parseFeatureGates(flags.featureGates);
  if (!gates) {
    ctx.err << "error: " << gates.error().message() << "\n";
    return kExitUsage;
  }
  ControllerSetOptions options;
  options.lro = *lro;
  options.nodeRepair = gates->nodeRepair;
  options.disruption.consolidationOptions.spotToSpot = gates->spotToSpotConsolidation;
  if (!flags.aws.interruptionQueue.empty()) {
    auto sqs = resolveSqsEndpoint(flags.aws, aws->region);
    if (!sqs) {
      ctx.err << "error: " << sqs.error().message() << "\n";
      return kExitUsage;
    }
    options.interruption.queue = flags.aws.interruptionQueue;
    options.interruption.endpoint = *sqs;
  }
  const std::string ec2Endpoint = aws->ec2Endpoint;
  options.aws = std::move(*aws);
  options.provisioner.batch.idle = millis(flags.batchIdleSeconds);
  options.provisioner.batch.max = millis(flags.batchMaxSeconds);
  options.provisioner.pendingRule = flags.pending == "unbound"
                                        ? controllers::provisioning::PendingRule::Unbound
                                        : controllers::provisioning::PendingRule::Unschedulable;
  options.garbageCollection.every =
      std::chrono::duration_cast<std::chrono::seconds>(millis(flags.gcIntervalSeconds));
  options.garbageCollection.grace =
      std::chrono::duration_cast<std::chrono::seconds>(millis(flags.gcGraceSeconds));
  options.disruption.pollInterval =
      std::chrono::duration_cast<std::chrono::seconds>(millis(flags.disruptionPollSeconds));
  options.drift.recheck =
      std::chrono::duration_cast<std::chrono::seconds>(millis(flags.driftRecheckSeconds));
  // Dynamic drift shows once a lookup is redone: the resolver's answers last as long as the
  // node class controller's period.
  options.nodeClasses.resolveEvery =
      std::chrono::duration_cast<std::chrono::seconds>(millis(flags.nodeClassResolveSeconds));
  options.aws.resolverTtl = options.nodeClasses.resolveEvery;
  auto set = ControllerSet::create(manager, *transport, std::move(options));
  if (!set) {
    ctx.err << "error: " << set.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "nodewright controller: cluster " << flags.aws.clusterName << ", EC2 " << ec2Endpoint
          << "\n";
  ctx.out.flush();
  return runUntilSignalled(manager, waiter, ctx);
}

}  // namespace

void addControllerCommand(CLI::App& app, Context& ctx, Action& action) {
  auto flags = std::make_shared<ControllerFlags>();
  CLI::App* sub = app.add_subcommand(
      "controller",
      "Run the Karpenter controllers for AWS against a cluster and EC2, or (--cloud azure) Cluster "
      "API and CAPZ against Azure");
  sub->add_option("--cloud", flags->cloud,
                  "aws: Karpenter on EC2; azure: Cluster API and CAPZ on Azure Resource Manager "
                  "(credentials from AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET)")
      ->check(CLI::IsMember({"aws", "azure"}))
      ->capture_default_str();
  sub->add_option("--kubeconfig", flags->kubeconfig,
                  "Kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  addAwsFlags(*sub, flags->aws);
  addInterruptionFlags(*sub, flags->aws);
  addFeatureGatesFlag(*sub, flags->featureGates);
  addAzureControllerFlags(*sub, flags->azure);
  sub->add_option("--cluster-endpoint", flags->clusterEndpoint,
                  "The API server URL nodes join (CLUSTER_ENDPOINT)")
      ->envname("CLUSTER_ENDPOINT");
  sub->add_option("--cluster-ca-bundle", flags->clusterCaBundle,
                  "Base64 PEM of the cluster CA, for node bootstrap");
  sub->add_option("--service-cidr", flags->serviceCidr, "The cluster's service CIDR")
      ->capture_default_str();
  sub->add_option("--batch-idle-duration", flags->batchIdleSeconds,
                  "Seconds without new pending pods that close a batch")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--batch-max-duration", flags->batchMaxSeconds,
                  "Longest a batch stays open, in seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--pending", flags->pending,
                  "Which pods need nodes: unschedulable (kube-scheduler said so) or unbound "
                  "(no node; clusters without a scheduler)")
      ->check(CLI::IsMember({"unschedulable", "unbound"}))
      ->capture_default_str();
  sub->add_option("--gc-interval", flags->gcIntervalSeconds,
                  "Seconds between garbage collections of machines no NodeClaim accounts for")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  sub->add_option("--gc-grace", flags->gcGraceSeconds,
                  "Age in seconds below which an unaccounted machine is left alone")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  sub->add_option("--disruption-poll-interval", flags->disruptionPollSeconds,
                  "Seconds between disruption passes when nothing triggers one")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  sub->add_option("--drift-recheck", flags->driftRecheckSeconds,
                  "Seconds after which a NodeClaim's drift is checked again without a change")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  sub->add_option("--nodeclass-resolve-interval", flags->nodeClassResolveSeconds,
                  "Seconds between resolutions of a node class's subnets, security groups and "
                  "AMIs (how soon dynamic drift shows)")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  addLroFlags(*sub, flags->lro);
  sub->add_flag("--leader-elect", flags->leaderElect,
                "Run controllers only while holding the kube-system Lease");
  sub->add_option("--metrics-bind-address", flags->metricsAddress,
                  "Where /metrics is served (empty: not served)")
      ->capture_default_str();
  sub->add_option("--health-probe-bind-address", flags->healthAddress,
                  "Where /healthz and /readyz are served (empty: not served)")
      ->capture_default_str();
  sub->callback(
      [flags, &ctx, &action] { action = [flags, &ctx] { return runController(*flags, ctx); }; });
}

}  // namespace nodewright::cmd
