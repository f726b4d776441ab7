#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cloud/well_known_labels.h"

// An in-process CloudProvider for the lifecycle logic: machines in a map, every call recorded
// in order, errors injected per call kind. A removed machine stays "shutting-down" (get still
// finds it) until terminate() or, with autoTerminate, at once.
namespace nodewright::cloud::testing {

class FakeCloudProvider final : public CloudProvider {
 public:
  FakeCloudProvider() {
    machine_.instanceType = "m5.large";
    machine_.zone = "zone-a";
    machine_.capacityType = "on-demand";
    machine_.imageID = "ami-0123";
    machine_.labels = {{"node.kubernetes.io/instance-type", "m5.large"},
                       {"topology.kubernetes.io/zone", "zone-a"},
                       {"karpenter.sh/capacity-type", "on-demand"},
                       {"kubernetes.io/arch", "amd64"}};
    machine_.capacity = {{"cpu", q("2")}, {"memory", q("8Gi")}, {"pods", q("29")}};
    machine_.allocatable = {{"cpu", q("1930m")}, {"memory", q("7Gi")}, {"pods", q("29")}};
  }

  // CloudProvider
  std::string name() const override { return "fake"; }

  core::Result<Machine> create(const api::karpenter::NodeClaim& claim) override {
    std::lock_guard lock(mu_);
    calls_.push_back("create " + claim.metadata.name);
    if (createError_) {
      core::Error error = *createError_;
      if (!createErrorSticky_) {
        createError_.reset();
      }
      return core::fail(error);
    }
    auto known = byClaim_.find(claim.metadata.uid);
    if (known != byClaim_.end() && machines_.contains(known->second)) {
      return machines_.at(known->second);
    }
    Machine machine = machine_;
    machine.providerID = "fake:///zone-a/i-" + std::to_string(++launched_);
    machine.nodeClaimName = claim.metadata.name;
    auto pool = claim.metadata.labels.find(labels::kNodePool);
    machine.nodePoolName = pool == claim.metadata.labels.end() ? "" : pool->second;
    machine.state = "running";
    machines_[machine.providerID] = machine;
    byClaim_[claim.metadata.uid] = machine.providerID;
    return machine;
  }

  core::Result<Machine> get(std::string_view providerID) override {
    std::lock_guard lock(mu_);
    calls_.push_back("get " + std::string(providerID));
    auto it = machines_.find(std::string(providerID));
    if (it == machines_.end()) {
      return core::fail(core::Error::notFound("no machine " + std::string(providerID)));
    }
    return it->second;
  }

  core::Result<std::vector<Machine>> list() override {
    std::lock_guard lock(mu_);
    std::vector<Machine> out;
    for (const auto& [id, machine] : machines_) {
      out.push_back(machine);
    }
    return out;
  }

  core::Status remove(std::string_view providerID) override {
    std::lock_guard lock(mu_);
    calls_.push_back("remove " + std::string(providerID));
    auto it = machines_.find(std::string(providerID));
    if (it == machines_.end()) {
      return core::fail(core::Error::notFound("no machine " + std::string(providerID)));
    }
    it->second.state = "shutting-down";
    if (autoTerminate_) {
      machines_.erase(it);
    }
    return {};
  }

  core::Result<InstanceTypes> instanceTypes(const api::karpenter::NodePool&) override {
    std::lock_guard lock(mu_);
    InstanceTypes out;
    out.compatible = types_;
    out.excluded = excluded_;
    return out;
  }

  core::Result<std::vector<DriftCheck>> isDrifted(const api::karpenter::NodeClaim& claim) override {
    std::lock_guard lock(mu_);
    calls_.push_back("isDrifted " + claim.status.providerID);
    if (driftError_) {
      core::Error error = *driftError_;
      driftError_.reset();
      return core::fail(error);
    }
    auto it = drift_.find(claim.status.providerID);
    if (it != drift_.end()) {
      return it->second;
    }
    DriftCheck pass;
    pass.name = "NodeClass";
    pass.detail = "fake: not drifted";
    return std::vector<DriftCheck>{pass};
  }

  // What isDrifted() answers for the claim of `providerID`; by default one passing "NodeClass"
  // check.
  void setDrift(const std::string& providerID, std::vector<DriftCheck> checks) {
    std::lock_guard lock(mu_);
    drift_[providerID] = std::move(checks);
  }
  void clearDrift(const std::string& providerID) {
    std::lock_guard lock(mu_);
    drift_.erase(providerID);
  }
  // The next isDrifted fails with `error`.
  void failDrift(core::Error error) {
    std::lock_guard lock(mu_);
    driftError_ = std::move(error);
  }

  // What instanceTypes() offers every NodePool.
  void setInstanceTypes(std::vector<InstanceType> types) {
    std::lock_guard lock(mu_);
    types_ = std::move(types);
  }

  // What instanceTypes() says it left out, for every NodePool.
  void setExclusions(std::vector<Exclusion> excluded) {
    std::lock_guard lock(mu_);
    excluded_ = std::move(excluded);
  }

  // The next create fails with `error`; sticky: every create until clearCreateError().
  void failCreate(core::Error error, bool sticky = false) {
    std::lock_guard lock(mu_);
    createError_ = std::move(error);
    createErrorSticky_ = sticky;
  }
  void clearCreateError() {
    std::lock_guard lock(mu_);
    createError_.reset();
  }
  // A machine the cloud runs that no create made (a launch whose NodeClaim was lost).
  void addMachine(Machine machine) {
    std::lock_guard lock(mu_);
    machines_[machine.providerID] = std::move(machine);
  }
  void setAutoTerminate(bool on) {
    std::lock_guard lock(mu_);
    autoTerminate_ = on;
  }
  // The machine finishes terminating: get answers NotFound from now on.
  void terminate(const std::string& providerID) {
    std::lock_guard lock(mu_);
    machines_.erase(providerID);
  }
  void setExtraCapacity(const std::string& resource, const std::string& quantity) {
    std::lock_guard lock(mu_);
    machine_.capacity[resource] = q(quantity);
    machine_.allocatable[resource] = q(quantity);
  }

  std::vector<std::string> calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  // Calls whose text starts with `prefix` ("create", "remove", "get", "isDrifted").
  int count(const std::string& prefix) const {
    std::lock_guard lock(mu_);
    int n = 0;
    for (const auto& call : calls_) {
      n += call.starts_with(prefix + " ") ? 1 : 0;
    }
    return n;
  }
  std::optional<Machine> machine(const std::string& providerID) const {
    std::lock_guard lock(mu_);
    auto it = machines_.find(providerID);
    return it == machines_.end() ? std::nullopt : std::optional<Machine>(it->second);
  }
  size_t running() const {
    std::lock_guard lock(mu_);
    return machines_.size();
  }

 private:
  static core::Quantity q(const std::string& text) { return *core::Quantity::parse(text); }

  mutable std::mutex mu_;
  Machine machine_;  // the template of launched machines
  std::map<std::string, Machine> machines_;
  std::vector<InstanceType> types_;
  std::vector<Exclusion> excluded_;
  std::map<std::string, std::string> byClaim_;  // claim uid -> provider ID
  std::vector<std::string> calls_;
  std::optional<core::Error> createError_;
  std::map<std::string, std::vector<DriftCheck>> drift_;  // provider ID -> checks
  std::optional<core::Error> driftError_;
  bool createErrorSticky_ = false;
  bool autoTerminate_ = false;
  int launched_ = 0;
};

}  // namespace nodewright::cloud::testing
