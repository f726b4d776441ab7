#include <unistd.h>
#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>
#include <ostream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "aws/credentials.h"
#include "aws/endpoints.h"
#include "aws/shared_config.h"
#include "cmd/command.h"
#include "cmd/controller_set.h"
#include "cmd/listen_address.h"
#include "cmd/signals.h"
#include "core/clock.h"
#include "kube/config.h"

// `nodewright controller`: the Karpenter controllers for AWS against a cluster named by a
// kubeconfig (or in-cluster), with Karpenter's flags. The EC2, SSM and Pricing endpoints follow
// the SDK's rules (flag, AWS_ENDPOINT_URL_*, profile), so the same binary talks to AWS, the
// project's emulator or moto_server.
namespace nodewright::cmd {
namespace {

struct ControllerFlags {
  std::string kubeconfig;
  std::string clusterName;
  std::string clusterEndpoint;
  std::string clusterCaBundle;
  std::string serviceCidr = "10.100.0.0/16";
  std::string region;
  std::string ec2Endpoint;
  std::string ssmEndpoint;
  std::string pricingEndpoint;
  double batchIdleSeconds = 1;
  double batchMaxSeconds = 10;
  std::string pending = "unschedulable";
  double gcIntervalSeconds = 60;
  double gcGraceSeconds = 30;
  bool leaderElect = false;
  std::string metricsAddress = "127.0.0.1:8080";
  std::string healthAddress = "127.0.0.1:8081";
};

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

core::Result<cloud::aws::AwsStackOptions> awsOptions(const ControllerFlags& flags,
                                                     nodewright::aws::Transport& transport,
                                                     const core::Clock& clock) {
  namespace sdk = nodewright::aws;
  const sdk::EnvLookup env = sdk::processEnvironment();
  auto profile = sdk::loadProfile(env);
  const sdk::Profile* p = profile ? &*profile : nullptr;
  auto region = sdk::resolveRegion(
      flags.region.empty() ? std::nullopt : std::optional<std::string>(flags.region), env, p);
  if (!region) {
    return core::fail(core::Error::invalid("--region: " + region.error().message));
  }
  cloud::aws::AwsStackOptions o;
  o.region = *region;
  auto endpoint = [&](const char* service, const std::string& flag) -> sdk::ApiResult<std::string> {
    return sdk::resolveEndpoint(
        service, *region, flag.empty() ? std::nullopt : std::optional<std::string>(flag), env, p);
  };
  auto ec2 = endpoint("ec2", flags.ec2Endpoint);
  auto ssm = endpoint("ssm", flags.ssmEndpoint);
  if (!ec2 || !ssm) {
    return core::fail(
        core::Error::invalid("endpoints: " + (!ec2 ? ec2.error().message : ssm.error().message)));
  }
  o.ec2Endpoint = *ec2;
  o.ssmEndpoint = *ssm;
  o.pricingEndpoint = flags.pricingEndpoint;
  auto chain = std::shared_ptr<sdk::CredentialsProvider>(
      sdk::makeDefaultCredentialsChain(env, transport, clock, *region));
  o.credentials = [chain] { return chain->get(); };
  o.cluster.name = flags.clusterName;
  o.cluster.endpoint = flags.clusterEndpoint;
  o.cluster.caBundle = flags.clusterCaBundle;
  o.cluster.serviceCidr = flags.serviceCidr;
  return o;
}

int runController(const ControllerFlags& flags, Context& ctx) {
  if (flags.clusterName.empty()) {
    ctx.err << "error: --cluster-name: required (the cluster whose nodes this controller owns)\n";
    return kExitUsage;
  }
  SignalWaiter waiter;
  core::SystemClock clock;
  auto config = kube::loadConfig(flags.kubeconfig);
  if (!config) {
    ctx.err << "error: kubeconfig: " << config.error().message() << "\n";
    return kExitUsage;
  }
  auto client = kube::Client::create(*config);
  if (!client) {
    ctx.err << "error: " << client.error().message() << "\n";
    return kExitFailed;
  }
  runtime::ManagerOptions managerOptions;
  for (auto [flag, target] : {std::pair{&flags.metricsAddress, &managerOptions.metricsEndpoint},
                              std::pair{&flags.healthAddress, &managerOptions.healthEndpoint}}) {
    if (flag->empty()) {
      continue;
    }
    auto address = parseListenAddress(*flag);
    if (!address) {
      ctx.err << "error: " << address.error().message() << "\n";
      return kExitUsage;
    }
    runtime::EndpointsOptions endpoint;
    endpoint.host = address->host;
    endpoint.port = address->port;
    *target = endpoint;
  }
  if (flags.leaderElect) {
    runtime::LeaderElectionConfig election;
    election.name = "karpenter-leader-election";
    election.ns = "kube-system";
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    election.identity = std::string(host) + "_" + std::to_string(getpid());
    managerOptions.leaderElection = election;
  }
  managerOptions.component = "karpenter";
  runtime::Manager manager(**client, managerOptions);
  auto transport = nodewright::aws::makeCurlTransport();
  auto aws = awsOptions(flags, *transport, clock);
  if (!aws) {
    ctx.err << "error: " << aws.error().message() << "\n";
    return kExitUsage;
  }
  ControllerSetOptions options;
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
  auto set = ControllerSet::create(manager, *transport, std::move(options));
  if (!set) {
    ctx.err << "error: " << set.error().message() << "\n";
    return kExitFailed;
  }
  ctx.out << "nodewright controller: cluster " << flags.clusterName << ", EC2 " << ec2Endpoint
          << "\n";
  ctx.out.flush();
  core::Status result;
  std::atomic<bool> ended{false};
  std::jthread running([&](std::stop_token stop) {
    result = manager.run(stop);
    ended = true;
  });
  while (!ended && !waiter.waitFor(std::chrono::milliseconds(200))) {
  }
  running.request_stop();
  running.join();
  if (!result) {
    ctx.err << "error: " << result.error().message() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

void addControllerCommand(CLI::App& app, Context& ctx, Action& action) {
  auto flags = std::make_shared<ControllerFlags>();
  CLI::App* sub = app.add_subcommand(
      "controller", "Run the Karpenter controllers for AWS against a cluster and EC2");
  sub->add_option("--kubeconfig", flags->kubeconfig,
                  "Kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  sub->add_option("--cluster-name", flags->clusterName, "The cluster's name (CLUSTER_NAME)")
      ->envname("CLUSTER_NAME");
  sub->add_option("--cluster-endpoint", flags->clusterEndpoint,
                  "The API server URL nodes join (CLUSTER_ENDPOINT)")
      ->envname("CLUSTER_ENDPOINT");
  sub->add_option("--cluster-ca-bundle", flags->clusterCaBundle,
                  "Base64 PEM of the cluster CA, for node bootstrap");
  sub->add_option("--service-cidr", flags->serviceCidr, "The cluster's service CIDR")
      ->capture_default_str();
  sub->add_option("--region", flags->region, "AWS region (default: the SDK's resolution)");
  sub->add_option("--ec2-endpoint", flags->ec2Endpoint, "EC2 endpoint URL");
  sub->add_option("--ssm-endpoint", flags->ssmEndpoint, "SSM endpoint URL");
  sub->add_option("--pricing-endpoint", flags->pricingEndpoint,
                  "Price List API endpoint URL (empty: the built-in on-demand prices)");
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
