#pragma once

#include <vector>

#include "api/capi/cluster.h"
#include "controllers/capi/options.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// CAPI's Cluster controller: adopts the infrastructure object (an AzureCluster, reached
// generically), mirrors its status.ready into status.infrastructureReady and its
// spec.controlPlaneEndpoint into the Cluster; phases Pending -> Provisioning -> Provisioned,
// Deleting, Failed; conditions InfrastructureReady and Ready. Control plane providers are not
// modelled: controlPlaneRef is left alone and Ready follows the infrastructure.
// Deletion, under the finalizer cluster.cluster.x-k8s.io: the cluster's MachineDeployments,
// MachineSets, MachinePools and Machines (label cluster.x-k8s.io/cluster-name, or
// spec.clusterName) are deleted and waited for, then the infrastructure object; only then does
// the finalizer come off, so no Azure resource outlives the Cluster that made it.
namespace nodewright::controllers::capi {

// Thread-safe as the runtime uses it. `client` and `clock` must outlive it.
class ClusterController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "capi.cluster";

  // `infrastructureKinds`: the provider kinds whose changes wake their owning Cluster.
  ClusterController(kube::Client& client, const core::Clock& clock,
                    std::vector<const api::KindInfo*> infrastructureKinds);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles Clusters on their own events, their infrastructure objects' and (for deletion)
  // the events of the objects labelled with their name. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager, const CapiOptions& options);

 private:
  using Cluster = api::capi::Cluster;

  runtime::Outcome finalize(Cluster cluster, runtime::Context& context);
  // Starts deleting what belongs to the cluster; the number of those objects still there.
  kube::ApiResult<size_t> deleteDescendants(const Cluster& cluster);
  template <class T>
  kube::ApiResult<size_t> deleteOwnedBy(const Cluster& cluster);
  kube::ApiStatus writeStatus(Cluster& cluster, const Cluster& before);

  kube::Client& client_;
  const core::Clock& clock_;
  kube::Typed<Cluster> clusters_;
  const std::vector<const api::KindInfo*> infrastructureKinds_;
};

}  // namespace nodewright::controllers::capi
