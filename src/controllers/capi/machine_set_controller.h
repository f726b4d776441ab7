#pragma once

#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "api/capi/cluster.h"
#include "api/capi/machine.h"
#include "api/capi/machine_set.h"
#include "controllers/capi/options.h"
#include "core/clock.h"
#include "kube/client.h"
#include "runtime/manager.h"
#include "runtime/reconciler.h"

// CAPI's MachineSet controller: keeps spec.replicas Machines that its selector matches and it
// controls. Each new Machine `<set>-<random5>` gets its infrastructure object cloned from
// spec.template.spec.infrastructureRef (an AzureMachineTemplate becomes an AzureMachine of the
// Machine's name); the clone is created first and owned by the MachineSet until the Machine
// controller adopts it, so a crash between the two leaves nothing the garbage collector cannot
// find. Surplus Machines go per deletePolicy (delete_policy.h). Machines are listed from the API
// server, not the cache: a cache that has not yet seen the last reconcile's creations would
// make it create them again.
namespace nodewright::controllers::capi {

// Thread-safe as the runtime uses it. `client` and `clock` must outlive it.
class MachineSetController final : public runtime::Reconciler {
 public:
  static constexpr const char* kName = "capi.machineset";

  MachineSetController(kube::Client& client, const core::Clock& clock);

  // runtime::Reconciler
  runtime::Outcome reconcile(const runtime::Request& request, runtime::Context& context) override;

  // Reconciles MachineSets on their own events and their Machines'. Call before manager.run().
  runtime::Controller& setup(runtime::Manager& manager, const CapiOptions& options);

 private:
  using Machine = api::capi::Machine;
  using MachineSet = api::capi::MachineSet;

  kube::ApiResult<std::vector<Machine>> ownedMachines(const MachineSet& set);
  // Whether the set's Cluster is being deleted (read from the server, as the Machines are).
  kube::ApiResult<bool> clusterDeleting(const MachineSet& set);
  // Creates `count` Machines; the first error is returned after trying them all.
  kube::ApiStatus createMachines(const MachineSet& set, int count, runtime::Context& context);
  kube::ApiStatus createMachine(const MachineSet& set, const api::Object& infraTemplate);
  // Deletes `count` of `machines` per deletePolicy; those already being deleted count first.
  kube::ApiStatus deleteMachines(const MachineSet& set, std::vector<Machine> machines,
                                 size_t count);
  // Fills the counts and conditions; returns when availability must be looked at again
  // (minReadySeconds), or zero.
  std::chrono::nanoseconds computeStatus(MachineSet& set, const std::vector<Machine>& machines,
                                         bool creationFailed) const;
  std::string randomSuffix();

  kube::Client& client_;
  const core::Clock& clock_;
  kube::Typed<Machine> machines_;
  kube::Typed<MachineSet> sets_;
  kube::Typed<api::capi::Cluster> clusters_;
  std::mutex mu_;
  std::mt19937_64 random_;  // guarded by mu_
};

// Ready (the Machine's Ready condition) and not being deleted.
bool machineReady(const api::capi::Machine& machine);
// Ready for at least `minReadySeconds` at `now`; otherwise `wait` (if not null) is how long
// until it will be (zero when it is not ready at all).
bool machineAvailable(const api::capi::Machine& machine, int32_t minReadySeconds,
                      core::TimePoint now, std::chrono::nanoseconds* wait = nullptr);

}  // namespace nodewright::controllers::capi
