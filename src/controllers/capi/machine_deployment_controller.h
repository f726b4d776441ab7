#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/capi/machine.h"
#include "api/capi/machine_deployment.h"
#include "api/capi/machine_set.h"
#include "controllers/capi/options.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// CAPI's MachineDeployment controller: one MachineSet per template revision, `<md>-<hash>`
// where the hash covers spec.template, labelled cluster.x-k8s.io/deployment-name and
// machine-template-hash; replicas spread over the sets by rollout.h (RollingUpdate with
// maxSurge/maxUnavailable counted on available Machines, or OnDelete). Old sets that are
// empty go once more than revisionHistoryLimit of them are left. Status sums the sets'
// Machines. MachineSets and Machines are read from the API server: replica decisions on a
// stale cache could take away machines that are still needed.
namespace nodewright::controllers::capi {

// Thread-safe as the runtime uses it. `client` and `clock` must outlive it.
class MachineDeploymentController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "capi.machinedeployment";

  MachineDeploymentController(kube::Client& client, const core::Clock& clock);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles MachineDeployments on their own events, their MachineSets' and their Machines'.
  // Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager, const CapiOptions& options);

 private:
  using Machine = api::capi::Machine;
  using MachineSet = api::capi::MachineSet;
  using MachineDeployment = api::capi::MachineDeployment;
  // Machines by the uid of the MachineSet controlling them.
  using MachinesBySet = std::map<std::string, std::vector<Machine>>;

  kube::ApiResult<std::vector<MachineSet>> ownedSets(const MachineDeployment& deployment);
  kube::ApiResult<MachinesBySet> machinesOf(const MachineDeployment& deployment);
  // Writes the planned replicas; creates the new set when `newSet` is null.
  kube::ApiStatus applyPlan(const MachineDeployment& deployment, const std::string& hash,
                            const MachineSet* newSet, const std::vector<MachineSet*>& oldSets,
                            const std::vector<int32_t>& plan);
  kube::ApiStatus deleteSurplusOldSets(const MachineDeployment& deployment,
                                       const std::vector<MachineSet*>& oldSets,
                                       const MachinesBySet& machines);
  void computeStatus(MachineDeployment& deployment, const std::vector<MachineSet>& sets,
                     const std::string& hash, const MachinesBySet& machines) const;

  const core::Clock& clock_;
  kube::Typed<MachineDeployment> deployments_;
  kube::Typed<MachineSet> sets_;
  kube::Typed<Machine> machines_;
};

// The machine-template-hash of a template revision: FNV over its JSON, spelled in kube's safe
// alphabet as CAPI's ComputeSpewHash + SafeEncodeString.
std::string templateHash(const api::capi::MachineTemplateSpec& spec);

// The MachineSet a revision gets: `<md>-<hash>`, the deployment's selector and template plus
// the hash label, controlled by the deployment.
api::capi::MachineSet machineSetFor(const api::capi::MachineDeployment& deployment,
                                    const std::string& hash, int32_t replicas);

}  // namespace nodewright::controllers::capi
