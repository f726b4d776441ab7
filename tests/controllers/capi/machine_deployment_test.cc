#include "controllers/capi/machine_deployment_controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "capi_env.h"

// MachineDeployment -> MachineSet -> Machine -> AzureMachine against the embedded API server:
// scaling, cloning and rolling updates, with the test playing CAPZ.
namespace nodewright::controllers::capi {
namespace {

using namespace capi::testing;

TEST(TemplateHashTest, FollowsTheTemplateAndUsesTheSafeAlphabet) {
  api::capi::MachineTemplateSpec spec;
  spec.spec.version = "v1.30.2";
  const std::string hash = templateHash(spec);
  EXPECT_EQ(templateHash(spec), hash);
  EXPECT_EQ(hash.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos) << hash;
  spec.spec.version = "v1.31.0";
  EXPECT_NE(templateHash(spec), hash);
}

TEST(MachineSetForTest, SelectsItsRevisionAndIsControlledByTheDeployment) {
  api::capi::MachineDeployment deployment;
  deployment.metadata.name = "md-0";
  deployment.metadata.namespace_ = "default";
  deployment.metadata.uid = "uid-md";
  deployment.spec.clusterName = "c";
  deployment.spec.selector.matchLabels["cluster.x-k8s.io/deployment-name"] = "md-0";
  deployment.spec.template_.metadata.labels["cluster.x-k8s.io/deployment-name"] = "md-0";
  auto set = machineSetFor(deployment, "abc", 3);
  EXPECT_EQ(set.metadata.name, "md-0-abc");
  EXPECT_EQ(set.spec.replicas, 3);
  EXPECT_EQ(set.spec.selector.matchLabels.at("machine-template-hash"), "abc");
  EXPECT_EQ(set.spec.template_.metadata.labels.at("machine-template-hash"), "abc");
  EXPECT_EQ(set.metadata.labels.at("cluster.x-k8s.io/deployment-name"), "md-0");
  ASSERT_EQ(set.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(set.metadata.ownerReferences[0].uid, "uid-md");
  EXPECT_TRUE(set.metadata.ownerReferences[0].controller.value_or(false));
}

class MachineDeploymentTest : public CapiEnv {
 protected:
  std::vector<Machine> liveMachines(const std::string& deployment) {
    std::vector<Machine> live;
    for (Machine& machine : machinesOf(deployment)) {
      if (!machine.metadata.deletionTimestamp) {
        live.push_back(std::move(machine));
      }
    }
    return live;
  }

  // Every live Machine of the deployment has its AzureMachine, cloned from the template (of
  // `vmSize`), controlled by the Machine and labelled with the cluster.
  bool everyMachineHasItsAzureMachine(const std::string& deployment, const std::string& vmSize) {
    for (const Machine& machine : liveMachines(deployment)) {
      auto infra = azureMachines_.get(kNamespace, machine.metadata.name);
      if (!infra || !ownedBy(infra->metadata, "Machine", machine.metadata.uid) ||
          infra->metadata.labels[api::capi::kClusterNameLabel] != kClusterName ||
          infra->spec.vmSize != vmSize || infra->metadata.labels["nodepool"] != "md-0" ||
          machine.spec.infrastructureRef.kind != "AzureMachine" ||
          machine.spec.infrastructureRef.name != machine.metadata.name) {
        return false;
      }
    }
    return true;
  }

  // The VM size of the Machine's AzureMachine, "" when it has none.
  std::string vmSizeOf(const Machine& machine) {
    auto infra = azureMachines_.get(kNamespace, machine.spec.infrastructureRef.name);
    return infra ? infra->spec.vmSize : "";
  }

  void markAllReady(const std::string& deployment) {
    for (const Machine& machine : liveMachines(deployment)) {
      auto infra = azureMachines_.get(kNamespace, machine.metadata.name);
      if (infra && !infra->status.ready) {
        markAzureMachineReady(machine.metadata.name);
      }
    }
  }
};

TEST_F(MachineDeploymentTest, ScalesFromZeroToFiveToTwoWithClonedAzureMachines) {
  createMachineTemplate("md-0-template", "Standard_D4s_v3");
  MachineDeployment deployment = createDeployment("md-0", 0, "md-0-template");

  // Zero replicas: a MachineSet for the revision, no Machines.
  ASSERT_TRUE(eventually([&] {
    auto sets = listOf(sets_, "cluster.x-k8s.io/deployment-name=md-0");
    return sets.size() == 1 && sets[0].spec.replicas == 0 &&
           sets[0].metadata.name == "md-0-" + sets[0].metadata.labels[kMachineTemplateHashLabel] &&
           ownedBy(sets[0].metadata, "MachineDeployment", deployment.metadata.uid);
  }));
  EXPECT_TRUE(machinesOf("md-0").empty());

  mutate<MachineDeployment>(deployments_, "md-0", [](auto& md) { md.spec.replicas = 5; });
  ASSERT_TRUE(eventually([&] {
    return liveMachines("md-0").size() == 5 &&
           everyMachineHasItsAzureMachine("md-0", "Standard_D4s_v3");
  }));
  const std::string setName =
      listOf(sets_, "cluster.x-k8s.io/deployment-name=md-0")[0].metadata.name;
  for (const Machine& machine : liveMachines("md-0")) {
    EXPECT_TRUE(machine.metadata.name.starts_with(setName + "-")) << machine.metadata.name;
    EXPECT_EQ(machine.metadata.name.size(), setName.size() + 6) << machine.metadata.name;
    EXPECT_EQ(machine.metadata.labels.at(api::capi::kMachineSetNameLabel), setName);
    EXPECT_EQ(machine.metadata.labels.at(api::capi::kClusterNameLabel), kClusterName);
    EXPECT_EQ(machine.spec.clusterName, kClusterName);
    auto set = sets_.get(kNamespace, setName);
    ASSERT_TRUE(set);
    EXPECT_TRUE(ownedBy(machine.metadata, "MachineSet", set->metadata.uid));
    ASSERT_TRUE(machine.spec.bootstrap.configRef);
    EXPECT_EQ(machine.spec.bootstrap.configRef->kind, "KubeadmConfig");
  }
  markAllReady("md-0");
  ASSERT_TRUE(eventually([&] {
    auto md = deployments_.get(kNamespace, "md-0");
    return md && md->status.replicas == 5 && md->status.readyReplicas == 5 &&
           md->status.availableReplicas == 5 && md->status.updatedReplicas == 5 &&
           md->status.phase == "Running";
  }));

  std::set<std::string> before;
  for (const Machine& machine : liveMachines("md-0")) {
    before.insert(machine.metadata.name);
  }
  mutate<MachineDeployment>(deployments_, "md-0", [](auto& md) { md.spec.replicas = 2; });
  // Removed Machines go with their AzureMachines (the Machine finalizer waits for them).
  ASSERT_TRUE(eventually([&] {
    if (machinesOf("md-0").size() != 2) {
      return false;
    }
    size_t goneInfra = 0;
    for (const std::string& name : before) {
      goneInfra += gone(azureMachines_, name) && gone(machines_, name) ? 1 : 0;
    }
    return goneInfra == 3 && listOf(azureMachines_).size() == 2;
  }));
  EXPECT_TRUE(everyMachineHasItsAzureMachine("md-0", "Standard_D4s_v3"));
  ASSERT_TRUE(eventually([&] {
    auto md = deployments_.get(kNamespace, "md-0");
    return md && md->status.replicas == 2 && md->status.readyReplicas == 2 &&
           md->status.phase == "Running";
  }));
}

// User story 2: a scale-up by 200 gives every new Machine its AzureMachine in one go, for the
// CAPZ controllers to start on concurrently. (How fast is a benchmark's question, not a
// test's: sanitizer builds are several times slower.)
TEST_F(MachineDeploymentTest, ScalingUpByTwoHundredClonesEveryAzureMachine) {
  createMachineTemplate("md-0-template", "Standard_D2s_v3");
  createDeployment("md-0", 0, "md-0-template");
  ASSERT_TRUE(eventually(
      [&] { return listOf(sets_, "cluster.x-k8s.io/deployment-name=md-0").size() == 1; }));
  mutate<MachineDeployment>(deployments_, "md-0", [](auto& md) { md.spec.replicas = 200; });
  // Each AzureMachine is cloned just before its Machine is created.
  ASSERT_TRUE(eventually(
      [&] { return liveMachines("md-0").size() == 200 && listOf(azureMachines_).size() == 200; },
      std::chrono::seconds(60)));
  ASSERT_TRUE(eventually(
      [&] {
        auto md = deployments_.get(kNamespace, "md-0");
        return md && md->status.replicas == 200 && md->status.phase == "ScalingUp";
      },
      std::chrono::seconds(60)));
  // Every Machine adopts its AzureMachine (the Machine controller runs 10 at a time).
  EXPECT_TRUE(eventually([&] { return everyMachineHasItsAzureMachine("md-0", "Standard_D2s_v3"); },
                         std::chrono::seconds(60)));
}

TEST_F(MachineDeploymentTest, TemplateChangeRollsWithoutLosingReadyMachines) {
  createMachineTemplate("md-0-small", "Standard_D2s_v3");
  createMachineTemplate("md-0-large", "Standard_D8s_v3");
  createDeployment("md-0", 3, "md-0-small");
  ASSERT_TRUE(eventually([&] {
    markAllReady("md-0");
    auto md = deployments_.get(kNamespace, "md-0");
    return md && md->status.readyReplicas == 3 && md->status.phase == "Running";
  }));
  std::set<std::string> original;
  for (const Machine& machine : liveMachines("md-0")) {
    original.insert(machine.metadata.name);
  }

  mutate<MachineDeployment>(deployments_, "md-0", [](auto& md) {
    md.spec.template_.spec.infrastructureRef.name = "md-0-large";
  });
  // The test is CAPZ: each new AzureMachine becomes ready when it sees it. Meanwhile ready
  // Machines never drop below replicas (maxUnavailable 0) and Machines never exceed replicas
  // + 1 (maxSurge 1).
  size_t fewestReady = 3;
  size_t mostMachines = 0;
  const bool rolled = eventually(
      [&] {
        markAllReady("md-0");
        const auto machines = machinesOf("md-0");
        const auto ready =
            static_cast<size_t>(std::count_if(machines.begin(), machines.end(), isReady));
        const auto live = static_cast<size_t>(
            std::count_if(machines.begin(), machines.end(),
                          [](const Machine& m) { return !m.metadata.deletionTimestamp; }));
        fewestReady = std::min(fewestReady, ready);
        mostMachines = std::max(mostMachines, live);
        if (machines.size() != 3 || ready != 3) {
          return false;
        }
        return std::all_of(machines.begin(), machines.end(), [&](const Machine& m) {
          return !original.contains(m.metadata.name) && vmSizeOf(m) == "Standard_D8s_v3";
        });
      },
      std::chrono::seconds(60));
  ASSERT_TRUE(rolled);
  EXPECT_GE(fewestReady, 3u);
  EXPECT_LE(mostMachines, 4u);
  for (const std::string& name : original) {
    EXPECT_TRUE(eventually([&] { return gone(azureMachines_, name); })) << name;
  }
  ASSERT_TRUE(eventually([&] {
    auto md = deployments_.get(kNamespace, "md-0");
    return md && md->status.replicas == 3 && md->status.updatedReplicas == 3 &&
           md->status.availableReplicas == 3 && md->status.phase == "Running";
  }));
  // Two revisions: the old set kept empty (revisionHistoryLimit 1), the new one with all.
  auto sets = listOf(sets_, "cluster.x-k8s.io/deployment-name=md-0");
  ASSERT_EQ(sets.size(), 2u);
  std::sort(sets.begin(), sets.end(),
            [](const auto& a, const auto& b) { return a.spec.replicas < b.spec.replicas; });
  EXPECT_EQ(sets[0].spec.replicas, 0);
  EXPECT_EQ(sets[1].spec.replicas, 3);
}

TEST_F(MachineDeploymentTest, OnDeleteReplacesOnlyMachinesTheUserDeletes) {
  createMachineTemplate("md-0-small", "Standard_D2s_v3");
  createMachineTemplate("md-0-large", "Standard_D8s_v3");
  createDeployment("md-0", 2, "md-0-small");
  mutate<MachineDeployment>(deployments_, "md-0", [](auto& md) {
    md.spec.strategy = api::capi::MachineDeploymentStrategy{"OnDelete", {}, {}};
  });
  ASSERT_TRUE(eventually([&] { return liveMachines("md-0").size() == 2; }));
  const std::string victim = liveMachines("md-0")[0].metadata.name;
  mutate<MachineDeployment>(deployments_, "md-0", [](auto& md) {
    md.spec.template_.spec.infrastructureRef.name = "md-0-large";
  });
  // Nothing is replaced on its own...
  ASSERT_TRUE(eventually(
      [&] { return listOf(sets_, "cluster.x-k8s.io/deployment-name=md-0").size() == 2; }));
  EXPECT_EQ(liveMachines("md-0").size(), 2u);
  // ...until the user deletes an old Machine: the old set shrinks while the Machine is still
  // being torn down (CAPZ's finalizer holds its AzureMachine), and a new Machine takes its place.
  mutate<AzureMachine>(azureMachines_, victim, [](AzureMachine& m) {
    m.metadata.finalizers.push_back("azuremachine.infrastructure.cluster.x-k8s.io");
  });
  ASSERT_TRUE(machines_.remove(kNamespace, victim));
  ASSERT_TRUE(eventually([&] {
    auto sets = listOf(sets_, "cluster.x-k8s.io/deployment-name=md-0");
    return sets.size() == 2 && sets[0].spec.replicas == 1 && sets[1].spec.replicas == 1;
  }));
  mutate<AzureMachine>(azureMachines_, victim,
                       [](AzureMachine& m) { m.metadata.finalizers.clear(); });
  ASSERT_TRUE(eventually([&] {
    auto machines = liveMachines("md-0");
    return machines.size() == 2 && gone(machines_, victim) &&
           std::count_if(machines.begin(), machines.end(),
                         [&](const Machine& m) { return vmSizeOf(m) == "Standard_D8s_v3"; }) == 1;
  }));
  EXPECT_EQ(machinesOf("md-0").size(), 2u) << "the old set did not replace the deleted Machine";
}

}  // namespace
}  // namespace nodewright::controllers::capi
