#include "cmd/inspect.h"

#include <cstdlib>
#include <ostream>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>

#include "api/core/apps.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "cmd/embedded_cluster.h"
#include "kube/config.h"

namespace nodewright::cmd {

using api::karpenter::EC2NodeClass;

void addInspectFlags(CLI::App& sub, InspectFlags& flags) {
  sub.add_option("--kubeconfig", flags.kubeconfig,
                 "Kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  addAwsFlags(sub, flags.aws);
  sub.add_option("-o,--output", flags.output, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

namespace {

// The kubeconfig file the client will read: the flag, else $KUBECONFIG when it names one file.
std::string kubeconfigPath(const InspectFlags& flags) {
  if (!flags.kubeconfig.empty()) {
    return flags.kubeconfig;
  }
  const char* list = std::getenv("KUBECONFIG");
  if (list == nullptr || std::string_view(list).find(':') != std::string_view::npos) {
    return "";
  }
  return list;
}

// Against `nodewright up`, whose data directory describes its emulated EC2 beside the kubeconfig
// (cmd/embedded_cluster.h), and no --ec2-endpoint: the flags not given come from there, and so
// do the credentials (the emulator's key in DIR/aws/, whatever the shell holds for real AWS).
// Otherwise the flags and the process environment, as given.
core::Result<nodewright::aws::EnvLookup> applyEmbeddedCluster(InspectFlags& flags) {
  const std::string kubeconfig = kubeconfigPath(flags);
  if (kubeconfig.empty() || !flags.aws.ec2Endpoint.empty()) {
    return nodewright::aws::processEnvironment();
  }
  auto embedded = readEmbeddedClusterBeside(kubeconfig);
  if (!embedded) {
    return core::fail(embedded.error());
  }
  if (!*embedded) {
    return nodewright::aws::processEnvironment();
  }
  const EmbeddedCluster& cluster = **embedded;
  AwsFlags& aws = flags.aws;
  for (auto [flag, value] : {std::pair{&aws.clusterName, &cluster.clusterName},
                             {&aws.region, &cluster.region},
                             {&aws.ec2Endpoint, &cluster.ec2Endpoint},
                             {&aws.ssmEndpoint, &cluster.ssmEndpoint},
                             {&aws.pricingEndpoint, &cluster.pricingEndpoint}}) {
    if (flag->empty()) {
      *flag = *value;
    }
  }
  return nodewright::aws::mapEnvironment(
      {{"AWS_CONFIG_FILE", cluster.awsConfigFile},
       {"AWS_SHARED_CREDENTIALS_FILE", cluster.awsCredentialsFile},
       {"AWS_EC2_METADATA_DISABLED", "true"}});
}

}  // namespace

tl::expected<std::unique_ptr<Inspection>, int> Inspection::open(const InspectFlags& given,
                                                                Context& ctx) {
  InspectFlags flags = given;
  auto env = applyEmbeddedCluster(flags);
  if (!env) {
    ctx.err << "error: " << env.error().message() << "\n";
    return tl::unexpected(kExitUsage);
  }
  if (flags.aws.clusterName.empty()) {
    ctx.err << "error: --cluster-name: required (the cluster whose instances are checked)\n";
    return tl::unexpected(kExitUsage);
  }
  auto config = kube::loadConfig(flags.kubeconfig);
  if (!config) {
    ctx.err << "error: kubeconfig: " << config.error().message() << "\n";
    return tl::unexpected(kExitUsage);
  }
  std::unique_ptr<Inspection> in(new Inspection());
  auto client = kube::Client::create(*config);
  if (!client) {
    ctx.err << "error: " << client.error().message() << "\n";
    return tl::unexpected(kExitFailed);
  }
  in->client_ = std::move(*client);
  in->transport_ = nodewright::aws::makeCurlTransport();
  auto options = awsOptions(flags.aws, *in->transport_, in->clock_, std::move(*env));
  if (!options) {
    ctx.err << "error: " << options.error().message() << "\n";
    return tl::unexpected(kExitUsage);
  }
  Inspection* self = in.get();
  options->nodeClasses = [self](const std::string& name) { return self->nodeClass(name); };
  auto stack = cloud::aws::AwsStack::create(in->clock_, *in->transport_, std::move(*options));
  if (!stack) {
    ctx.err << "error: " << stack.error().message() << "\n";
    return tl::unexpected(kExitFailed);
  }
  in->stack_ = std::move(*stack);
  in->caches_.pods = &in->pods_;
  in->caches_.nodes = &in->nodes_;
  in->caches_.nodeClaims = &in->claims_;
  in->caches_.nodePools = &in->pools_;
  in->caches_.daemonSets = &in->daemonSets_;
  return in;
}

Inspection::~Inspection() = default;

core::Status Inspection::load() {
  auto fill = [this](const api::KindInfo& kind, kube::Cache& cache) -> core::Status {
    auto listed = client_->list(kind, "", {});
    if (!listed) {
      return core::fail(listed.error().toError().wrap("listing " + kind.plural));
    }
    cache.replace(std::move(listed->items));
    return core::ok();
  };
  const api::Registry& registry = client_->registry();
  for (auto [kind, cache] :
       {std::pair{&kube::kindOf<api::corev1::Pod>(registry), &pods_},
        std::pair{&kube::kindOf<api::corev1::Node>(registry), &nodes_},
        std::pair{&kube::kindOf<api::karpenter::NodeClaim>(registry), &claims_},
        std::pair{&kube::kindOf<api::karpenter::NodePool>(registry), &pools_},
        std::pair{&kube::kindOf<api::corev1::DaemonSet>(registry), &daemonSets_}}) {
    if (auto filled = fill(*kind, *cache); !filled) {
      return filled;
    }
  }
  return core::ok();
}

core::Result<EC2NodeClass> Inspection::nodeClass(const std::string& name) {
  {
    std::lock_guard lock(mu_);
    if (auto it = nodeClasses_.find(name); it != nodeClasses_.end()) {
      return it->second;
    }
  }
  auto got = kube::Typed<EC2NodeClass>(*client_).get("", name);
  if (!got) {
    if (got.error().is(kube::Reason::NotFound)) {
      return core::fail(core::Error::notFound("EC2NodeClass " + name + " not found"));
    }
    return core::fail(got.error().toError().wrap("reading EC2NodeClass " + name));
  }
  std::lock_guard lock(mu_);
  return nodeClasses_.emplace(name, std::move(*got)).first->second;
}

}  // namespace nodewright::cmd
