#pragma once

#include <chrono>
#include <optional>

#include "api/capi/cluster.h"
#include "api/capz/azure_cluster.h"
#include "api/capz/azure_cluster_identity.h"
#include "api/core/namespace.h"
#include "controllers/capz/service.h"
#include "core/clock.h"
#include "kube/client.h"
#include "lro/operation.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// CAPZ's AzureCluster controller: the cluster's Azure network (azurecluster/services.h) through
// the ServiceRunner and the futures engine (seed 004).
//
// Create: waits (no error) for the owner Cluster's reference; does nothing while the Cluster is
// paused; refuses a cluster whose namespace its AzureClusterIdentity does not allow (below); adds
// the finalizer, then runs one pass and records it: futures and per-service
// conditions after every pass (another process resumes from the stored futures), a Ready
// summary, status.ready and failureDomains once every service is Done, and
// spec.controlPlaneEndpoint from the API server's address when it was empty.
// Delete: a managed resource group (tagged owned by this cluster) is deleted whole; otherwise
// every service but the group, in reverse. The finalizer comes off once the pass is Done.
// Identity: as CAPZ's EnsureClusterIdentity, before any Azure request on create and delete, a
// cluster whose namespace is not in its identity's allowedNamespaces gets
// NetworkInfrastructureReady (and so Ready) False, reason NamespaceNotAllowedByIdentity,
// severity Error, and the reconcile fails (backs off and retries, so a widened allowedNamespaces
// is picked up). A referenced identity that does not exist is not enforced yet.
// Invariant: the finalizer is on the object before any Azure resource is requested.
namespace nodewright::controllers::capz {

inline constexpr const char* kAzureClusterFinalizer =
    "azurecluster.infrastructure.cluster.x-k8s.io";

struct AzureClusterControllerOptions {
  int workers = 10;  // CAPZ's --azurecluster-concurrency default
  // While waiting for the owner Cluster, and after a pass that gave no requeue time.
  std::chrono::milliseconds waitRequeue{std::chrono::seconds(15)};
  std::chrono::milliseconds cloudCallTimeout{std::chrono::seconds(5)};
};

// Thread-safe as the runtime uses it. `client`, `runner`, `cloud` and `clock` must outlive it.
class AzureClusterController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "azurecluster";

  // `cloud`: reads the resource group's tags on delete (is it ours?).
  AzureClusterController(kube::Client& client, ServiceRunner& runner, lro::Operations& cloud,
                         const core::Clock& clock, AzureClusterControllerOptions options = {});

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles AzureClusters on their own events and their owner Clusters'. Call before
  // manager.run().
  // `as`: the reconciler registered in its place (a wrapper of this one, such as
  // runtime::CoalescingReconciler); null registers this one.
  runtime::Controller& setup(runtime::Manager& manager, runtime::Reconciler* as = nullptr);

 private:
  using AzureCluster = api::capz::AzureCluster;

  // The owner Cluster; nullopt while the Cluster controller has not set the reference.
  kube::ApiResult<std::optional<api::capi::Cluster>> ownerCluster(const AzureCluster& cluster);
  // Nullopt when the cluster may use its identity; otherwise the outcome to return, the
  // refusal written to the status.
  std::optional<runtime::Outcome> refuseDisallowedIdentity(AzureCluster& cluster);
  runtime::Outcome reconcileNormal(AzureCluster& cluster);
  runtime::Outcome reconcileDelete(AzureCluster& cluster);
  // Whether the cluster's resource group is ours; an absent group counts as ours (nothing is
  // left to spare).
  core::Result<bool> managedResourceGroup(const AzureCluster& cluster);
  // Sets spec.controlPlaneEndpoint when empty, from the pass's API server address.
  kube::ApiStatus setControlPlaneEndpoint(AzureCluster& cluster, const Pass& pass);
  // Writes the status; `cluster` takes the stored metadata (its new resourceVersion).
  kube::ApiStatus writeStatus(AzureCluster& cluster);
  kube::ApiStatus setFinalizer(AzureCluster& cluster, bool present);
  runtime::Outcome after(const Pass& pass) const;

  ServiceRunner& runner_;
  lro::Operations& cloud_;
  const core::Clock& clock_;
  const AzureClusterControllerOptions options_;
  kube::Typed<AzureCluster> clusters_;
  kube::Typed<api::capi::Cluster> owners_;
  kube::Typed<api::capz::AzureClusterIdentity> identities_;
  kube::Typed<api::corev1::Namespace> namespaces_;
};

}  // namespace nodewright::controllers::capz
