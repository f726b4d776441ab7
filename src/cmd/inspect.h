#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "api/karpenter/ec2nodeclass.h"
#include "aws/transport.h"
#include "cloud/aws/stack.h"
#include "cmd/aws_flags.h"
#include "cmd/command.h"
#include "controllers/provisioning/cluster_snapshot.h"
#include "core/clock.h"
#include "kube/cache.h"
#include "kube/client.h"

namespace CLI {
class App;
}  // namespace CLI

// What the read-only commands (`drift explain`, `disruption plan`) share: a client for the
// cluster of a kubeconfig, the AWS provider over EC2, and one copy of the objects the disruption
// logic reads. They decide with the controllers' own functions, so what they print is what the
// controller would do; they write nothing, to the cluster or to EC2.
namespace nodewright::cmd {

struct InspectFlags {
  std::string kubeconfig;
  AwsFlags aws;
  std::string output = "text";
};

// --kubeconfig, the AWS flags and -o/--output text|json.
void addInspectFlags(CLI::App& sub, InspectFlags& flags);

class Inspection {
 public:
  // Connects to the cluster and builds the provider. Against `nodewright up` (its kubeconfig's
  // directory describes the emulated EC2) the AWS flags not given come from there. On failure
  // the error is written to ctx.err and the exit code returned: usage for a missing cluster
  // name, kubeconfig or region, failed otherwise.
  static tl::expected<std::unique_ptr<Inspection>, int> open(const InspectFlags& flags,
                                                             Context& ctx);
  ~Inspection();

  kube::Client& client() { return *client_; }
  cloud::CloudProvider& cloud() { return stack_->provider(); }
  const core::Clock& clock() const { return clock_; }

  // Lists pods, nodes, NodeClaims, NodePools and DaemonSets once; the caches hold that picture.
  core::Status load();
  const controllers::provisioning::ClusterCaches& caches() const { return caches_; }

 private:
  Inspection() = default;
  // The provider's node class lookup: one GET per name, kept for the command's run so every
  // decision sees the same node class.
  core::Result<api::karpenter::EC2NodeClass> nodeClass(const std::string& name);

  core::SystemClock clock_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<nodewright::aws::Transport> transport_;
  std::unique_ptr<cloud::aws::AwsStack> stack_;
  kube::Cache pods_, nodes_, claims_, pools_, daemonSets_;
  controllers::provisioning::ClusterCaches caches_;
  std::mutex mu_;
  std::map<std::string, api::karpenter::EC2NodeClass> nodeClasses_;  // GUARDED_BY(mu_)
};

}  // namespace nodewright::cmd
