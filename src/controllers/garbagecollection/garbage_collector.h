#pragma once

#include <chrono>

#include "api/karpenter/nodeclaim.h"
#include "cloud/cloud_provider.h"
#include "kube/cache.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/metrics.h"
#include "runtime/reconciler.h"

// Karpenter's garbage collection between the cluster and the cloud: a machine the cluster owns
// that no NodeClaim accounts for (a launch whose NodeClaim was lost, a crash between launch and
// status write whose NodeClaim was then deleted) is terminated; a launched NodeClaim whose
// machine is gone (terminated outside the cluster) is deleted, so its pods are provisioned
// again. A singleton that runs every period.
namespace nodewright::controllers::garbagecollection {

struct GarbageCollectorOptions {
  std::chrono::seconds every{60};
  // A machine younger than this is left alone: its NodeClaim may not have reached the cache.
  std::chrono::seconds grace{30};
};

struct CollectionSummary {
  std::vector<std::string> terminatedMachines;  // provider IDs
  std::vector<std::string> deletedNodeClaims;
};

class GarbageCollector final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "garbage-collection";

  GarbageCollector(kube::Client& client, cloud::CloudProvider& cloud, const core::Clock& clock,
                   runtime::Registry& metrics, GarbageCollectorOptions options = {});

  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;
  runtime::Controller& setup(runtime::Manager& manager);

  // One collection against `claims` (the NodeClaim cache).
  core::Result<CollectionSummary> collect(const kube::Cache& claims, runtime::Context& context);

 private:
  kube::Typed<api::karpenter::NodeClaim> nodeClaims_;
  cloud::CloudProvider& cloud_;
  const core::Clock& clock_;
  const GarbageCollectorOptions options_;
  const kube::Cache* claims_ = nullptr;
  runtime::Family<runtime::Counter>& collected_;
};

}  // namespace nodewright::controllers::garbagecollection
